import type { ESLint } from 'eslint';
import type { Range } from 'vscode-languageserver/node';
import type { FindCheckThenWrites, GetFileAnalysis } from './plugin-loader.js';
/**
 * What the server keeps of the core's `getFileAnalysis` for one document version: plain
 * ranges and flags, no AST, so a result can outlive the lint that produced it.
 */
export interface AcquireSnapshot {
    id: number;
    range: Range;
    library: string;
    handle?: string;
    tokens: string[];
    /** Where a real fence token can come from, when none is in scope. */
    advice?: string;
}
export interface WriteSnapshot {
    range: Range;
    sink: string;
    acquireId: number;
    fenced: boolean;
    tokenCompared: boolean;
    tokenStored: boolean;
    /** For read-then-update: the separate check that precedes the write, when the core reports one. */
    checkRange?: Range;
}
/** A write whose safety rests on an earlier, separate check (read-then-update). */
export interface CheckSnapshot {
    writeRange: Range;
    checkRange: Range;
}
export interface AnalysisSnapshot {
    acquires: AcquireSnapshot[];
    writes: WriteSnapshot[];
    checks: CheckSnapshot[];
}
interface EslintLoc {
    start: {
        line: number;
        column: number;
    };
    end: {
        line: number;
        column: number;
    };
}
/** ESLint locations are 1-based lines and 0-based columns; LSP ranges are 0-based both. */
export declare function locToRange(loc: EslintLoc): Range;
/** Copies the core's `FileAnalysis` into a snapshot; unknown or missing fields are dropped, never guessed. */
export declare function snapshotAnalysis(analysis: unknown): AnalysisSnapshot;
/** Copies the core's `findCheckThenWrites` findings: where each guarded write was checked. */
export declare function snapshotChecks(findings: unknown): CheckSnapshot[];
/**
 * An internal rule that runs in the same `Linter` pass as the plugin's rules and hands the
 * core's per-file analysis (cached per SourceCode, so computed once) to the server. The server
 * never parses diagnostic messages to learn where an acquire is.
 */
export declare class AnalysisCollector {
    private latest;
    private failure;
    readonly plugin: ESLint.Plugin;
    constructor(getFileAnalysis: GetFileAnalysis, findCheckThenWrites?: FindCheckThenWrites);
    /** Call before each lint; `take` afterwards returns what this lint collected. */
    reset(): void;
    take(): {
        analysis: AnalysisSnapshot | undefined;
        failure: string | undefined;
    };
}
export declare const COLLECTOR_NAMESPACE = "fencelint-ls";
export declare const COLLECTOR_RULE = "fencelint-ls/collect-analysis";
export {};
