function isLoc(value) {
    const loc = value;
    return typeof loc?.start?.line === 'number' && typeof loc?.end?.line === 'number';
}
/** ESLint locations are 1-based lines and 0-based columns; LSP ranges are 0-based both. */
export function locToRange(loc) {
    return {
        start: { line: loc.start.line - 1, character: loc.start.column },
        end: { line: loc.end.line - 1, character: loc.end.column },
    };
}
function locOf(site, key = 'loc') {
    const direct = site[key];
    if (isLoc(direct))
        return direct;
    const node = site.node;
    return key === 'loc' && isLoc(node?.loc) ? node.loc : undefined;
}
function strings(value) {
    return Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
}
/** Token values in scope for an acquire: destructured locals and token properties of its handle. */
function acquireTokens(site) {
    if (Array.isArray(site.tokens))
        return strings(site.tokens);
    const tokens = site.destructured instanceof Map ? [...site.destructured.values()].filter((v) => typeof v === 'string') : [];
    const handle = typeof site.handleKey === 'string' ? site.handleKey : undefined;
    for (const property of strings(site.tokenProperties))
        tokens.push(handle ? `${handle}.${property}` : property);
    return tokens;
}
/** A write's verdict flags: on the site itself, or on its verdicts (any statement that compares/stores). */
function verdictFlag(site, flag) {
    if (typeof site[flag] === 'boolean')
        return site[flag];
    const verdicts = Array.isArray(site.verdicts) ? site.verdicts : site.verdict ? [site.verdict] : [];
    return verdicts.length > 0 && verdicts.every((v) => v?.[flag] === true);
}
/** Copies the core's `FileAnalysis` into a snapshot; unknown or missing fields are dropped, never guessed. */
export function snapshotAnalysis(analysis) {
    const source = (analysis ?? {});
    const acquires = [];
    for (const raw of Array.isArray(source.acquires) ? source.acquires : []) {
        const site = raw;
        const loc = locOf(site);
        if (!loc || typeof site.id !== 'number')
            continue;
        const handle = site.handleKey ?? site.handle;
        acquires.push({
            id: site.id,
            range: locToRange(loc),
            library: typeof site.library === 'string' ? site.library : 'lock',
            handle: typeof handle === 'string' ? handle : undefined,
            tokens: acquireTokens(site),
            advice: typeof site.advice === 'string' ? site.advice : undefined,
        });
    }
    const writes = [];
    for (const raw of Array.isArray(source.writes) ? source.writes : []) {
        const site = raw;
        const loc = locOf(site);
        const acquireId = typeof site.acquireId === 'number' ? site.acquireId : site.acquire?.id;
        if (!loc || typeof acquireId !== 'number')
            continue;
        const check = locOf(site, 'checkLoc') ?? (isLoc(site.check?.loc) ? site.check.loc : undefined)
            ?? (isLoc(site.check?.node?.loc) ? site.check.node.loc : undefined);
        writes.push({
            range: locToRange(loc),
            sink: typeof site.sink === 'string' ? site.sink : 'write',
            acquireId,
            fenced: site.fenced === true,
            tokenCompared: verdictFlag(site, 'tokenCompared'),
            tokenStored: verdictFlag(site, 'tokenStored'),
            checkRange: check ? locToRange(check) : undefined,
        });
    }
    return { acquires, writes, checks: [] };
}
/** Copies the core's `findCheckThenWrites` findings: where each guarded write was checked. */
export function snapshotChecks(findings) {
    const checks = [];
    for (const raw of Array.isArray(findings) ? findings : []) {
        const finding = raw;
        const checkLoc = finding.check?.loc;
        const writeLoc = finding.write?.node?.loc;
        if (isLoc(checkLoc) && isLoc(writeLoc))
            checks.push({ writeRange: locToRange(writeLoc), checkRange: locToRange(checkLoc) });
    }
    return checks;
}
/**
 * An internal rule that runs in the same `Linter` pass as the plugin's rules and hands the
 * core's per-file analysis (cached per SourceCode, so computed once) to the server. The server
 * never parses diagnostic messages to learn where an acquire is.
 */
export class AnalysisCollector {
    latest;
    failure;
    plugin;
    constructor(getFileAnalysis, findCheckThenWrites) {
        const collector = this;
        const rule = {
            meta: { type: 'problem', schema: [], docs: { description: 'Hands the file analysis to the language server.' } },
            create(context) {
                return {
                    'Program:exit'() {
                        try {
                            const analysis = getFileAnalysis(context);
                            const snapshot = snapshotAnalysis(analysis);
                            if (findCheckThenWrites)
                                snapshot.checks = snapshotChecks(findCheckThenWrites(analysis, context.sourceCode));
                            collector.latest = snapshot;
                        }
                        catch (error) {
                            // The analysis only decorates diagnostics; its failure must not drop them.
                            collector.failure = error instanceof Error ? error.message : String(error);
                        }
                    },
                };
            },
        };
        this.plugin = { meta: { name: 'fencelint-language-server-internal' }, rules: { 'collect-analysis': rule } };
    }
    /** Call before each lint; `take` afterwards returns what this lint collected. */
    reset() {
        this.latest = undefined;
        this.failure = undefined;
    }
    take() {
        const result = { analysis: this.latest, failure: this.failure };
        this.reset();
        return result;
    }
}
export const COLLECTOR_NAMESPACE = 'fencelint-ls';
export const COLLECTOR_RULE = `${COLLECTOR_NAMESPACE}/collect-analysis`;
//# sourceMappingURL=file-analysis.js.map