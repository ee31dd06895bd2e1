/**
 * Updates that only step values relative to what is stored, as a counter is changed: MongoDB
 * `{ $inc: { credits: -n } }`, Prisma `{ credits: { decrement: n } }`, SQL `SET points = points - $1`,
 * TypeORM `.set({ points: () => 'points - :n' })`, knex `{ points: db.raw('points - ?', [n]) }`,
 * Drizzle `{ points: sql\`${users.points} - ${n}\` }`, Kysely `{ points: (eb) => eb('points', '-', n) }`,
 * DynamoDB `UpdateExpression: 'ADD points :n'` (or `SET points = points - :n`).
 * Applied late, such an update is applied once and overwrites no value a newer holder wrote, so it
 * is no late write. Every assignment must be one: beside an absolute one (`$set`, `status = 'x'`)
 * the update overwrites. The library forms are the catalog's (`RelativeChanges` in `models/sinks.ts`).
 *
 * This says nothing about a fence: a write whose condition compares a token is judged as one
 * (`version = $3 ... SET version = version + 1` is a compare-and-set); only a write that compares
 * none is left out (see `readWriteAt` in `file-analysis.ts`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, constObjectBefore, objectArgument, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
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
  if (relative.updateExpression) {
    const expression = propertyValue(write.filter, relative.updateExpression);
    return write.kind === 'update' && !!expression && onlyRelativeUpdateExpression(staticString(expression));
  }
  const callback = write.values ? undefined : setCallback(write);
  return onlyRelativeValues(write.values ?? callback?.values, relative, { table: updatedTable(write), builder: callback?.builder });
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

const EXPRESSION_CLAUSE = /\b(SET|ADD|REMOVE|DELETE)\b/gi;

/** Actions of one clause, split at the commas outside parentheses (`if_not_exists(n, :z) + :d` stays one). */
function expressionActions(clause: string): string[] {
  const actions: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < clause.length; i++) {
    const ch = clause[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      actions.push(clause.slice(start, i).trim());
      start = i + 1;
    }
  }
  actions.push(clause.slice(start).trim());
  return actions.filter((a) => a.length > 0);
}

/** `n = n + :d`, `n = :d + n`, `n = if_not_exists(n, :z) - :d`: the attribute set from itself plus or minus a value. */
function stepsItselfInExpression(action: string): boolean {
  const m = /^([#\w.]+)\s*=\s*(.+)$/.exec(action);
  if (!m) return false;
  const [, path, value] = m;
  const own = path.replace(/[.#]/g, '\\$&');
  const self = `(?:${own}|if_not_exists\\s*\\(\\s*${own}\\s*,\\s*:\\w+\\s*\\))`;
  return new RegExp(`^${self}\\s*[-+]\\s*:\\w+$|^:\\w+\\s*\\+\\s*${self}$`).test(value.trim());
}

/** A DynamoDB update expression made only of steps: every `ADD` action, and `SET` actions that step their own attribute. */
function onlyRelativeUpdateExpression(text: string | undefined): boolean {
  if (!text) return false;
  const marks = [...text.matchAll(EXPRESSION_CLAUSE)];
  if (marks.length === 0 || text.slice(0, marks[0].index).trim() !== '') return false;
  return marks.every((mark, i) => {
    const clause = text.slice(mark.index! + mark[0].length, marks[i + 1]?.index ?? text.length);
    const actions = expressionActions(clause);
    const verb = mark[1].toUpperCase();
    if (actions.length === 0) return false;
    if (verb === 'ADD') return true;
    return verb === 'SET' && actions.every(stepsItselfInExpression);
  });
}

/** What a value's SQL may name besides parameters: the updated table's variable (Drizzle), the set callback's builder (Kysely). */
interface ValueScope {
  table?: string;
  builder?: string;
}

/** Every field of a values literal is a relative change of itself: `{ credits: { decrement: n } }`, `{ n: () => 'n - :d' }`. */
function onlyRelativeValues(values: TSESTree.ObjectExpression | undefined, relative: RelativeChanges, scope: ValueScope = {}): boolean {
  if (!values || values.properties.length === 0) return false;
  return values.properties.every((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return false;
    const key = propertyKeyName(p);
    return key !== undefined && (isRelativeOperation(p.value, relative) || stepsItselfInSql(sqlValueText(p.value, relative, scope), key));
  });
}

/** Drizzle `db.update(users)`: the variable the updated table is read from, whose columns a `sql` value may name. */
function updatedTable(write: ObjectWrite): string | undefined {
  const root = write.links[write.links.length - 1];
  const table = root && calleeName(root) === 'update' && root.arguments.length === 1 ? unwrap(root.arguments[0] as Node) : undefined;
  return table?.type === AST_NODE_TYPES.Identifier ? table.name : undefined;
}

/** Kysely `.set((eb) => ({ n: eb('n', '+', 1) }))`: the object the callback returns, and the builder's name. */
function setCallback(write: ObjectWrite): { values: TSESTree.ObjectExpression; builder?: string } | undefined {
  const link = write.links.find((l) => calleeName(l) === 'set');
  const fn = link?.arguments[0] ? unwrap(link.arguments[0] as Node) : undefined;
  if (fn?.type !== AST_NODE_TYPES.ArrowFunctionExpression || fn.body.type === AST_NODE_TYPES.BlockStatement) return undefined;
  const body = unwrap(fn.body);
  if (body.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
  const param = fn.params[0];
  return { values: body, builder: param?.type === AST_NODE_TYPES.Identifier ? param.name : undefined };
}

/** Prisma `{ decrement: n }`: one operation of the catalog's. */
function isRelativeOperation(value: Node, relative: RelativeChanges): boolean {
  const v = unwrap(value);
  if (v.type !== AST_NODE_TYPES.ObjectExpression || v.properties.length !== 1 || !relative.operations) return false;
  const only = v.properties[0];
  const key = only.type === AST_NODE_TYPES.Property ? propertyKeyName(only) : undefined;
  return key !== undefined && relative.operations.includes(key);
}

/**
 * The SQL text a value carries: `() => 'n - :d'` (TypeORM), `db.raw('n - ?', [d])`,
 * `sequelize.literal('n - 1')`, `sql\`n - ${d}\`` (Drizzle, Kysely), Kysely `(eb) => eb('n', '-', d)`.
 */
function sqlValueText(value: Node, relative: RelativeChanges, scope: ValueScope): string | undefined {
  const v = unwrap(value);
  const forms = relative.sqlValues;
  if (!forms) return undefined;
  if (v.type === AST_NODE_TYPES.ArrowFunctionExpression && v.body.type !== AST_NODE_TYPES.BlockStatement) {
    if (forms.arrow && v.params.length === 0) return sqlText(v.body);
    const param = v.params.length === 1 && v.params[0].type === AST_NODE_TYPES.Identifier ? v.params[0].name : undefined;
    if (forms.builder && param) return builderText(unwrap(v.body), param);
  }
  if (forms.calls && v.type === AST_NODE_TYPES.CallExpression && forms.calls.includes(calleeName(v) ?? '') && v.arguments[0] && v.arguments[0].type !== AST_NODE_TYPES.SpreadElement) {
    return sqlText(v.arguments[0], v.arguments[1]);
  }
  if (forms.tags && v.type === AST_NODE_TYPES.TaggedTemplateExpression && forms.tags.includes(tagName(v) ?? '')) {
    return templateText(v.quasi, (e) => columnOfTable(e, scope.table) ?? referencedColumn(e, forms.tags!));
  }
  if (forms.builder && scope.builder && v.type === AST_NODE_TYPES.CallExpression) return builderText(v, scope.builder);
  return undefined;
}

/**
 * Static SQL text, or a template whose interpolations are spliced values (`point - ${change}`):
 * each reads as a parameter, as in SQL text elsewhere, so only a column named in the text itself
 * can make the value a step. knex's `??` names the identifier given at its place in the bindings.
 */
function sqlText(node: Node, bindings?: Node): string | undefined {
  const n = unwrap(node);
  const text = n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length > 0 ? templateText(n, () => undefined) : staticString(n);
  if (text === undefined || !text.includes('??')) return text;
  const list = bindings && unwrap(bindings).type === AST_NODE_TYPES.ArrayExpression ? (unwrap(bindings) as TSESTree.ArrayExpression).elements : [];
  let index = 0;
  let unknown = false;
  const out = text.replace(/\?\?|\?/g, (mark) => {
    const binding = list[index++];
    if (mark === '?') return mark;
    const name = binding && binding.type !== AST_NODE_TYPES.SpreadElement ? staticString(binding) : undefined;
    if (name === undefined || !/^\w+(?:\.\w+)?$/.test(name)) unknown = true;
    return (name ?? '').split('.').map((part) => `"${part}"`).join('.');
  });
  return unknown ? undefined : out;
}

/** A template's text, each interpolation a parameter unless `name` says it is a column. */
function templateText(template: TSESTree.TemplateLiteral, name: (e: Node) => string | undefined): string | undefined {
  let text = '';
  for (const [i, q] of template.quasis.entries()) {
    if (q.value.cooked === null || q.value.cooked === undefined) return undefined;
    text += q.value.cooked;
    const e = template.expressions[i];
    if (e) {
      const column = name(e);
      text += column === undefined ? '?' : `"${column}"`;
    }
  }
  return text;
}

/** `${users.points}` in a Drizzle `sql` value of `db.update(users)`: that column. */
function columnOfTable(e: Node, table: string | undefined): string | undefined {
  const n = unwrap(e);
  if (!table || n.type !== AST_NODE_TYPES.MemberExpression || n.computed || n.property.type !== AST_NODE_TYPES.Identifier) return undefined;
  const object = unwrap(n.object);
  return object.type === AST_NODE_TYPES.Identifier && object.name === table ? n.property.name : undefined;
}

/** `${sql.ref('points')}` (Kysely): the column it names. */
function referencedColumn(e: Node, tags: readonly string[]): string | undefined {
  const n = unwrap(e);
  if (n.type !== AST_NODE_TYPES.CallExpression || calleeName(n) !== 'ref' || n.arguments.length !== 1) return undefined;
  const object = calleeObject(n);
  const owner = object ? unwrap(object) : undefined;
  if (owner?.type !== AST_NODE_TYPES.Identifier || !tags.includes(owner.name)) return undefined;
  const name = staticString(n.arguments[0] as Node);
  return name !== undefined && /^\w+$/.test(name) ? name : undefined;
}

/** Kysely `eb('points', '-', n)` of the builder `eb`: the binary expression as SQL. */
function builderText(call: Node, builder: string): string | undefined {
  if (call.type !== AST_NODE_TYPES.CallExpression || call.arguments.length !== 3) return undefined;
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.Identifier || callee.name !== builder) return undefined;
  const [left, op] = call.arguments.map((a) => (a.type === AST_NODE_TYPES.SpreadElement ? undefined : staticString(a)));
  if (left === undefined || !/^\w+$/.test(left) || op === undefined || !/^[-+]$/.test(op)) return undefined;
  return `"${left}" ${op} ?`;
}

/** `sql` of `sql\`...\``. */
function tagName(node: TSESTree.TaggedTemplateExpression): string | undefined {
  const tag = unwrap(node.tag);
  return tag.type === AST_NODE_TYPES.Identifier ? tag.name : undefined;
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
