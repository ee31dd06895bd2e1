/**
 * Set-once claims: a write that goes through only while the field it fills is still empty
 * (`WHERE partner_id IS NULL ... SET partner_id = $1`, `{ _id, partnerId: null }` with
 * `$set: { partnerId }`). The first writer fills the field and every later one matches nothing,
 * so a late holder cannot overwrite what a newer holder stored: the condition compares and sets
 * in one write, as a fence does. A field that the write empties, or a condition on another field,
 * is no such claim.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, mayBeEmpty, memberName, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
import type { SqlComparison, SqlStatementInfo } from '../sql/types.js';
import { bareColumn, sameColumn } from './fence-judgement.js';

/** SQL: `col IS NULL` on the updated table, where the same statement sets `col` to something. */
export function isSetOnceSqlClaim(c: SqlComparison, statement: SqlStatementInfo): boolean {
  if (c.op !== 'IS NULL' || statement.kind !== 'update') return false;
  if (c.relation !== undefined && statement.table !== undefined && c.relation !== statement.table) return false;
  const column = bareColumn(c.column);
  return statement.assignments.some((a) => sameColumn(a.column, column) && !/^\s*null\s*$/i.test(a.value.text));
}


/**
 * A filter value that matches only an empty field: `null`, MongoDB `{ $exists: false }` or
 * `{ $eq: null }`, Prisma `{ equals: null }`, Sequelize `{ [Op.is]: null }`, TypeORM `IsNull()`.
 */
function matchesOnlyEmpty(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return n.value === null;
  if (n.type === AST_NODE_TYPES.CallExpression) return calleeName(n) === 'IsNull' && n.arguments.length === 0;
  if (n.type !== AST_NODE_TYPES.ObjectExpression || n.properties.length !== 1) return false;
  const p = n.properties[0];
  if (p.type !== AST_NODE_TYPES.Property) return false;
  const key = p.computed && p.key.type === AST_NODE_TYPES.MemberExpression ? memberName(p.key) : propertyKeyName(p);
  const value = unwrap(p.value);
  if (key === '$exists') return value.type === AST_NODE_TYPES.Literal && value.value === false;
  return (key === '$eq' || key === 'equals' || key === 'is') && value.type === AST_NODE_TYPES.Literal && value.value === null;
}

/** The fields a filter requires empty: direct keys, and an `$or`/`OR` whose every branch tests the same field empty. */
function emptyFields(filter: TSESTree.ObjectExpression): string[] {
  const fields: string[] = [];
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    if (key === undefined) continue;
    if (key === '$or' || key === 'OR') {
      const list = unwrap(p.value);
      if (list.type !== AST_NODE_TYPES.ArrayExpression || list.elements.length === 0) continue;
      const branches = list.elements.map((e) => (e && unwrap(e).type === AST_NODE_TYPES.ObjectExpression ? emptyFields(unwrap(e) as TSESTree.ObjectExpression) : []));
      const first = branches[0][0];
      if (first !== undefined && branches.every((b) => b.length === 1 && b[0] === first)) fields.push(first);
      continue;
    }
    if (matchesOnlyEmpty(p.value)) fields.push(key);
  }
  return fields;
}

/** Object APIs: the field the filter requires empty and the values fill; undefined when there is none. */
export function setOnceObjectClaim(filter: TSESTree.ObjectExpression | undefined, values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!filter || !values) return undefined;
  for (const field of emptyFields(filter)) {
    const stored = propertyValue(values, field) ?? values.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', field))?.value;
    if (stored && !mayBeEmpty(stored)) return field;
  }
  return undefined;
}

/** Builder chains: of the fields the `where` requires empty, one the values fill; undefined when there is none. */
export function setOnceChainClaim(emptyFields: readonly string[], values: TSESTree.ObjectExpression | undefined): string | undefined {
  if (!values) return undefined;
  for (const field of emptyFields) {
    const stored = values.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', field))?.value;
    if (stored && !mayBeEmpty(stored)) return field;
  }
  return undefined;
}

/**
 * DynamoDB: a condition that lets the write through only while an attribute it stores is absent
 * (`ConditionExpression: 'attribute_not_exists(eventId)'`, alone or joined by `AND`): a put that
 * creates the item once, or an update that fills the attribute once. The attribute must be in the
 * put's `Item` (or set by the update's `SET`), so the first write makes every later one fail.
 */
export function dynamoSetOnceClaim(input: TSESTree.ObjectExpression | undefined, kind: string): string | undefined {
  const condition = text(propertyValue(input, 'ConditionExpression'));
  if (!condition || /\b(?:OR|NOT)\b/i.test(condition)) return undefined;
  const names = propertyValue(input, 'ExpressionAttributeNames');
  const namesObject = names && unwrap(names).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(names) as TSESTree.ObjectExpression) : undefined;
  const item = propertyValue(input, 'Item');
  const itemObject = item && unwrap(item).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(item) as TSESTree.ObjectExpression) : undefined;
  const update = text(propertyValue(input, 'UpdateExpression'));
  for (const m of condition.matchAll(/\battribute_not_exists\s*\(\s*([#\w]+)\s*\)/gi)) {
    const raw = m[1];
    const attr = raw.startsWith('#') ? text(propertyValue(namesObject, raw)) : raw;
    if (!attr) continue;
    if (kind === 'replace' && itemObject?.properties.some((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === attr && !mayBeEmpty(p.value as Node))) return attr;
    if (kind === 'update' && update && new RegExp(`\\bSET\\b[^]*?(?:^|[\\s,])${raw.replace('#', '\\#')}\\s*=`, 'i').test(update)) return attr;
  }
  return undefined;
}

function text(node: Node | undefined): string | undefined {
  return node ? staticString(node) : undefined;
}
