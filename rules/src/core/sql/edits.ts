/**
 * `planFenceEdit`: the text changes that make a write fenced, in the user's own formatting:
 * `AND <col> < <token>` in the condition (or a new WHERE) and `<col> = <token>` in the SET list.
 */
import { internals, statementInternals } from './analyze.js';
import type { SqlToken } from './parser.js';
import type { FenceEditOptions, SqlAnalysis, SqlStatementInfo, SqlTextEdit } from './types.js';

/**
 * Edits (offsets in `analysis.text`, ascending, at most one per offset) for a suggestion.
 * Returns [] when the statement offers no place for them (plain INSERT, MERGE, SELECT,
 * WHERE CURRENT OF) or when there is nothing to add.
 */
export function planFenceEdit(analysis: SqlAnalysis, stmt: SqlStatementInfo, opts: FenceEditOptions): SqlTextEdit[] {
  const state = internals.get(analysis);
  if (!state) return [];
  const { view } = state;
  const text = analysis.text;
  const tokens = view.tokens;
  const edit = stmt.edit;
  const lower = isLowerCase(tokens, stmt.range.start);
  const kw = (word: string): string => (lower ? word.toLowerCase() : word);
  const column = opts.column;
  const qualify = stmt.upsert || statementInternals.get(stmt)?.joined;
  const compared = qualify ? `${stmt.alias ?? stmt.table}.${column}` : column;
  const planned: SqlTextEdit[] = [];
  const add = (offset: number, insert: string): void => {
    const same = planned.find((e) => e.offset === offset);
    if (same) same.insert += insert;
    else planned.push({ offset, deleteCount: 0, insert });
  };

  const bare = column.replace(/"/g, '').toLowerCase();
  const alreadyStored = stmt.assignments.some((a) => a.column === bare);
  if (opts.store && !alreadyStored && edit.setListEnd !== undefined) {
    add(edit.setListEnd, `${listSeparator(text, tokens, view.indexAt(edit.setListEnd - 1))}${column} = ${opts.tokenPlaceholder}`);
  }
  if (opts.compare) {
    if (edit.whereRange) {
      const { start, end } = edit.whereRange;
      const first = view.indexAt(start);
      const last = view.indexAt(end - 1);
      if (hasTopLevel(tokens, first, last, 'OR') && !wrapped(view, first, last)) {
        add(start, '(');
        add(end, ')');
      }
      add(end, `${conjunctSeparator(text, tokens, first, last)}${kw('AND')} ${compared} < ${opts.tokenPlaceholder}`);
    } else if (edit.whereInsertAt !== undefined) {
      add(edit.whereInsertAt, `${clauseSeparator(text, tokens, stmt)}${kw('WHERE')} ${compared} < ${opts.tokenPlaceholder}`);
    }
  }
  if (opts.newline && opts.newline !== '\n') for (const e of planned) e.insert = e.insert.replace(/\n/g, opts.newline);
  planned.sort((a, b) => a.offset - b.offset);
  if (analysis.dialect === 'mysql' && opts.tokenPlaceholder === '?') addValueIndexes(planned, state.normalized.positionalOffsets);
  return planned;
}

/** Applies edits to `analysis.text` ('text') or, through the offset map, to the SQL as given ('source'). */
export function applySqlEdits(analysis: SqlAnalysis, edits: SqlTextEdit[], target: 'text' | 'source' = 'source'): string | undefined {
  let result = target === 'text' ? analysis.text : analysis.source;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) {
    const at = target === 'text' ? e.offset : analysis.toSourceOffset(e.offset);
    if (at === undefined) return undefined;
    result = result.slice(0, at) + e.insert + result.slice(at + e.deleteCount);
  }
  return result;
}

function addValueIndexes(edits: SqlTextEdit[], positional: number[]): void {
  let insertedBefore = 0;
  for (const e of edits) {
    const before = positional.filter((p) => p < e.offset).length;
    const count = e.insert.split('?').length - 1;
    if (count === 0) continue;
    e.valueIndexes = Array.from({ length: count }, (_, i) => before + insertedBefore + i);
    insertedBefore += count;
  }
}

function isLowerCase(tokens: SqlToken[], at: number): boolean {
  const first = tokens.find((t) => t.start >= at && t.keyword);
  return first !== undefined && /^[a-z]/.test(first.written);
}

/** Text from the start of the line to `offset`, when only whitespace precedes it on that line. */
function lineIndent(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** `\n<indent>` when existing conjuncts (or the WHERE itself) start their own lines, else a space. */
function conjunctSeparator(text: string, tokens: SqlToken[], first: number, last: number): string {
  let depth = 0;
  for (let k = first; k <= last; k++) {
    const t = tokens[k];
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && (t.text === 'AND' || t.text === 'OR') && t.keyword) {
      const indent = lineIndent(text, t.start);
      if (indent !== undefined) return `\n${indent}`;
    }
  }
  const where = tokens[first - 1];
  const whereIndent = where?.text === 'WHERE' ? lineIndent(text, where.start) : undefined;
  if (whereIndent !== undefined && where.start > 0) return `\n${whereIndent}  `;
  return ' ';
}

/** `\n<indent>` for a new clause when SET starts its own line, else a space. */
function clauseSeparator(text: string, tokens: SqlToken[], stmt: SqlStatementInfo): string {
  const set = tokens.find((t) => t.start >= stmt.range.start && t.start < stmt.range.end && t.text === 'SET');
  const indent = set ? lineIndent(text, set.start) : undefined;
  return indent !== undefined && set!.start > stmt.range.start ? `\n${indent}` : ' ';
}

/** `,\n<indent>` when the list's items after a comma start their own lines, else `, `. */
function listSeparator(text: string, tokens: SqlToken[], lastIndex: number): string {
  for (let k = lastIndex; k > 0 && tokens[k].text !== 'SET'; k--) {
    if (tokens[k - 1].text === ',') {
      const indent = lineIndent(text, tokens[k].start);
      return indent !== undefined ? `,\n${indent}` : ', ';
    }
  }
  return ', ';
}

function hasTopLevel(tokens: SqlToken[], first: number, last: number, word: string): boolean {
  let depth = 0;
  for (let k = first; k <= last; k++) {
    const t = tokens[k];
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && t.keyword && t.text === word) return true;
  }
  return false;
}

/** The whole range is one parenthesized group. */
function wrapped(view: { tokens: SqlToken[]; matching(open: number): number }, first: number, last: number): boolean {
  return view.tokens[first].text === '(' && view.matching(first) === last;
}
