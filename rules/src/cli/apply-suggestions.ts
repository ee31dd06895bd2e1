/**
 * `fencelint fix --suggestions`: ESLint's `--fix` never applies suggestions, and ours are the
 * main fix (they change which writes succeed, so they are not autofixes). This applies the
 * first suggestion of each finding, per file, from the end of the file backwards so earlier
 * offsets stay valid; a suggestion that overlaps one already taken waits for the next run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ESLint, Linter } from 'eslint';

export interface FileEdit {
  file: string;
  before: string;
  after: string;
  applied: Array<{ line: number; ruleId: string; desc: string }>;
  /** Suggestions left for the next run because they overlap one applied now. */
  overlapping: number;
}

export function planSuggestions(results: ESLint.LintResult[]): FileEdit[] {
  const edits: FileEdit[] = [];
  for (const result of results) {
    const chosen = result.messages
      .filter((m): m is Linter.LintMessage & { ruleId: string; suggestions: Linter.LintSuggestion[] } => !!m.ruleId && (m.suggestions?.length ?? 0) > 0)
      .map((m) => ({ message: m, suggestion: m.suggestions[0] }));
    if (chosen.length === 0) continue;
    const before = result.source ?? readFileSync(result.filePath, 'utf8');
    chosen.sort((a, b) => b.suggestion.fix.range[0] - a.suggestion.fix.range[0]);
    let after = before;
    let lowest = Infinity;
    const applied: FileEdit['applied'] = [];
    let overlapping = 0;
    for (const { message, suggestion } of chosen) {
      const [start, end] = suggestion.fix.range;
      if (end > lowest || start === lowest) {
        overlapping++;
        continue;
      }
      after = after.slice(0, start) + suggestion.fix.text + after.slice(end);
      lowest = start;
      applied.push({ line: message.line, ruleId: message.ruleId, desc: suggestion.desc });
    }
    applied.reverse();
    edits.push({ file: result.filePath, before, after, applied, overlapping });
  }
  return edits;
}

export function unifiedDiff(edit: FileEdit, cwd: string): string {
  const name = path.relative(cwd, edit.file) || edit.file;
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, edit.before, edit.after, undefined, undefined, { context: 3 });
}

/** Writes each edit, unless the file changed on disk since it was linted. */
export function writeEdits(edits: FileEdit[]): string[] {
  const skipped: string[] = [];
  for (const edit of edits) {
    if (readFileSync(edit.file, 'utf8') !== edit.before) {
      skipped.push(edit.file);
      continue;
    }
    writeFileSync(edit.file, edit.after);
  }
  return skipped;
}
