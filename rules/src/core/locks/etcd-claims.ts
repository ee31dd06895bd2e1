/**
 * A lock taken by hand in etcd: a transaction that puts a key only while it does not exist yet,
 * under a lease, `client.if(key, 'Create', '==', 0).then(client.put(key).value(me).lease(id)).commit()`
 * (also `lease.put(key)` in the `then`, or a `Version`/`CreateRevision` compared with 0). Like
 * Redis `SET NX PX`, the key is taken when the transaction succeeds and given up when the lease
 * expires, so the code that goes on after `claim.succeeded` runs under an expiring lease. A put
 * without a lease never expires: that marks something once and takes no lock.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, staticString, unwrap, type Node } from '../ast.js';
import type { ReceiverTable } from '../modules/receivers.js';

/** Compare targets that are 0 only while the key has never been put. */
const ABSENT_TARGET = /^(?:create|createrevision|create_revision|version)$/i;

/** The links of a builder chain, outermost first: `a.if(...).then(...).commit()` gives commit, then, if. */
function chainOf(call: TSESTree.CallExpression): TSESTree.CallExpression[] {
  const links: TSESTree.CallExpression[] = [];
  let current: Node | undefined = call;
  for (let i = 0; i < 12 && current; i++) {
    const n: Node = unwrap(current);
    if (n.type !== AST_NODE_TYPES.CallExpression) break;
    links.push(n);
    current = calleeObject(n);
  }
  return links;
}

/** `put(key)` somewhere in an operation chain that also carries `.lease(id)`, or is made on a lease (`lease.put(key)`). */
function leasedPutKey(op: Node, keyText: string, text: (n: Node) => string): boolean {
  const links = chainOf(unwrap(op) as TSESTree.CallExpression);
  const put = links.find((l) => calleeName(l) === 'put' && l.arguments[0] !== undefined && text(l.arguments[0]) === keyText);
  if (!put) return false;
  if (links.some((l) => calleeName(l) === 'lease' && l.arguments.length === 1)) return true;
  const receiver = calleeObject(put);
  const r = receiver && unwrap(receiver);
  return !!r && ((r.type === AST_NODE_TYPES.CallExpression && calleeName(r) === 'lease') || (r.type === AST_NODE_TYPES.Identifier && /lease/i.test(r.name)));
}

/** The key a `commit()` of an etcd transaction claims under a lease, if it claims one. */
export function etcdClaimKey(call: TSESTree.CallExpression, receivers: ReceiverTable, text: (n: Node) => string): Node | undefined {
  if (calleeName(call) !== 'commit' || call.arguments.length > 0) return undefined;
  const links = chainOf(call);
  const root = links[links.length - 1];
  const guard = root && calleeName(root) === 'if' ? root : undefined;
  const client = guard && calleeObject(guard);
  if (!guard || !client) return undefined;
  const kind = receivers.kindOf(client);
  if (kind?.type !== 'authority' || kind.model.id !== 'etcd3') return undefined;
  const [key, target, op, value] = guard.arguments;
  if (!key || key.type === AST_NODE_TYPES.SpreadElement || !target || !op || !value) return undefined;
  if (!ABSENT_TARGET.test(staticString(target) ?? '') || staticString(op) !== '==' || unwrap(value).type !== AST_NODE_TYPES.Literal || (unwrap(value) as TSESTree.Literal).value !== 0) return undefined;
  const keyText = text(key);
  const then = links.find((l) => calleeName(l) === 'then');
  const claimed = then?.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && unwrap(a).type === AST_NODE_TYPES.CallExpression && leasedPutKey(a, keyText, text));
  return claimed ? key : undefined;
}
