/**
 * An optimistic compare-and-set on a column the write itself moves on. The condition lets the
 * write through only while the stored value has not moved past one the holder read
 * (`updated_at <= $3`, `version = $3`, `NOT EXISTS (SELECT 1 FROM t s WHERE ... s.updated_at > $3)`),
 * and the same write moves that column to a value no earlier write stored (`updated_at = now()`,
 * `new Date()` as it is sent, a random etag, `version + 1`). Any write made since the holder's
 * read, a newer holder's included, moved the column past the value read, so the late write
 * matches nothing. Last write wins by clock is not this: `updated_at < $2 ... SET updated_at = $2`
 * compares the very value it stores, and a late writer with a fresh stamp still passes.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { propertyKeyName, receiverPath, staticString, unwrap, type Node } from '../ast.js';
import { SQL_CLOCK_FUNCTIONS, SQL_RANDOM_FUNCTIONS } from '../models/clock-sources.js';
import { analyzeSql } from '../sql/analyze.js';
import type { SqlAssignment, SqlComparison, SqlStatementInfo, SqlValue } from '../sql/types.js';
import { bareColumn, sameColumn, type FenceJudgeOptions } from './fence-judgement.js';

/** Comparisons that hold while the stored value has not moved past the one compared. */
const NOT_MOVED_PAST = new Set(['<=', '=', 'IS NOT DISTINCT FROM']);

/** A value as it is sent that no earlier write can have stored: a clock reading or a random id, not a literal. */
export function isFreshValue(node: Node, options: FenceJudgeOptions): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal || staticString(n) !== undefined) return false;
  return options.isNonTokenValue?.(n) ?? false;
}

/** The compared value is one the holder holds (read earlier, or passed in), not the clock or a constant. */
function heldValue(values: ReadonlyArray<Node | undefined>, options: FenceJudgeOptions): boolean {
  return values.length > 0 && values.every((v) => v !== undefined && !options.isNonTokenValue?.(v));
}

function sameParams(a: SqlValue, b: SqlValue): boolean {
  return a.params.length > 0 && a.params.length === b.params.length && a.params.every((n) => b.params.includes(n));
}

/** `SET updated_at = now()`, `= $4` bound to `new Date()`, `version = version + 1`: the column moves on. */
function movesOn(a: SqlAssignment, param: (n: number) => Node | undefined, options: FenceJudgeOptions): boolean {
  if (a.value.columns.some((c) => sameColumn(c, a.column)) && /\+\s*\d+\s*$/.test(a.value.text)) return true;
  if (a.value.columns.length > 0) return false;
  if (a.value.params.length === 0) return a.value.functions.some((f) => SQL_CLOCK_FUNCTIONS.has(f) || SQL_RANDOM_FUNCTIONS.has(f));
  return a.value.params.every((n) => {
    const v = param(n);
    return v !== undefined && isFreshValue(v, options);
  });
}

/** Whether a comparison of a SQL write is such an optimistic check (see the module comment). */
export function optimisticSqlCheck(c: SqlComparison, statement: SqlStatementInfo, param: (n: number) => Node | undefined, options: FenceJudgeOptions): boolean {
  if (!NOT_MOVED_PAST.has(c.op) || statement.table === undefined || c.relation !== statement.table) return false;
  if (c.value.columns.length > 0 || !heldValue(c.value.params.map(param), options)) return false;
  const column = bareColumn(c.column);
  return statement.assignments.some((a) => sameColumn(a.column, column) && !sameParams(a.value, c.value) && movesOn(a, param, options));
}

/**
 * Drizzle: a `sql` condition of `db.update(table).set(values).where(...)` that is such a check,
 * with `${table}` and `${table.column}` read as the names they stand for. The column it compares
 * and the value it is compared with, when it is one.
 */
export function optimisticDrizzleCheck(
  fragment: TSESTree.TaggedTemplateExpression,
  table: string,
  values: TSESTree.ObjectExpression | undefined,
  options: FenceJudgeOptions,
): { column: string; value: Node } | undefined {
  if (!values || calleeTag(fragment) !== 'sql') return undefined;
  const params: Node[] = [];
  let text = '';
  for (const [i, q] of fragment.quasi.quasis.entries()) {
    if (q.value.cooked === null || q.value.cooked === undefined) return undefined;
    text += q.value.cooked;
    const e = fragment.quasi.expressions[i];
    if (!e) continue;
    const named = nameIn(e, table);
    if (named !== undefined) text += `"${named}"`;
    else {
      params.push(e);
      text += `$${params.length}`;
    }
  }
  if (text.length > 2000) return undefined;
  const statement = analyzeSql(`SELECT 1 FROM "${table}" WHERE ${text}`)?.statements[0];
  const relation = table.toLowerCase();
  for (const c of statement?.conditions ?? []) {
    if (!NOT_MOVED_PAST.has(c.op) || c.relation !== relation || c.value.columns.length > 0 || c.value.params.length !== 1) continue;
    const compared = params[c.value.params[0] - 1];
    if (!heldValue([compared], options)) continue;
    const stamp = values.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', bareColumn(c.column)));
    if (stamp && isFreshValue(stamp.value as Node, options)) return { column: bareColumn(c.column), value: compared };
  }
  return undefined;
}

function calleeTag(node: TSESTree.TaggedTemplateExpression): string | undefined {
  const tag = unwrap(node.tag);
  return tag.type === AST_NODE_TYPES.Identifier ? tag.name : undefined;
}

/** `${table}` names the table, `${table.column}` its column; anything else is a parameter. */
function nameIn(e: Node, table: string): string | undefined {
  const n = unwrap(e);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name === table ? table : undefined;
  if (n.type !== AST_NODE_TYPES.MemberExpression || n.computed || n.property.type !== AST_NODE_TYPES.Identifier) return undefined;
  const object = unwrap(n.object);
  // SQL folds unquoted names to lower case: `rotatedAt` is read as `rotated_at`, the name it maps to.
  return object.type === AST_NODE_TYPES.Identifier && object.name === table ? n.property.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : undefined;
}

/**
 * Object APIs: a filter that compares a field with the value the holder read from a record
 * (`where: { id: stock.id, onHand: stock.onHand }`) in a write that moves that field
 * (`onHand: { decrement: n }`, MongoDB `$inc`, a value computed anew). The read state is the
 * version: a newer holder that moved the field made the late write match nothing. The field
 * compared with itself, `{ onHand: stock.onHand }` only in the filter, or a field the write
 * leaves alone is no such check. The compared field, or undefined.
 */
export function readStateObjectCheck(filter: TSESTree.ObjectExpression | undefined, values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!filter || !values) return undefined;
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const field = propertyKeyName(p);
    const compared = unwrap(p.value as Node);
    if (!field || compared.type !== AST_NODE_TYPES.MemberExpression || unwrap(compared.object).type !== AST_NODE_TYPES.Identifier) continue;
    const readField = compared.property.type === AST_NODE_TYPES.Identifier && !compared.computed ? compared.property.name : undefined;
    if (!readField || !sameColumn(readField, field)) continue;
    if (movedField(values, field, compared)) return field;
  }
  return undefined;
}

/** Whether the values move `field`: Prisma's relative operators, MongoDB `$inc`/`$set`, or a new value that is not the one compared. */
function movedField(values: TSESTree.ObjectExpression, field: string, compared: Node): boolean {
  for (const p of values.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p) ?? '';
    const value = unwrap(p.value as Node);
    if (/^\$(?:inc|set|mul)$/.test(key) && value.type === AST_NODE_TYPES.ObjectExpression) {
      if (movedField(value, field, compared)) return true;
      continue;
    }
    if (!sameColumn(key, field)) continue;
    if (value.type === AST_NODE_TYPES.ObjectExpression) {
      return value.properties.some((q) => q.type === AST_NODE_TYPES.Property && /^(?:increment|decrement|multiply|divide)$/.test(propertyKeyName(q) ?? ''));
    }
    return value.type !== AST_NODE_TYPES.Literal && !sameText(value, compared);
  }
  return false;
}

/** The same member read twice (`stock.onHand` in the filter and in the values). */
function sameText(a: Node, b: Node): boolean {
  return a.type === AST_NODE_TYPES.MemberExpression && b.type === AST_NODE_TYPES.MemberExpression && receiverPath(a).join('.') === receiverPath(b).join('.');
}
