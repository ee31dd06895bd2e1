import type { Linter } from 'eslint';
import {
  CodeActionKind,
  type CodeAction,
  type Diagnostic,
  type TextEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DIAGNOSTIC_SOURCE, type DiagnosticData } from './diagnostics.js';
import type { LintResult } from './lint-service.js';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.fencelint`;
export const SHOW_DOCUMENTATION_COMMAND = 'fencelint.server.showDocumentation';

function textEdit(document: TextDocument, fix: { range: [number, number]; text: string }): TextEdit {
  return {
    range: { start: document.positionAt(fix.range[0]), end: document.positionAt(fix.range[1]) },
    newText: fix.text,
  };
}

/** The ESLint message a diagnostic was made from: by `data` when the client kept it, else by position, rule and text. */
export function messageFor(result: LintResult, diagnostic: Diagnostic): Linter.LintMessage | undefined {
  const data = diagnostic.data as DiagnosticData | undefined;
  if (data && data.version === result.version && result.messages[data.index]) return result.messages[data.index];
  // Some clients rebuild diagnostics from their own store and drop `data` (and even `code`).
  return result.messages.find(
    (m) =>
      (diagnostic.code === undefined || m.ruleId === diagnostic.code) &&
      m.message === diagnostic.message &&
      m.line - 1 === diagnostic.range.start.line &&
      m.column - 1 === diagnostic.range.start.character,
  );
}

/**
 * `// eslint-disable-next-line <rule>` above the reported line, with the line's indentation;
 * when that line already holds such a comment, the rule is appended to it.
 */
export function disableNextLineEdit(document: TextDocument, line: number, ruleId: string): TextEdit {
  const lines = document.getText().split(/\r?\n/);
  const current = lines[line] ?? '';
  const indent = /^\s*/.exec(current)![0];
  const previous = line > 0 ? lines[line - 1] : undefined;
  const directive = previous !== undefined ? /^\s*\/\/\s*eslint-disable-next-line\s+\S/.exec(previous) : null;
  if (previous !== undefined && directive) {
    // Rule names contain dashes; only " --" starts the description.
    const description = previous.search(/\s--(\s|$)/);
    const end = (description === -1 ? previous : previous.slice(0, description)).trimEnd().length;
    return { range: { start: { line: line - 1, character: end }, end: { line: line - 1, character: end } }, newText: `, ${ruleId}` };
  }
  const eol = document.getText().includes('\r\n') ? '\r\n' : '\n';
  return { range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${indent}// eslint-disable-next-line ${ruleId}${eol}` };
}

/**
 * Quick fixes for the fencelint diagnostics in the request: each autofix and each suggestion of
 * the rule (the autofix, or else the rule's first suggestion, is preferred: rules list their
 * suggestions best first), disable for this line, and show documentation.
 */
export function quickFixes(result: LintResult, diagnostics: Diagnostic[], docsUrls: ReadonlyMap<string, string>): CodeAction[] {
  const document = TextDocument.create(result.uri, 'typescript', result.version, result.text);
  const edits = (list: TextEdit[]) => ({ changes: { [result.uri]: list } });
  const actions: CodeAction[] = [];
  const tail: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== undefined && diagnostic.source !== DIAGNOSTIC_SOURCE) continue;
    const message = messageFor(result, diagnostic);
    if (!message || !message.ruleId) continue;
    const ruleId = message.ruleId;
    if (message.fix) {
      actions.push({
        title: `Fix this ${ruleId} problem`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: edits([textEdit(document, message.fix)]),
      });
    }
    (message.suggestions ?? []).forEach((suggestion, i) => {
      actions.push({
        title: suggestion.desc,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: !message.fix && i === 0,
        edit: edits([textEdit(document, suggestion.fix)]),
      });
    });
    tail.push({
      title: `Disable ${ruleId} for this line`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      edit: edits([disableNextLineEdit(document, message.line - 1, ruleId)]),
    });
    const url = docsUrls.get(ruleId);
    if (url) {
      tail.push({
        title: `Show documentation for ${ruleId}`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        command: { title: `Show documentation for ${ruleId}`, command: SHOW_DOCUMENTATION_COMMAND, arguments: [url] },
      });
    }
  }
  // Fixes first, then the housekeeping actions, each listed once per rule.
  const seen = new Set<string>();
  for (const action of tail) {
    if (seen.has(action.title)) continue;
    seen.add(action.title);
    actions.push(action);
  }
  return actions;
}

/** One edit from the common prefix to the common suffix of two texts, so the cursor stays put. */
export function minimalEdit(document: TextDocument, before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  return textEdit(document, { range: [start, endBefore], text: after.slice(start, endAfter) });
}

/** `source.fixAll.fencelint`: one action whose edit turns the text into the fixed text. */
export function fixAllAction(result: LintResult, fixedText: string | undefined): CodeAction | undefined {
  if (fixedText === undefined) return undefined;
  const document = TextDocument.create(result.uri, 'typescript', result.version, result.text);
  const edit = minimalEdit(document, result.text, fixedText);
  return {
    title: 'Fix all fencelint problems',
    kind: FIX_ALL_KIND,
    edit: { changes: { [result.uri]: edit ? [edit] : [] } },
  };
}
