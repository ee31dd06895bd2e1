/**
 * A write made in one transaction with an insert that claims a unique key: Prisma
 * `$transaction([db.posting.create({ data: { accountId, month } }), db.account.update(...)])`, or the
 * two awaited as steps of a `$transaction(async (tx) => ...)` callback. When a row with that key
 * already exists the insert fails and the transaction takes the write back with it, so of two
 * holders doing the same work only the first commits and a late one changes nothing.
 *
 * The key is known to be unique because the same function reads that model with `findUnique` by
 * those fields and values: Prisma accepts only unique keys there (a compound one is named for its
 * fields, `accountId_month: { accountId, month }`). An insert with no such read, by other values,
 * made outside the write's transaction, or whose failure the callback catches, claims nothing.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, propertyKeyName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { TRANSACTION_CALLBACK_METHOD, UNIQUE_READ_METHOD } from '../models/sinks.js';
import { sameValueExpression } from './fence-judgement.js';
import type { ObjectWrite } from './object-writes.js';
import { inTransaction, transactionCallback } from './rechecked-writes.js';

/** The model a Prisma call names (`db.posting.create` gives `posting`). */
function modelOf(call: TSESTree.CallExpression): string | undefined {
  const object = calleeObject(call);
  const o = object && unwrap(object);
  if (o?.type !== AST_NODE_TYPES.MemberExpression || o.computed || o.property.type !== AST_NODE_TYPES.Identifier) return undefined;
  return o.property.name;
}

/** An object literal property of a call's first argument (`{ where: {...} }`, `{ data: {...} }`). */
function optionObject(call: TSESTree.CallExpression, name: string): TSESTree.ObjectExpression | undefined {
  const first = call.arguments[0] && unwrap(call.arguments[0] as Node);
  if (first?.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
  const prop = first.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name);
  const value = prop && unwrap(prop.value as Node);
  return value?.type === AST_NODE_TYPES.ObjectExpression ? value : undefined;
}

/** Field -> value of plain keyed properties; undefined when any property is not one. */
function plainFields(o: TSESTree.ObjectExpression): Map<string, Node> | undefined {
  const out = new Map<string, Node>();
  for (const p of o.properties) {
    const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
    if (p.type !== AST_NODE_TYPES.Property || key === undefined) return undefined;
    out.set(key, p.value as Node);
  }
  return out;
}

/**
 * The unique key a `findUnique` filter names, field by field: a compound key's fields
 * (`a_b: { a, b }`), or a plain field compared with a value. Operator objects (`{ not: x }`) add nothing.
 */
function uniqueKeyOf(where: TSESTree.ObjectExpression): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const p of where.properties) {
    const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
    if (p.type !== AST_NODE_TYPES.Property || key === undefined) continue;
    const value = unwrap(p.value as Node);
    if (value.type !== AST_NODE_TYPES.ObjectExpression) {
      out.set(key, value);
      continue;
    }
    const parts = plainFields(value);
    if (parts && parts.size > 1 && [...parts.keys()].join('_') === key) for (const [field, v] of parts) out.set(field, v);
  }
  return out;
}

/** An insert of `model` whose data carries every field of a unique key the function read it by. */
function claimsUniqueKey(create: TSESTree.CallExpression, fn: FunctionNode, calls: readonly TSESTree.CallExpression[]): boolean {
  const model = modelOf(create);
  const data = optionObject(create, 'data');
  const fields = data && plainFields(data);
  if (!model || !fields) return false;
  return calls.some((read) => {
    if (!UNIQUE_READ_METHOD.test(calleeName(read) ?? '') || modelOf(read) !== model || !contains(fn, read)) return false;
    const where = optionObject(read, 'where');
    const key = where ? uniqueKeyOf(where) : new Map<string, Node>();
    return key.size > 0 && [...key].every(([field, value]) => {
      const stored = fields.get(field);
      return !!stored && sameValueExpression(stored, value);
    });
  });
}

/** Whether a node sits in a `try` block inside the callback (its failure may be caught, not rolled back). */
function caughtWithin(node: Node, callback: FunctionNode): boolean {
  for (let p = node.parent; p && p !== callback; p = p.parent) {
    if (p.type === AST_NODE_TYPES.TryStatement && p.handler && contains(p.block, node)) return true;
  }
  return false;
}

/**
 * The calls made in the same transaction as a write (its batch's other entries, or its callback's
 * steps), and the function whose reads can say a key is unique: the one that runs the transaction.
 */
function transactionOf(node: TSESTree.CallExpression, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): { steps: TSESTree.CallExpression[]; scope: FunctionNode } | undefined {
  const batch = node.parent;
  const runner = batch?.parent;
  if (batch?.type === AST_NODE_TYPES.ArrayExpression && runner?.type === AST_NODE_TYPES.CallExpression && runner.arguments[0] === batch && TRANSACTION_CALLBACK_METHOD.test(calleeName(runner) ?? '')) {
    const scope = enclosingFunction(runner);
    return scope && { steps: batch.elements.flatMap((e) => (e && e.type === AST_NODE_TYPES.CallExpression && e !== node ? [e] : [])), scope };
  }
  const callback = transactionCallback(node);
  if (!callback || !inTransaction(node, callback, sourceCode) || caughtWithin(node, callback)) return undefined;
  const steps = calls.filter((c) => c !== node && enclosingFunction(c) === callback && inTransaction(c, callback, sourceCode) && !caughtWithin(c, callback));
  return { steps, scope: enclosingFunction(callback) ?? callback };
}

export function claimedByUniqueInsert(write: ObjectWrite, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): boolean {
  if (write.api !== 'prisma' || write.node.type !== AST_NODE_TYPES.CallExpression) return false;
  const transaction = transactionOf(write.node, calls, sourceCode);
  return !!transaction && transaction.steps.some((step) => calleeName(step) === 'create' && claimsUniqueKey(step, transaction.scope, calls));
}
