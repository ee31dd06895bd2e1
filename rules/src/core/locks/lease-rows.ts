/**
 * Lease rows taken through a query builder or a document API rather than SQL text: a knex
 * `db('job_leases').where(...).update({ owner: me, ... })` (or `insert(...).onConflict().merge()`),
 * a MongoDB `locks.updateOne(filter, { $set: { owner: me, expiresAt } }, { upsert: true })`. Like
 * `UPDATE job_leases SET owner = ...` in SQL, writing a holder into a lock table takes the lock.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
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

/** The lock table whose row this call takes by writing its holder, if it does. */
export function leaseRowTaken(call: TSESTree.CallExpression, receivers: ReceiverTable): string | undefined {
  const method = calleeName(call) ?? '';
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
