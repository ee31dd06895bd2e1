/**
 * Calls a critical section starts and does not wait for. An async function runs up to its first
 * `await` when it is called and the rest later, on a turn of the event loop. Called without
 * `await` right before the release (`const pending = tally(id); lock.release(); return pending;`),
 * its code after that first `await` runs once the lock is given back: it is not in the section.
 * What it does before the first `await` (a write it sends as its first statement) is.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { isFunctionNode, memberName, walkPruned, type FunctionNode, type Node } from '../ast.js';
import type { AcquireSite } from './acquires.js';

const PROMISE_CHAIN = /^(?:then|catch|finally)$/;

/** Whether an `await` is in a node, not counting functions nested in it. */
function awaits(node: Node, sourceCode: SourceCode): boolean {
  let found = false;
  walkPruned(node, sourceCode.visitorKeys, (n) => {
    if (n.type === AST_NODE_TYPES.AwaitExpression || (n.type === AST_NODE_TYPES.ForOfStatement && n.await)) {
      found = true;
      return 'stop';
    }
    return !isFunctionNode(n);
  });
  return found;
}

/** Whether a statement calls the release the section ends with (the same callee text: `lock.unlock`). */
function releases(statement: Node, releaseText: string, sourceCode: SourceCode): boolean {
  let found = false;
  walkPruned(statement, sourceCode.visitorKeys, (n) => {
    if (n.type === AST_NODE_TYPES.CallExpression && sourceCode.getText(n.callee) === releaseText) {
      found = true;
      return 'stop';
    }
    return !isFunctionNode(n);
  });
  return found;
}

/**
 * The call is not awaited (its promise is dropped, kept in a variable, or chained with
 * `.then`/`.catch`), and a later statement of its block releases the section's lock with no
 * `await` between them.
 */
export function startedJustBeforeRelease(call: TSESTree.CallExpression, site: AcquireSite, sourceCode: SourceCode): boolean {
  const release = site.release;
  if (!release || release.type !== AST_NODE_TYPES.CallExpression) return false;
  const releaseText = sourceCode.getText(release.callee);
  let node: Node = call;
  for (;;) {
    const parent: Node | undefined = node.parent;
    if (!parent) return false;
    if (parent.type === AST_NODE_TYPES.AwaitExpression || parent.type === AST_NODE_TYPES.YieldExpression) return false;
    if (parent.type === AST_NODE_TYPES.MemberExpression && parent.object === node && PROMISE_CHAIN.test(memberName(parent) ?? '') && parent.parent?.type === AST_NODE_TYPES.CallExpression && parent.parent.callee === parent) {
      node = parent.parent;
      continue;
    }
    if (parent.type === AST_NODE_TYPES.ChainExpression || parent.type === AST_NODE_TYPES.TSAsExpression || parent.type === AST_NODE_TYPES.TSNonNullExpression || parent.type === AST_NODE_TYPES.UnaryExpression) {
      node = parent;
      continue;
    }
    if (parent.type === AST_NODE_TYPES.VariableDeclarator && parent.init === node) {
      node = parent.parent!;
      break;
    }
    if (parent.type === AST_NODE_TYPES.ExpressionStatement) {
      node = parent;
      break;
    }
    return false;
  }
  const block = node.parent;
  if (!block || (block.type !== AST_NODE_TYPES.BlockStatement && block.type !== AST_NODE_TYPES.Program)) return false;
  const statements = block.body as Node[];
  for (const next of statements.slice(statements.indexOf(node) + 1)) {
    if (releases(next, releaseText, sourceCode)) return true;
    if (awaits(next, sourceCode)) return false;
  }
  return false;
}

/**
 * Where a function's first `await` ends: what it runs after that point runs on a later turn. The
 * awaited expression is evaluated before the function suspends, so an `await` inside it ends first;
 * nothing that starts after the first one ends can end before it.
 */
export function firstAwaitEnd(fn: FunctionNode, sourceCode: SourceCode): number | undefined {
  if (!fn.async) return undefined;
  let end: number | undefined;
  walkPruned(fn.body, sourceCode.visitorKeys, (n) => {
    if (end !== undefined && n.range[0] >= end) return 'stop';
    if (isFunctionNode(n)) return false;
    if (n.type === AST_NODE_TYPES.AwaitExpression) end = Math.min(end ?? Infinity, n.range[1]);
    else if (n.type === AST_NODE_TYPES.ForOfStatement && n.await) end = Math.min(end ?? Infinity, n.right.range[1]);
    return true;
  });
  return end;
}
