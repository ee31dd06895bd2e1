import { Linter } from 'eslint';
import type { AnalysisCollector, AnalysisSnapshot } from './file-analysis.js';
/** Files above this size are not linted: a lint would block every other request. */
export declare const MAX_LINT_BYTES: number;
export type LintOutcome = {
    status: 'linted';
    messages: Linter.LintMessage[];
    analysis: AnalysisSnapshot | undefined;
    analysisFailure?: string;
}
/** Not linted on purpose (size, binary content); the reason is one log line. */
 | {
    status: 'skipped';
    reason: string;
}
/** The parser rejected the text (a syntax error while typing): no findings. */
 | {
    status: 'unparsable';
    message: string;
}
/** A rule or the parser threw. */
 | {
    status: 'failed';
    error: string;
};
/** Why a text is not worth linting, or undefined when it is. */
export declare function skipReason(text: string): string | undefined;
/**
 * Runs ESLint's `Linter` on document text. Every exception is caught here: a throwing rule or
 * parser becomes a `failed` outcome, never a crash and never a partial report.
 */
export declare class LintEngine {
    private readonly collector;
    private readonly linters;
    constructor(collector: AnalysisCollector | undefined);
    /** One Linter per filesystem root, so config `files` patterns match every absolute path. */
    private linterFor;
    lint(text: string, filename: string, config: Linter.Config[]): LintOutcome;
    /**
     * The text with every autofix applied (ESLint's own multi-pass fixer). With
     * `includeSuggestions`, afterwards the first suggestion of each remaining problem is applied
     * too, a pass at a time, never two overlapping edits in one pass.
     */
    fixAll(text: string, filename: string, config: Linter.Config[], includeSuggestions: boolean): string | undefined;
}
