/**
 * A write made in a transaction right after the same transaction read the same records again and
 * left unless they were as expected: `tx.offer.findFirst({ where: { id, open: true } })`,
 * `if (!found) continue;`, `tx.offer.update({ where: { id }, data: { open: false } })`; or a
 * MongoDB `withTransaction` callback that reads the documents, throws unless they still match
 * what was computed from them, and deletes them. Check and write are one transaction's steps (a
 * MongoDB transaction aborts on a write conflict with the documents it writes), and the write
 * either removes exactly what was just checked or moves it to a fixed state every holder writes:
 * a late holder finds the records gone or changed and leaves, or writes what any holder would.
 * A write of values the holder computed (`balance: stale - paid`) is not this, nor a check made
 * outside the transaction.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, propertyKeyName, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { OBJECT_READ_METHOD, TRANSACTION_CALLBACK_METHOD } from '../models/sinks.js';
import { receiverKey } from '../modules/receivers.js';
import type { ObjectWrite } from './object-writes.js';

/** The transaction callback around a node: a function handed to `$transaction` / `withTransaction`. */
export function transactionCallback(node: Node): FunctionNode | undefined {
  for (let fn = enclosingFunction(node); fn; fn = enclosingFunction(fn)) {
    const call = fn.parent;
    if (call?.type === AST_NODE_TYPES.CallExpression && call.arguments.includes(fn as TSESTree.CallExpressionArgument) && TRANSACTION_CALLBACK_METHOD.test(calleeName(call) ?? '')) return fn;
  }
  return undefined;
}

/** The call goes through the transaction: its receiver is the callback's client, or it passes `{ session }`. */
export function inTransaction(call: TSESTree.CallExpression, callback: FunctionNode, sourceCode: SourceCode): boolean {
  const passesSession = call.arguments.some((a) => {
    const o = unwrap(a as Node);
    return o.type === AST_NODE_TYPES.ObjectExpression && o.properties.some((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === 'session');
  });
  if (passesSession) return true;
  let root: Node | undefined = calleeObject(call);
  while (root && root.type === AST_NODE_TYPES.MemberExpression) root = unwrap(root.object);
  if (root?.type !== AST_NODE_TYPES.Identifier) return false;
  const def = ASTUtils.findVariable(sourceCode.getScope(root), root.name)?.defs[0];
  return def?.type === 'Parameter' && def.node === callback;
}

/** A read's filter: its `where` (Prisma), its first argument (MongoDB), an aggregate's first `$match`. */
function readFilter(read: TSESTree.CallExpression): TSESTree.ObjectExpression | undefined {
  const first = read.arguments[0] && unwrap(read.arguments[0] as Node);
  if (first?.type === AST_NODE_TYPES.ArrayExpression) {
    for (const stage of first.elements) {
      const s = stage && unwrap(stage as Node);
      const match = s?.type === AST_NODE_TYPES.ObjectExpression ? s.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === '$match') : undefined;
      if (match) return unwrap(match.value as Node).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(match.value as Node) as TSESTree.ObjectExpression) : undefined;
    }
    return undefined;
  }
  if (first?.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
  const where = first.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === 'where');
  const w = where && unwrap(where.value as Node);
  return where ? (w?.type === AST_NODE_TYPES.ObjectExpression ? w : undefined) : first;
}

/** Field -> the source texts of its values (operator objects opened one level: `{ $in: ids }`). */
function filterValues(filter: TSESTree.ObjectExpression, sourceCode: SourceCode): Map<string, Set<string>> | undefined {
  const out = new Map<string, Set<string>>();
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) return undefined;
    const key = propertyKeyName(p);
    if (key === undefined) return undefined;
    const texts = new Set<string>();
    const v = unwrap(p.value as Node);
    if (v.type === AST_NODE_TYPES.ObjectExpression) {
      for (const q of v.properties) if (q.type === AST_NODE_TYPES.Property) texts.add(sourceCode.getText(unwrap(q.value as Node)));
    } else texts.add(sourceCode.getText(v));
    out.set(key, texts);
  }
  return out;
}

/** Every field the write picks by is one the read filtered on, and they share a value. */
function samePick(write: TSESTree.ObjectExpression, read: TSESTree.ObjectExpression, sourceCode: SourceCode): boolean {
  const w = filterValues(write, sourceCode);
  const r = filterValues(read, sourceCode);
  if (!w || !r || w.size === 0) return false;
  let shared = false;
  for (const [field, texts] of w) {
    const seen = r.get(field);
    if (!seen) return false;
    if ([...texts].some((t) => seen.has(t))) shared = true;
  }
  return shared;
}

/** A delete, or an update whose every value is a literal: the same for every holder. */
function fixedOutcome(write: ObjectWrite): boolean {
  if (write.kind === 'delete') return true;
  if (write.kind !== 'update' || !write.values || write.values.properties.length === 0) return false;
  if (write.api === 'mongodb' && write.values === write.filter) return false;
  return write.values.properties.every((p) => p.type === AST_NODE_TYPES.Property && unwrap(p.value as Node).type === AST_NODE_TYPES.Literal);
}

/** A `throw`, `return`, `continue` or `break` under a condition between the read and the write. */
function leavesBetween(fn: FunctionNode, from: number, to: number, sourceCode: SourceCode): boolean {
  let found = false;
  walk(fn.body, sourceCode.visitorKeys, (node) => {
    if (found || node.range[0] < from || node.range[1] > to) return;
    if (node.type !== AST_NODE_TYPES.ThrowStatement && node.type !== AST_NODE_TYPES.ReturnStatement && node.type !== AST_NODE_TYPES.ContinueStatement && node.type !== AST_NODE_TYPES.BreakStatement) return;
    for (let p: Node | undefined = node.parent; p && p !== fn; p = p.parent) {
      if (p.type === AST_NODE_TYPES.IfStatement) {
        found = true;
        return;
      }
    }
  });
  return found;
}

export function recheckedInTransaction(write: ObjectWrite, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): boolean {
  if ((write.api !== 'prisma' && write.api !== 'mongodb') || write.node.type !== AST_NODE_TYPES.CallExpression || !write.filter || !fixedOutcome(write)) return false;
  const node = write.node;
  const callback = transactionCallback(node);
  const fn = enclosingFunction(node);
  const target = calleeObject(node);
  const targetKey = target && receiverKey(unwrap(target));
  if (!callback || !fn || !targetKey || !inTransaction(node, callback, sourceCode)) return false;
  return calls.some((read) => {
    if (read.range[1] > node.range[0] || enclosingFunction(read) !== fn || !contains(callback, read) || !OBJECT_READ_METHOD.test(calleeName(read) ?? '')) return false;
    const object = calleeObject(read);
    if (!object || receiverKey(unwrap(object)) !== targetKey || !inTransaction(read, callback, sourceCode)) return false;
    const filter = readFilter(read);
    return !!filter && samePick(write.filter!, filter, sourceCode) && leavesBetween(fn, read.range[1], node.range[0], sourceCode);
  });
}
