/**
 * Cooldown claims: an update (or an upsert's DO UPDATE) that stores a moment only while the stored
 * one is at least a window older (`... DO UPDATE SET last_run = now() WHERE t.last_run + interval
 * '5 minutes' <= now()`, `CAST(t.value AS BIGINT) + $3 <= $4` storing `$4`), or older at all
 * (`WHERE t.last_run < $1 ... SET last_run = $1`, `$1` the clock read right here). The stored value only ever grows, as with
 * `GREATEST`, and a late holder whose moment is not past the window matches nothing: the write
 * compares and sets in one statement, like a set-once claim. Only when the write stores nothing
 * else than that moment and clock stamps: a cooldown that also stores data, or stores a value other
 * than the one it compared (a computed target), is still a late write.
 */
import { AST_NODE_TYPES } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { constValueBefore, unwrap, type Node } from '../ast.js';
import { SQL_CLOCK_FUNCTIONS, VALUE_KEEPING_FUNCTIONS } from '../models/clock-sources.js';
import { clockImports, clockSourceOf } from '../modules/value-origin.js';
import type { SqlComparison, SqlStatementInfo, SqlValue } from '../sql/types.js';
import { bareColumn, isTokenColumnByName, sameColumn, sameValueExpression } from './fence-judgement.js';

/** `$4`, `$4::bigint`, `EXCLUDED.value` (resolved to its inserted parameter): one parameter and nothing else. */
function singleParam(v: SqlValue): number | undefined {
  if (v.params.length !== 1 || v.columns.length > 0 || v.functions.length > 0) return undefined;
  const text = v.text.trim().replace(/::\s*[\w" ]+$/, '').replace(/^cast\s*\(\s*(.*?)\s+as\s+[\w" ]+\)$/i, '$1').trim();
  return text === `$${v.params[0]}` || /^excluded\.\w+$/i.test(text.replace(/"/g, '')) ? v.params[0] : undefined;
}

/** A reading of the database clock and nothing else (`now()`, `CURRENT_TIMESTAMP`). */
function clockOnly(v: SqlValue): boolean {
  return v.params.length === 0 && v.columns.length === 0 && v.functions.length > 0 && v.functions.every((f) => SQL_CLOCK_FUNCTIONS.has(f));
}

/** `String(now)` and `now` are one value: conversions keep it. */
function bare(node: Node): Node {
  let n = unwrap(node);
  while (n.type === AST_NODE_TYPES.CallExpression && n.arguments.length === 1 && n.callee.type === AST_NODE_TYPES.Identifier && VALUE_KEEPING_FUNCTIONS.has(n.callee.name)) n = unwrap(n.arguments[0] as Node);
  return n;
}

/** Whether the stored value `a` is the compared moment `b`: the clock as read in the statement (not moved by an amount), or the same parameter. */
function sameMoment(a: SqlValue, b: SqlValue, param: (n: number) => Node | undefined): boolean {
  if (clockOnly(a) && clockOnly(b)) return /^\s*\w+\s*(?:\(\s*\))?\s*$/.test(a.text);
  const x = singleParam(a);
  const y = singleParam(b);
  if (x === undefined || y === undefined) return false;
  if (x === y) return true;
  const px = param(x);
  const py = param(y);
  return px !== undefined && py !== undefined && sameValueExpression(bare(px), bare(py));
}

/**
 * A parameter bound to the clock as read where the write is sent (`new Date()`, `Date.now()`, the
 * shared clock catalog's other clocks), or a `const` of this function bound to one.
 */
function readsClockHere(v: SqlValue, param: (n: number) => Node | undefined, sourceCode: SourceCode): boolean {
  const n = singleParam(v);
  let value = n !== undefined ? param(n) : undefined;
  for (let i = 0; value && i < 3; i++) {
    const b = bare(value);
    if ((b.type === AST_NODE_TYPES.NewExpression || b.type === AST_NODE_TYPES.CallExpression) && clockSourceOf(b, sourceCode, clockImports(sourceCode))?.kind === 'clock') return true;
    value = b.type === AST_NODE_TYPES.Identifier ? constValueBefore(b) : undefined;
  }
  return false;
}

/** Whether `c` is the comparison of a cooldown claim in `statement` (see above). */
export function isCooldownSqlClaim(c: SqlComparison, statement: SqlStatementInfo, param: (n: number) => Node | undefined, sourceCode: SourceCode): boolean {
  if ((c.op !== '<' && c.op !== '<=') || (statement.kind !== 'update' && !statement.upsert)) return false;
  if (c.relation !== undefined && statement.table !== undefined && c.relation !== statement.table) return false;
  if (c.value.columns.length > 0 || (c.offset && (c.offset.columns.length > 0 || c.offset.text.trim().startsWith('-')))) return false;
  const column = bareColumn(c.column);
  if (isTokenColumnByName(column, {})) return false;
  const own = statement.assignments.filter((a) => sameColumn(a.column, column));
  if (own.length !== 1 || !sameMoment(own[0].value, c.value, param)) return false;
  // With no window, only the clock as read here: a moment passed in (`seenAt`) is last-write-wins by clock.
  if (!c.offset && !clockOnly(c.value) && !readsClockHere(c.value, param, sourceCode)) return false;
  // Nothing else but clock stamps and the same moment.
  return statement.assignments.every((a) => a === own[0] || clockOnly(a.value) || sameMoment(a.value, c.value, param));
}
