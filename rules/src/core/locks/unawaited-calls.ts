/**
 * Calls a critical section starts and does not wait for. An async function runs up to its first
 * `await` when it is called and the rest later, on a turn of the event loop. Called without
 * `await` right before the release (`const pending = tally(id); lock.release(); return pending;`),
 * its code after that first `await` runs once the lock is given back: it is not in the section.
 * What it does before the first `await` (a write it sends as its first statement) is.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { isFunctionNode, memberName, type FunctionNode, type Node } from '../ast.js';
import type { AcquireSite } from './acquires.js';

const PROMISE_CHAIN = /^(?:then|catch|finally)$/;

/** Whether an `await` is in a node, not counting functions nested in it. */
function awaits(node: Node): boolean {
  if (node.type === AST_NODE_TYPES.AwaitExpression) return true;
  if (isFunctionNode(node)) return false;
  if (node.type === AST_NODE_TYPES.ForOfStatement && node.await) return true;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'parent' || !value || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child === 'object' && 'type' in child && awaits(child as Node)) return true;
    } else if ('type' in value && awaits(value as Node)) return true;
  }
  return false;
}

/** Whether a statement calls the release the section ends with (the same callee text: `lock.unlock`). */
function releases(statement: Node, releaseText: string, sourceCode: SourceCode): boolean {
  let found = false;
  const visit = (node: Node) => {
    if (found || isFunctionNode(node)) return;
    if (node.type === AST_NODE_TYPES.CallExpression && sourceCode.getText(node.callee) === releaseText) {
      found = true;
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'parent' || !value || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof child === 'object' && 'type' in child) visit(child as Node);
      } else if ('type' in value) visit(value as Node);
    }
  };
  visit(statement);
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
    if (awaits(next)) return false;
  }
  return false;
}

/** Where a function's first `await` ends: what it runs after that point runs on a later turn. */
export function firstAwaitEnd(fn: FunctionNode): number | undefined {
  if (!fn.async) return undefined;
  let end: number | undefined;
  const visit = (node: Node) => {
    if (end !== undefined) return;
    if (node !== fn && isFunctionNode(node)) return;
    if (node.type === AST_NODE_TYPES.AwaitExpression || (node.type === AST_NODE_TYPES.ForOfStatement && node.await)) {
      // The awaited expression is evaluated before the function suspends.
      if (node.type === AST_NODE_TYPES.AwaitExpression) visit(node.argument);
      if (end === undefined) end = node.type === AST_NODE_TYPES.AwaitExpression ? node.range[1] : node.right.range[1];
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'parent' || !value || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof child === 'object' && 'type' in child) visit(child as Node);
      } else if ('type' in value) visit(value as Node);
    }
  };
  visit(fn.body);
  return end;
}
