/**
 * Records a holder has claimed with a compare-and-set it checked: `const r = await
 * db.job.updateMany({ where: { id, status: 'waiting' }, data: { status: 'running' } })`, then
 * `if (r.count === 0) return;`. Past that test only the one holder whose claim matched goes on,
 * so its later writes to the same record (picked by the claim's own key value) are no late
 * writes over a newer holder's: a newer holder's claim matches nothing. A record read by that key
 * (`findFirst({ where: { jobId: job.id } })`) is the claimed record's own. Writes picked by any
 * other value stay writes.
 *
 * This module reads the claim's keys and tests later writes against them; which writes are
 * compare-and-set, and the branch where the claim went through, are the caller's to say.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, constInitializer, propertyKeyName, unwrap, walk, type Node } from '../ast.js';
import { isIdentityName } from '../models/token-names.js';
import { RECORD_READ_METHOD } from '../models/record-reads.js';
import type { SqlStatementInfo } from '../sql/types.js';
import { sameValueExpression } from './fence-judgement.js';
import type { SqlCall } from './sql-writes.js';

/** A key value is a name or a member path (`jobId`, `job.id`), never a literal: a literal names every holder's record. */
function isKeyValue(node: Node): boolean {
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.Identifier || (n.type === AST_NODE_TYPES.MemberExpression && !n.computed);
}

/** Object APIs: the values of the claim filter's identity fields (`{ id: job.id, status: 'waiting' }` gives `job.id`). */
export function objectClaimKeys(filter: TSESTree.ObjectExpression | undefined): Node[] {
  if (!filter) return [];
  const out: Node[] = [];
  for (const p of filter.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const name = propertyKeyName(p);
    if (name && (name === '_id' || isIdentityName(name)) && isKeyValue(p.value as Node)) out.push(p.value as Node);
  }
  return out;
}

/** SQL: the JS values bound to `key = $n` on the claimed table's identity columns. */
export function sqlClaimKeys(statements: readonly SqlStatementInfo[], call: SqlCall): Node[] {
  const out: Node[] = [];
  for (const s of statements) {
    for (const c of s.conditions) {
      if (c.op !== '=' || c.value.params.length !== 1 || c.value.columns.length > 0) continue;
      const column = c.column.split('.').pop() ?? c.column;
      if (!isIdentityName(column) && !isIdentityName(column.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase()))) continue;
      const value = call.param(c.value.params[0]);
      if (value && isKeyValue(value)) out.push(value);
    }
  }
  return out;
}

/**
 * Whether a value picks the claimed record: a claimed key itself, or an identity member of a
 * `const` record read by a filter on a claimed key (`rec.recordId` after `const rec = await
 * db.child.findFirst({ where: { jobId: job.id } })`).
 */
export function picksClaimed(value: Node, keys: readonly Node[], sourceCode: SourceCode): boolean {
  if (keys.length === 0) return false;
  if (keys.some((k) => sameValueExpression(value, k))) return true;
  const v = unwrap(value);
  const root = v.type === AST_NODE_TYPES.MemberExpression ? rootIdentifier(v) : undefined;
  if (!root) return false;
  const init = constInitializer(root, sourceCode);
  const read = init && unwrap(init.type === AST_NODE_TYPES.AwaitExpression ? init.argument : init);
  if (read?.type !== AST_NODE_TYPES.CallExpression || !RECORD_READ_METHOD.test(calleeName(read) ?? '')) return false;
  let found = false;
  for (const arg of read.arguments) {
    walk(arg, sourceCode.visitorKeys, (n) => {
      if (!found && n.type === AST_NODE_TYPES.Property && keys.some((k) => sameValueExpression(n.value as Node, k))) found = true;
    });
  }
  return found;
}

/** Whether any of the filter values picks the claimed record. */
export function filterPicksClaimed(filter: Node | undefined, keys: readonly Node[], sourceCode: SourceCode): boolean {
  if (!filter || keys.length === 0) return false;
  let found = false;
  walk(filter, sourceCode.visitorKeys, (n) => {
    if (!found && n.type === AST_NODE_TYPES.Property && picksClaimed(n.value as Node, keys, sourceCode)) found = true;
  });
  return found;
}

function rootIdentifier(node: TSESTree.MemberExpression): TSESTree.Identifier | undefined {
  let o = unwrap(node.object);
  while (o.type === AST_NODE_TYPES.MemberExpression) o = unwrap(o.object);
  return o.type === AST_NODE_TYPES.Identifier ? o : undefined;
}
