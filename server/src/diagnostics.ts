import type { Linter } from 'eslint';
import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticRelatedInformation,
  type Range,
} from 'vscode-languageserver/node';
import type { AnalysisSnapshot, WriteSnapshot } from './file-analysis.js';

export const DIAGNOSTIC_SOURCE = 'fencelint';

/** Carried in `Diagnostic.data` so a code action request finds the ESLint message again. */
export interface DiagnosticData {
  version: number;
  index: number;
}

/** ESLint lines and columns are 1-based; LSP positions are 0-based (both count UTF-16 units). */
export function messageRange(message: Linter.LintMessage): Range {
  const start = { line: Math.max(0, message.line - 1), character: Math.max(0, message.column - 1) };
  const end =
    typeof message.endLine === 'number' && typeof message.endColumn === 'number'
      ? { line: Math.max(0, message.endLine - 1), character: Math.max(0, message.endColumn - 1) }
      : start;
  return { start, end };
}

function contains(outer: Range, inner: Range): boolean {
  const before = (a: Range['start'], b: Range['start']) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(outer.start, inner.start) && before(inner.end, outer.end);
}

function size(range: Range): number {
  return (range.end.line - range.start.line) * 100_000 + (range.end.character - range.start.character);
}

/** The analysed write a diagnostic is about: the smallest write whose range holds the diagnostic's start. */
export function writeAt(analysis: AnalysisSnapshot | undefined, range: Range): WriteSnapshot | undefined {
  let best: WriteSnapshot | undefined;
  for (const write of analysis?.writes ?? []) {
    if (!contains(write.range, { start: range.start, end: range.start })) continue;
    if (!best || size(write.range) < size(best.range)) best = write;
  }
  return best;
}

/** Where the lease of a reported write was acquired and, for read-then-update, where it was checked. */
export function relatedInformation(uri: string, analysis: AnalysisSnapshot | undefined, range: Range): DiagnosticRelatedInformation[] {
  const related: DiagnosticRelatedInformation[] = [];
  const write = writeAt(analysis, range);
  const acquire = write && analysis!.acquires.find((a) => a.id === write.acquireId);
  if (acquire) {
    // The why and the how that the one-line message leaves out: where a token can come from.
    const advice = acquire.tokens.length === 0 && acquire.advice ? `; no fence token in scope: ${acquire.advice}` : '';
    related.push({ location: { uri, range: acquire.range }, message: `lease acquired here (${acquire.library})${advice}` });
  }
  const at = { start: range.start, end: range.start };
  const check = write?.checkRange ?? analysis?.checks.find((c) => contains(c.writeRange, at))?.checkRange;
  if (check) {
    related.push({ location: { uri, range: check }, message: 'checked here, in a separate step before the write' });
  }
  return related;
}

export function toDiagnostic(
  uri: string,
  version: number,
  index: number,
  message: Linter.LintMessage,
  docsUrls: ReadonlyMap<string, string>,
  analysis: AnalysisSnapshot | undefined,
): Diagnostic {
  const range = messageRange(message);
  const ruleId = message.ruleId ?? 'fencelint';
  const href = docsUrls.get(ruleId);
  const data: DiagnosticData = { version, index };
  const diagnostic: Diagnostic = {
    range,
    severity: message.severity === 2 ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    source: DIAGNOSTIC_SOURCE,
    code: ruleId,
    message: message.message,
    data,
  };
  if (href) diagnostic.codeDescription = { href };
  const related = relatedInformation(uri, analysis, range);
  if (related.length > 0) diagnostic.relatedInformation = related;
  return diagnostic;
}
