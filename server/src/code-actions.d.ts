import type { Linter } from 'eslint';
import { type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { LintResult } from './lint-service.js';
export declare const FIX_ALL_KIND: string;
export declare const SHOW_DOCUMENTATION_COMMAND = "fencelint.server.showDocumentation";
/** The ESLint message a diagnostic was made from: by `data` when the client kept it, else by position, rule and text. */
export declare function messageFor(result: LintResult, diagnostic: Diagnostic): Linter.LintMessage | undefined;
/**
 * `// eslint-disable-next-line <rule>` above the reported line, with the line's indentation;
 * when that line already holds such a comment, the rule is appended to it.
 */
export declare function disableNextLineEdit(document: TextDocument, line: number, ruleId: string): TextEdit;
/**
 * Quick fixes for the fencelint diagnostics in the request: each autofix and each suggestion of
 * the rule (the autofix, or else the rule's first suggestion, is preferred: rules list their
 * suggestions best first), disable for this line, and show documentation.
 */
export declare function quickFixes(result: LintResult, diagnostics: Diagnostic[], docsUrls: ReadonlyMap<string, string>): CodeAction[];
/** One edit from the common prefix to the common suffix of two texts, so the cursor stays put. */
export declare function minimalEdit(document: TextDocument, before: string, after: string): TextEdit | undefined;
/** `source.fixAll.fencelint`: one action whose edit turns the text into the fixed text. */
export declare function fixAllAction(result: LintResult, fixedText: string | undefined): CodeAction | undefined;
