import type { Linter } from 'eslint';
import { type Diagnostic, type DiagnosticRelatedInformation, type Range } from 'vscode-languageserver/node';
import type { AnalysisSnapshot, WriteSnapshot } from './file-analysis.js';
export declare const DIAGNOSTIC_SOURCE = "fencelint";
/** Carried in `Diagnostic.data` so a code action request finds the ESLint message again. */
export interface DiagnosticData {
    version: number;
    index: number;
}
/** ESLint lines and columns are 1-based; LSP positions are 0-based (both count UTF-16 units). */
export declare function messageRange(message: Linter.LintMessage): Range;
/** The analysed write a diagnostic is about: the smallest write whose range holds the diagnostic's start. */
export declare function writeAt(analysis: AnalysisSnapshot | undefined, range: Range): WriteSnapshot | undefined;
/** Where the lease of a reported write was acquired and, for read-then-update, where it was checked. */
export declare function relatedInformation(uri: string, analysis: AnalysisSnapshot | undefined, range: Range): DiagnosticRelatedInformation[];
export declare function toDiagnostic(uri: string, version: number, index: number, message: Linter.LintMessage, docsUrls: ReadonlyMap<string, string>, analysis: AnalysisSnapshot | undefined): Diagnostic;
