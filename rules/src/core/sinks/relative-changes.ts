/**
 * Updates that only step values relative to what is stored, as a counter is changed: MongoDB
 * `{ $inc: { credits: -n } }`, Prisma `{ credits: { decrement: n } }`, SQL `SET points = points - $1`,
 * TypeORM `.set({ points: () => 'points - :n' })`, knex `{ points: db.raw('points - ?', [n]) }`.
 * Applied late, such an update is applied once and overwrites no value a newer holder wrote, so it
 * is no late write. Every assignment must be one: beside an absolute one (`$set`, `status = 'x'`)
 * the update overwrites. The library forms are the catalog's (`RelativeChanges` in `models/sinks.ts`).
 *
 * This says nothing about a fence: a write whose condition compares a token is judged as one
 * (`version = $3 ... SET version = version + 1` is a compare-and-set); only a write that compares
 * none is left out (see `readWriteAt` in `file-analysis.ts`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, constObjectBefore, objectArgument, propertyKeyName, staticString, unwrap, type Node } from '../ast.js';
import { sinkWrite, type RelativeChanges } from '../models/sinks.js';
import { analyzeSql } from '../sql/index.js';
import type { SqlStatementInfo } from '../sql/types.js';
import { sameColumn } from './fence-judgement.js';
import type { KnexWrite } from './knex-writes.js';
import type { ObjectWrite } from './object-writes.js';

/** `SET n = n - $1, m = m + 1`: every assignment of an UPDATE or upsert steps its own column (or keeps the larger or smaller). */
export function onlyRelativeAssignments(statement: SqlStatementInfo): boolean {
  if (statement.kind !== 'update' && !(statement.kind === 'insert' && statement.upsert)) return false;
  if (statement.assignments.length === 0 || !statement.assignments.some((a) => a.relative)) return false;
  return statement.assignments.every((a) => a.relative || (/^\s*(?:greatest|least)\s*\(/i.test(a.value.text) && a.value.columns.some((c) => sameColumn(c, a.column))));
}

/** An object-API update (or each update of a `bulkWrite`) made only of the library's relative changes. */
export function onlyRelativeObjectWrite(write: ObjectWrite): boolean {
  if (write.operations) return write.operations.every((o) => onlyRelativeObjectWrite(o));
  const relative = write.model.relative;
  if (!relative || (write.kind !== 'update' && write.kind !== 'upsert') || write.record) return false;
  if (relative.operators) return onlyRelativeOperators(updateDocument(write), relative);
  return onlyRelativeValues(write.values, relative);
}

/** A knex `.update({ n: db.raw('n + ?', [d]) })` whose every value steps its own column. */
export function onlyRelativeKnexWrite(write: KnexWrite): boolean {
  const relative = write.model.relative;
  return !!relative && write.kind === 'update' && onlyRelativeValues(write.values, relative);
}

/** MongoDB: the whole update document (`{ $inc, $max }`), not only its `$set`. */
function updateDocument(write: ObjectWrite): TSESTree.ObjectExpression | undefined {
  if (write.update) return write.update;
  const place = sinkWrite(write.model, write.method)?.values;
  if (!place || write.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const inline = objectArgument(write.node, place.arg);
  if (inline) return inline;
  const arg = write.node.arguments[place.arg];
  return arg && arg.type === AST_NODE_TYPES.Identifier ? constObjectBefore(arg) : undefined;
}

/** `{ $inc: { credits: -n } }`, also beside `$max`/`$setOnInsert`; never beside `$set`, `$unset`, `$push`, a replacement. */
function onlyRelativeOperators(update: TSESTree.ObjectExpression | undefined, relative: RelativeChanges): boolean {
  if (!update || update.properties.length === 0) return false;
  let steps = false;
  for (const p of update.properties) {
    const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
    if (key === undefined) return false;
    if (relative.operators?.includes(key)) steps = true;
    else if (!relative.besideOperators?.includes(key)) return false;
  }
  return steps;
}

/** Every field of a values literal is a relative change of itself: `{ credits: { decrement: n } }`, `{ n: () => 'n - :d' }`. */
function onlyRelativeValues(values: TSESTree.ObjectExpression | undefined, relative: RelativeChanges): boolean {
  if (!values || values.properties.length === 0) return false;
  return values.properties.every((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return false;
    const key = propertyKeyName(p);
    return key !== undefined && (isRelativeOperation(p.value, relative) || stepsItselfInSql(sqlValueText(p.value, relative), key));
  });
}

/** Prisma `{ decrement: n }`: one operation of the catalog's. */
function isRelativeOperation(value: Node, relative: RelativeChanges): boolean {
  const v = unwrap(value);
  if (v.type !== AST_NODE_TYPES.ObjectExpression || v.properties.length !== 1 || !relative.operations) return false;
  const only = v.properties[0];
  const key = only.type === AST_NODE_TYPES.Property ? propertyKeyName(only) : undefined;
  return key !== undefined && relative.operations.includes(key);
}

/** The SQL text a value carries: `() => 'n - :d'` (TypeORM), `db.raw('n - ?', [d])`, `sequelize.literal('n - 1')`. */
function sqlValueText(value: Node, relative: RelativeChanges): string | undefined {
  const v = unwrap(value);
  const forms = relative.sqlValues;
  if (!forms) return undefined;
  if (forms.arrow && v.type === AST_NODE_TYPES.ArrowFunctionExpression && v.params.length === 0 && v.body.type !== AST_NODE_TYPES.BlockStatement) return staticString(v.body);
  if (forms.calls && v.type === AST_NODE_TYPES.CallExpression && forms.calls.includes(calleeName(v) ?? '') && v.arguments[0] && v.arguments[0].type !== AST_NODE_TYPES.SpreadElement) {
    return staticString(v.arguments[0]);
  }
  return undefined;
}

/**
 * Whether SQL text assigned to `field` steps the field's own column, read by PostgreSQL's parser as
 * the value of a SET item; the libraries' placeholders (`:name`, `?`) read as parameters. The
 * property may name the column in camel case (`creditBalance` for `credit_balance - :n`).
 */
function stepsItselfInSql(text: string | undefined, field: string): boolean {
  if (text === undefined || text.length > 500) return false;
  const expression = text.replace(/(?<![:\w]):\.{0,3}[A-Za-z_]\w*|\?/g, () => '$1');
  const assigned = (column: string) => analyzeSql(`UPDATE t SET "${column}" = ${expression}`)?.statements[0]?.assignments[0];
  if (!/^\w+$/.test(field)) return false;
  const first = assigned(field.toLowerCase());
  if (first?.relative) return true;
  // Named differently in the SQL than in the code: step the column the text reads, when it is the field's.
  const read = first?.value.columns.length === 1 ? first.value.columns[0] : undefined;
  return read !== undefined && /^\w+$/.test(read) && sameColumn(read, field) && assigned(read)?.relative === true;
}
