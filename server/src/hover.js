import { MarkupKind } from 'vscode-languageserver/node';
function holds(range, position) {
    const afterStart = position.line > range.start.line || (position.line === range.start.line && position.character >= range.start.character);
    const beforeEnd = position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character);
    return afterStart && beforeEnd;
}
function describeWrite(write) {
    const where = `line ${write.range.start.line + 1}`;
    if (write.fenced) {
        const stored = write.tokenStored ? 'compared and stored' : 'compared, not stored';
        return `- ${where}: \`${write.sink}\` write — fenced (token ${stored})`;
    }
    const reason = write.tokenCompared ? 'token compared but not stored' : 'no fence condition';
    return `- ${where}: \`${write.sink}\` write — **not fenced** (${reason})`;
}
/**
 * Hover on an acquire call: where its token goes. Lists every write the core traced to this
 * lease, fenced or not. Without the core's analysis there is nothing to say, and no hover.
 */
export function acquireHover(analysis, position) {
    const acquire = analysis?.acquires.find((a) => holds(a.range, position));
    if (!acquire)
        return null;
    const writes = analysis.writes.filter((w) => w.acquireId === acquire.id);
    const lines = [`**fencelint: lease acquired** (${acquire.library}${acquire.handle ? `, handle \`${acquire.handle}\`` : ''})`, ''];
    lines.push(acquire.tokens.length > 0
        ? `Fence token in scope: ${acquire.tokens.map((t) => `\`${t}\``).join(', ')}`
        : `No fence token in scope: ${acquire.advice ?? 'take one from a durable counter and compare it at the resource'}.`, '');
    if (writes.length === 0) {
        lines.push('No write under this lease.');
    }
    else {
        lines.push(`Writes under this lease (${writes.filter((w) => !w.fenced).length} of ${writes.length} not fenced):`, ...writes.map(describeWrite));
    }
    return { contents: { kind: MarkupKind.Markdown, value: lines.join('\n') }, range: acquire.range };
}
//# sourceMappingURL=hover.js.map