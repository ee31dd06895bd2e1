/**
 * State transitions guarded by the state they leave: a write that moves a status field to a
 * constant only while the field still holds one of the constants it moves from
 * (`{ where: { id, status: { in: ['init', 'waiting'] } }, data: { status: 'executing' } }`,
 * `SET is_active = false WHERE ... AND is_active = true`). A newer holder that moved the row on left
 * it in a state the late write does not match, so the late write changes nothing: the filter
 * compares and sets in one write, as a set-once claim does. A filter that only excludes states
 * (`notIn`, `not`, `<>`), a target the filter still admits, or a value that is not a constant is
 * no such transition.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { propertyKeyName, unwrap, type Node } from '../ast.js';
import type { SqlComparison, SqlStatementInfo } from '../sql/types.js';
import { bareColumn, sameColumn } from './fence-judgement.js';

/** A state as written; `null` is the state of a record never moved (`{ state: null }`). */
type Constant = string | number | boolean | null;

function constantOf(node: Node | null | undefined): Constant | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal && (typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean' || n.value === null)) return n.value as Constant;
  if (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0) return n.quasis[0]?.value.cooked ?? undefined;
  // An enum member (`DigestStatus.PENDING`, `Status.Done`): a constant named by its path.
  if (n.type === AST_NODE_TYPES.MemberExpression && !n.computed && n.property.type === AST_NODE_TYPES.Identifier && unwrap(n.object).type === AST_NODE_TYPES.Identifier) {
    const object = unwrap(n.object) as TSESTree.Identifier;
    if (/^[A-Z]/.test(object.name) && /^[A-Z][A-Za-z0-9_]*$/.test(n.property.name)) return `${object.name}.${n.property.name}`;
  }
  return undefined;
}

/** The constants a filter value admits: a constant, `{ in: [...] }`, `{ $in: [...] }`, `{ equals: c }`, `{ $eq: c }`. */
function admitted(node: Node): Constant[] | undefined {
  const single = constantOf(node);
  if (single !== undefined) return [single];
  const n = unwrap(node);
  if (n.type !== AST_NODE_TYPES.ObjectExpression || n.properties.length !== 1) return undefined;
  const p = n.properties[0];
  if (p.type !== AST_NODE_TYPES.Property) return undefined;
  const key = propertyKeyName(p);
  if (key === 'equals' || key === '$eq') {
    const c = constantOf(p.value as Node);
    return c === undefined ? undefined : [c];
  }
  if (key !== 'in' && key !== '$in') return undefined;
  const list = unwrap(p.value as Node);
  if (list.type !== AST_NODE_TYPES.ArrayExpression || list.elements.length === 0) return undefined;
  const out: Constant[] = [];
  for (const e of list.elements) {
    const c = e && e.type !== AST_NODE_TYPES.SpreadElement ? constantOf(e) : undefined;
    if (c === undefined) return undefined;
    out.push(c);
  }
  return out;
}

/** The constant the values store in `field`: directly or in MongoDB's `$set`. */
function storedConstant(values: TSESTree.ObjectExpression, field: string): Constant | undefined {
  for (const p of values.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p) ?? '';
    const value = unwrap(p.value as Node);
    if (key === '$set' && value.type === AST_NODE_TYPES.ObjectExpression) {
      const inner = storedConstant(value, field);
      if (inner !== undefined) return inner;
      continue;
    }
    if (sameColumn(key, field)) return constantOf(value);
  }
  return undefined;
}

/** Object APIs: the field a write moves from the constants its filter admits to another constant; undefined when there is none. */
export function transitionObjectClaim(filter: TSESTree.ObjectExpression | undefined, values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!filter || !values) return undefined;
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    const either = key === '$or' || key === 'OR' ? admittedByBranches(p.value as Node) : undefined;
    const field = either?.field ?? key;
    if (!field || field.startsWith('$') || field === 'OR' || field === 'AND' || field === 'NOT') continue;
    const from = either?.from ?? admitted(p.value as Node);
    if (!from) continue;
    const to = storedConstant(values, field);
    if (to !== undefined && !from.includes(to)) return field;
  }
  return undefined;
}

/**
 * `$or: [{ state: null }, { state: 'FAILED' }]` (Prisma `OR`): every branch tests the same one
 * field against constants, so the filter admits their union, as `$in` would.
 */
function admittedByBranches(node: Node): { field: string; from: Constant[] } | undefined {
  const list = unwrap(node);
  if (list.type !== AST_NODE_TYPES.ArrayExpression || list.elements.length === 0) return undefined;
  let field: string | undefined;
  const from: Constant[] = [];
  for (const e of list.elements) {
    const branch = e && e.type !== AST_NODE_TYPES.SpreadElement ? unwrap(e) : undefined;
    if (branch?.type !== AST_NODE_TYPES.ObjectExpression || branch.properties.length !== 1) return undefined;
    const p = branch.properties[0];
    if (p.type !== AST_NODE_TYPES.Property) return undefined;
    const key = propertyKeyName(p);
    if (!key || key.startsWith('$') || (field !== undefined && key !== field)) return undefined;
    field = key;
    const admits = admitted(p.value as Node);
    if (!admits) return undefined;
    from.push(...admits);
  }
  return field === undefined ? undefined : { field, from };
}

/**
 * Builder chains: the field a write moves from the constants its `where` holds it to (Drizzle
 * `and(eq(t.id, id), eq(t.status, 'DUE'))`, `inArray(t.status, ['DUE', 'LATE'])`; Kysely
 * `where('status', '=', 'DUE')`, `where('status', 'in', [...])`) to another constant it stores.
 */
export function transitionChainClaim(filters: ReadonlyArray<{ field: string; value: Node }>, values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!values) return undefined;
  for (const { field, value } of filters) {
    const v = unwrap(value);
    let from: Constant[] | undefined;
    if (v.type === AST_NODE_TYPES.ArrayExpression) {
      const list = v.elements.map((e) => (e && e.type !== AST_NODE_TYPES.SpreadElement ? constantOf(e) : undefined));
      from = list.length > 0 && list.every((c) => c !== undefined) ? (list as Constant[]) : undefined;
    } else {
      const c = constantOf(v);
      from = c === undefined ? undefined : [c];
    }
    if (!from) continue;
    const to = storedConstant(values, field);
    if (to !== undefined && !from.includes(to)) return field;
  }
  return undefined;
}

/** The constant a filter value excludes: `{ $ne: c }`, `{ not: c }` (Prisma), `{ not: { equals: c } }`. */
function excluded(node: Node): Constant | null | undefined {
  const n = unwrap(node);
  if (n.type !== AST_NODE_TYPES.ObjectExpression || n.properties.length !== 1) return undefined;
  const p = n.properties[0];
  if (p.type !== AST_NODE_TYPES.Property) return undefined;
  const key = propertyKeyName(p);
  if (key !== '$ne' && key !== 'not') return undefined;
  const v = unwrap(p.value as Node);
  if (v.type === AST_NODE_TYPES.Literal && v.value === null) return null;
  if (key === 'not' && v.type === AST_NODE_TYPES.ObjectExpression) {
    const inner = v.properties.length === 1 && v.properties[0].type === AST_NODE_TYPES.Property && propertyKeyName(v.properties[0]) === 'equals' ? unwrap(v.properties[0].value as Node) : undefined;
    if (inner?.type === AST_NODE_TYPES.Literal && inner.value === null) return null;
    return inner ? constantOf(inner) : undefined;
  }
  return constantOf(v);
}

/** Every field the values store, with its value: plain keys and MongoDB's `$set`; undefined when any other operator is used. */
function storedFields(values: TSESTree.ObjectExpression): Array<[string, Node]> | undefined {
  const out: Array<[string, Node]> = [];
  for (const p of values.properties) {
    if (p.type !== AST_NODE_TYPES.Property) return undefined;
    const key = propertyKeyName(p);
    if (key === undefined) return undefined;
    const value = unwrap(p.value as Node);
    if (key === '$set' && value.type === AST_NODE_TYPES.ObjectExpression) {
      const inner = storedFields(value);
      if (!inner) return undefined;
      out.push(...inner);
    } else if (key.startsWith('$')) return undefined;
    else out.push([key, value]);
  }
  return out;
}

/**
 * Idempotent literal markers: a write that stores only constants (a flag raised, a field cleared
 * to null), filtered on one of those fields not holding the constant it stores (`{ dismissed: {
 * $ne: true } }` with `$set: { dismissed: true }`, `{ event: { $ne: null } }` with `$set: { event:
 * null }`). Every holder stores the same constants, only where they are not there yet: a late one
 * brings no older data with it. Data stored beside the marker, or an excluded constant other than
 * the one stored, is no such marker.
 */
export function literalMarkerObjectClaim(filter: TSESTree.ObjectExpression | undefined, values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!filter || !values) return undefined;
  const stored = storedFields(values);
  if (!stored || stored.length === 0) return undefined;
  const constants = new Map<string, Constant | null>();
  for (const [field, value] of stored) {
    const v = unwrap(value);
    const c = v.type === AST_NODE_TYPES.Literal && v.value === null ? null : constantOf(v);
    if (c === undefined) return undefined;
    constants.set(field, c);
  }
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const field = propertyKeyName(p);
    if (!field || !constants.has(field)) continue;
    const not = excluded(p.value as Node);
    if (not !== undefined && not === constants.get(field)) return field;
  }
  return undefined;
}

/** SQL constants in a value's text: `'pending'`, `true`, `3`, or a parenthesized list of them. */
function sqlConstants(text: string): string[] | undefined {
  const inner = text.trim().replace(/^\((.*)\)$/s, '$1');
  const parts = inner.split(',').map((s) => s.trim().toLowerCase());
  return parts.length > 0 && parts.every((s) => /^(?:'(?:[^']|'')*'|true|false|-?\d+(?:\.\d+)?)$/.test(s)) ? parts : undefined;
}

/** SQL: `col = <constant>` or `col IN (<constants>)` on the updated table, where the same statement sets `col` to another constant. */
export function isTransitionSqlClaim(c: SqlComparison, statement: SqlStatementInfo): boolean {
  if ((c.op !== '=' && c.op !== 'IN') || statement.kind !== 'update') return false;
  if (c.value.params.length > 0 || c.value.columns.length > 0) return false;
  if (c.relation !== undefined && statement.table !== undefined && c.relation !== statement.table) return false;
  const from = sqlConstants(c.value.text);
  if (!from) return false;
  const column = bareColumn(c.column);
  return statement.assignments.some((a) => {
    if (!sameColumn(a.column, column) || a.value.params.length > 0 || a.value.columns.length > 0) return false;
    const to = sqlConstants(a.value.text);
    return to?.length === 1 && !from.includes(to[0]);
  });
}
