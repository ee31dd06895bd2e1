import path from 'node:path';
import { Linter } from 'eslint';
/** Files above this size are not linted: a lint would block every other request. */
export const MAX_LINT_BYTES = 2 * 1024 * 1024;
/** Why a text is not worth linting, or undefined when it is. */
export function skipReason(text) {
    if (text.length > MAX_LINT_BYTES / 4 && Buffer.byteLength(text, 'utf8') > MAX_LINT_BYTES) {
        return `larger than ${MAX_LINT_BYTES / 1024 / 1024} MB`;
    }
    // Source text has no NUL characters; binary content read as text has many.
    if (text.slice(0, 8192).includes('\u0000'))
        return 'binary content';
    return undefined;
}
function describeError(error) {
    if (error instanceof Error)
        return error.stack ?? error.message;
    return String(error);
}
/**
 * Runs ESLint's `Linter` on document text. Every exception is caught here: a throwing rule or
 * parser becomes a `failed` outcome, never a crash and never a partial report.
 */
export class LintEngine {
    collector;
    linters = new Map();
    constructor(collector) {
        this.collector = collector;
    }
    /** One Linter per filesystem root, so config `files` patterns match every absolute path. */
    linterFor(filename) {
        const root = path.parse(filename).root || '/';
        let linter = this.linters.get(root);
        if (!linter) {
            linter = new Linter({ configType: 'flat', cwd: root });
            this.linters.set(root, linter);
        }
        return linter;
    }
    lint(text, filename, config) {
        const reason = skipReason(text);
        if (reason)
            return { status: 'skipped', reason };
        this.collector?.reset();
        let messages;
        try {
            messages = this.linterFor(filename).verify(text, config, { filename });
        }
        catch (error) {
            this.collector?.reset();
            return { status: 'failed', error: describeError(error) };
        }
        const collected = this.collector?.take();
        const fatal = messages.find((m) => m.fatal);
        if (fatal)
            return { status: 'unparsable', message: `${fatal.message} (${fatal.line}:${fatal.column})` };
        return {
            status: 'linted',
            messages: messages.filter((m) => m.ruleId !== null && !m.ruleId.startsWith('fencelint-ls/')),
            analysis: collected?.analysis,
            analysisFailure: collected?.failure,
        };
    }
    /**
     * The text with every autofix applied (ESLint's own multi-pass fixer). With
     * `includeSuggestions`, afterwards the first suggestion of each remaining problem is applied
     * too, a pass at a time, never two overlapping edits in one pass.
     */
    fixAll(text, filename, config, includeSuggestions) {
        if (skipReason(text))
            return undefined;
        try {
            const linter = this.linterFor(filename);
            let output = linter.verifyAndFix(text, config, { filename, fix: true }).output;
            if (!includeSuggestions)
                return output;
            for (let pass = 0; pass < 10; pass++) {
                const messages = linter.verify(output, config, { filename });
                const edits = messages
                    .filter((m) => !m.fatal && m.suggestions && m.suggestions.length > 0)
                    .map((m) => m.suggestions[0].fix)
                    .sort((a, b) => a.range[0] - b.range[0]);
                const chosen = [];
                let lastEnd = -1;
                for (const edit of edits) {
                    if (edit.range[0] < lastEnd)
                        continue;
                    chosen.push(edit);
                    lastEnd = edit.range[1];
                }
                if (chosen.length === 0)
                    break;
                for (const edit of chosen.reverse()) {
                    output = output.slice(0, edit.range[0]) + edit.text + output.slice(edit.range[1]);
                }
            }
            return output;
        }
        catch {
            return undefined;
        }
    }
}
//# sourceMappingURL=lint-engine.js.map