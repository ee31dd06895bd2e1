/**
 * Lease rows taken through a query builder or a document API rather than SQL text: a knex
 * `db('job_leases').where(...).update({ owner: me, ... })` (or `insert(...).onConflict().merge()`),
 * a MongoDB `locks.updateOne(filter, { $set: { owner: me, expiresAt } }, { upsert: true })`. Like
 * `UPDATE job_leases SET owner = ...` in SQL, writing a holder into a lock table takes the lock.
 * So does a DynamoDB conditional write of a holder into a lock table's item (`new UpdateCommand({
 * TableName: 'printer_locks', UpdateExpression: 'SET holder = :me, ...', ConditionExpression })`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, constantText, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
import { isLockTable, OWNER_COLUMN_NAME } from '../models/lock-tables.js';
import type { ReceiverTable } from '../modules/receivers.js';

const KNEX_TAKE = /^(?:update|merge)$/;
const DOCUMENT_TAKE = /^(?:updateOne|findOneAndUpdate|findOneAndReplace|replaceOne)$/;
const KNEX_TABLE_METHOD = /^(?:table|from|into)$/;

/** The table of a knex chain (`db('t')`, `db.table('t')`), when its root is a knex client. */
function knexTable(call: TSESTree.CallExpression, receivers: ReceiverTable): { table: string; links: TSESTree.CallExpression[] } | undefined {
  const links: TSESTree.CallExpression[] = [call];
  let current: Node | undefined = calleeObject(call);
  for (let i = 0; i < 30 && current; i++) {
    const n = unwrap(current);
    if (n.type !== AST_NODE_TYPES.CallExpression) return undefined;
    const callee = unwrap(n.callee);
    const first = n.arguments[0] && staticString(n.arguments[0]);
    if (callee.type === AST_NODE_TYPES.Identifier) {
      return first !== undefined && receivers.kindOf(callee)?.type === 'knex' ? { table: first, links } : undefined;
    }
    if (callee.type === AST_NODE_TYPES.MemberExpression && KNEX_TABLE_METHOD.test(calleeName(n) ?? '') && first !== undefined && receivers.kindOf(callee.object)?.type === 'knex') return { table: first, links };
    links.push(n);
    current = calleeObject(n);
  }
  return undefined;
}

/** The collection a MongoDB write goes to: `db.collection('locks').updateOne(...)`, or a client bound to one. */
function collectionOf(call: TSESTree.CallExpression, receivers: ReceiverTable): string | undefined {
  const object = calleeObject(call);
  if (!object) return undefined;
  const o = unwrap(object);
  if (o.type === AST_NODE_TYPES.CallExpression && calleeName(o) === 'collection' && o.arguments[0]) return staticString(o.arguments[0]);
  const kind = receivers.kindOf(o);
  if (kind?.type !== 'client' || kind.model.id !== 'mongodb') return undefined;
  // A collection held in a variable or field is named by it (`const locks = db.collection('locks')`),
  // a Mongoose model by its class-like name (`Lock`, `JobLease`), read as a table name.
  if (o.type === AST_NODE_TYPES.Identifier) return snakeName(o.name);
  if (o.type === AST_NODE_TYPES.MemberExpression) return snakeName(propertyName(o));
  return undefined;
}

/** `JobLease` -> `job_lease`, `locks` -> `locks`: the name as the lock-table patterns read it. */
function snakeName(name: string | undefined): string | undefined {
  return name?.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function propertyName(member: TSESTree.MemberExpression): string | undefined {
  return member.property.type === AST_NODE_TYPES.Identifier && !member.computed ? member.property.name : undefined;
}

/** Whether an object of values writes a holder into the row (not `owner: null`, which frees it). */
function setsHolder(values: Node | undefined): boolean {
  const v = values && unwrap(values);
  if (v?.type !== AST_NODE_TYPES.ObjectExpression) return false;
  const fields = propertyValue(v, '$set');
  const object = fields && unwrap(fields).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(fields) as TSESTree.ObjectExpression) : v;
  return object.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.Property || !OWNER_COLUMN_NAME.test(propertyKeyName(p) ?? '')) return false;
    const value = unwrap(p.value);
    return !(value.type === AST_NODE_TYPES.Literal && value.value === null) && !(value.type === AST_NODE_TYPES.Identifier && value.name === 'undefined');
  });
}

const DYNAMO_CONDITIONAL_WRITE = /^(?:PutCommand|UpdateCommand|PutItemCommand|UpdateItemCommand)$/;
const DYNAMO_CLIENT_WRITE = /^(?:put|update|putItem|updateItem)$/;

/**
 * The input of a DynamoDB write: `send(new UpdateCommand({...}))` (v3), or the DocumentClient's
 * `update({...})` (v2, often with `.promise()`).
 */
function dynamoInput(call: TSESTree.CallExpression): TSESTree.ObjectExpression | undefined {
  const method = calleeName(call) ?? '';
  const first = call.arguments[0] && unwrap(call.arguments[0]);
  if (method === 'send' && first?.type === AST_NODE_TYPES.NewExpression && DYNAMO_CONDITIONAL_WRITE.test(calleeName(first) ?? '')) {
    const input = first.arguments[0] && unwrap(first.arguments[0]);
    return input?.type === AST_NODE_TYPES.ObjectExpression ? input : undefined;
  }
  return DYNAMO_CLIENT_WRITE.test(method) && first?.type === AST_NODE_TYPES.ObjectExpression && propertyValue(first, 'TableName') ? first : undefined;
}

/** The lock table whose item a DynamoDB write claims: conditioned, and writing a holder (in the item or by `SET holder = :v`). */
function dynamoLeaseTaken(call: TSESTree.CallExpression, sourceCode: SourceCode | undefined): string | undefined {
  const input = dynamoInput(call);
  if (!input || !propertyValue(input, 'ConditionExpression')) return undefined;
  const table = constantText(propertyValue(input, 'TableName'), sourceCode);
  if (!isLockTable(table)) return undefined;
  if (setsHolder(propertyValue(input, 'Item'))) return table;
  const update = constantText(propertyValue(input, 'UpdateExpression'), sourceCode);
  const set = update?.match(/\bSET\b([\s\S]*?)(?=\b(?:REMOVE|ADD|DELETE)\b|$)/i)?.[1] ?? '';
  const names = propertyValue(input, 'ExpressionAttributeNames');
  const named = (column: string) => (column.startsWith('#') && names && unwrap(names).type === AST_NODE_TYPES.ObjectExpression ? constantText(propertyValue(unwrap(names) as TSESTree.ObjectExpression, column), sourceCode) : column);
  const holder = set.split(',').some((assignment) => {
    const [column, value] = assignment.split('=').map((part) => part.trim());
    return !!column && !!value && OWNER_COLUMN_NAME.test(named(column) ?? '') && value.startsWith(':');
  });
  return holder ? table : undefined;
}

/** The lock table whose row this call takes by writing its holder, if it does. */
export function leaseRowTaken(call: TSESTree.CallExpression, receivers: ReceiverTable, sourceCode?: SourceCode): string | undefined {
  const method = calleeName(call) ?? '';
  const dynamo = dynamoLeaseTaken(call, sourceCode);
  if (dynamo) return dynamo;
  if (KNEX_TAKE.test(method)) {
    const chain = knexTable(call, receivers);
    if (!chain || !isLockTable(chain.table)) return undefined;
    // `update({ owner })`, or `insert({ owner, ... }).onConflict(...).merge()`.
    const values = method === 'update' ? call.arguments[0] : (call.arguments[0] ?? chain.links.find((l) => calleeName(l) === 'insert')?.arguments[0]);
    return setsHolder(values) ? chain.table : undefined;
  }
  if (DOCUMENT_TAKE.test(method)) {
    const collection = collectionOf(call, receivers);
    return isLockTable(collection) && setsHolder(call.arguments[1]) ? collection : undefined;
  }
  return undefined;
}
