/**
 * Rows a transaction has claimed with `SELECT ... FOR UPDATE [SKIP LOCKED]` through a project
 * helper (`const batch = await repo.nextPending(client)`), then written through another on the
 * same connection, picked by values read off the claimed rows (`repo.markDone(client, row.id)`
 * in `for (const row of batch)`). PostgreSQL holds those row locks until the transaction ends, and
 * the write commits inside it: like a write under a transaction-scoped advisory lock, it cannot
 * land after a newer holder took the rows. A write on another connection, of another table, or of
 * rows picked by anything but the claimed rows, is no such write.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { enclosingFunction, unwrap, type Node } from '../ast.js';
import { receiverKey } from '../modules/receivers.js';
import type { FunctionSummary, WriteSummary } from '../modules/summaries.js';

type Call = TSESTree.CallExpression | TSESTree.NewExpression;

function argumentAt(call: Call, i: number): Node | undefined {
  const a = call.arguments[i];
  return a && a.type !== AST_NODE_TYPES.SpreadElement ? a : undefined;
}

/** The call a value was read from: `rows` of `const rows = await claim(...)`, `row` of `for (const row of rows)`, and members of either. */
function resultSource(value: Node, sourceCode: SourceCode, depth = 0): Node | undefined {
  if (depth > 4) return undefined;
  let v = unwrap(value);
  while (v.type === AST_NODE_TYPES.MemberExpression) v = unwrap(v.object);
  if (v.type === AST_NODE_TYPES.CallExpression && v.callee.type === AST_NODE_TYPES.MemberExpression) return resultSource(v.callee.object, sourceCode, depth + 1);
  if (v.type !== AST_NODE_TYPES.Identifier) return undefined;
  const def = ASTUtils.findVariable(sourceCode.getScope(v), v.name)?.defs[0];
  if (def?.type !== 'Variable' || def.node.type !== AST_NODE_TYPES.VariableDeclarator) return undefined;
  const decl = def.parent;
  const loop = decl?.parent;
  if (loop?.type === AST_NODE_TYPES.ForOfStatement && loop.left === decl) return resultSource(loop.right, sourceCode, depth + 1);
  if (decl?.kind !== 'const' || !def.node.init) return undefined;
  const init = unwrap(def.node.init);
  return init.type === AST_NODE_TYPES.AwaitExpression ? unwrap(init.argument) : init;
}

/**
 * Whether the call `node`, leading to `write`, writes rows an earlier call of the same function
 * claimed `FOR UPDATE` on the same connection (see above). `earlier` holds the function's calls.
 */
export function writesClaimedRows(node: Call, write: WriteSummary, earlier: readonly TSESTree.CallExpression[], summaryOf: (call: TSESTree.CallExpression) => FunctionSummary | undefined, sourceCode: SourceCode): boolean {
  if (write.table === undefined || write.connectionArg === undefined || !write.keyArgs?.length) return false;
  const connection = argumentAt(node, write.connectionArg);
  const key = connection && receiverKey(connection);
  if (key === undefined) return false;
  const fn = enclosingFunction(node);
  const sources = write.keyArgs.map((i) => argumentAt(node, i)).map((a) => (a ? resultSource(a, sourceCode) : undefined));
  return earlier.some((c) => {
    if (c.range[1] > node.range[0] || enclosingFunction(c) !== fn || !sources.includes(c)) return false;
    const claims = summaryOf(c)?.claimsRows ?? [];
    return claims.some((claim) => claim.table === write.table && receiverKey(argumentAt(c, claim.connectionArg) ?? c) === key);
  });
}
