/**
 * Functions that check an abort signal handed to them: `if (signal.aborted) throw signal.error`,
 * `signal.throwIfAborted()`, or `return signal.aborted`, also over a list of signals
 * (`for (const s of signals)`, `signals.forEach((s) => ...)`, `signals.some((s) => s.aborted)`).
 * redlock's `using` aborts the signal when its lease is lost, so such a helper called with a
 * section's signal asks whether the lease still holds: a check, not a fence.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, isFunctionNode, memberName, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { ABORT_SIGNAL_ASSERT, ABORT_SIGNAL_MEMBER } from '../models/locks.js';

/** How the function reports a lost lease: by throwing (a statement call checks) or by its result. */
export interface AbortCheck {
  /** The parameter that is the signal, or the list of signals. */
  arg: number;
  throws: boolean;
}

const LIST_CALLBACK = /^(?:forEach|some|every|find|filter|map)$/;

/** The parameter `name` stands for inside `fn`: the parameter itself, or an element of a list parameter. */
function paramOf(id: TSESTree.Identifier, fn: FunctionNode): number | undefined {
  const direct = fn.params.findIndex((p) => (p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p).type === AST_NODE_TYPES.Identifier && ((p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p) as TSESTree.Identifier).name === id.name);
  for (let n: Node | undefined = id.parent; n && n !== fn; n = n.parent) {
    // `for (const s of signals)`.
    if (n.type === AST_NODE_TYPES.ForOfStatement && n.left.type === AST_NODE_TYPES.VariableDeclaration) {
      const bound = n.left.declarations[0]?.id;
      const list = unwrap(n.right);
      if (bound?.type === AST_NODE_TYPES.Identifier && bound.name === id.name && list.type === AST_NODE_TYPES.Identifier) return paramOf(list, fn);
    }
    // `signals.forEach((s) => ...)`.
    if (isFunctionNode(n) && n.parent?.type === AST_NODE_TYPES.CallExpression && n.parent.arguments[0] === n && LIST_CALLBACK.test(calleeName(n.parent) ?? '')) {
      const first = n.params[0];
      const list = calleeObject(n.parent);
      if (first?.type === AST_NODE_TYPES.Identifier && first.name === id.name && list && unwrap(list).type === AST_NODE_TYPES.Identifier) return paramOf(unwrap(list) as TSESTree.Identifier, fn);
    }
  }
  return direct >= 0 ? direct : undefined;
}

/** Whether `node` is the test of an `if` (or `?:`) whose taken branch throws. */
function guardsThrow(node: Node): boolean {
  let top: Node = node;
  while (top.parent && (top.parent.type === AST_NODE_TYPES.LogicalExpression || top.parent.type === AST_NODE_TYPES.UnaryExpression)) top = top.parent;
  const parent = top.parent;
  if (parent?.type !== AST_NODE_TYPES.IfStatement || parent.test !== top) return false;
  const taken = parent.consequent;
  return taken.type === AST_NODE_TYPES.ThrowStatement || (taken.type === AST_NODE_TYPES.BlockStatement && taken.body.some((s) => s.type === AST_NODE_TYPES.ThrowStatement));
}

/** Whether `node` is what the function returns (`return signal.aborted`, an arrow's body). */
function isReturned(node: Node, fn: FunctionNode): boolean {
  let top: Node = node;
  while (top.parent && top.parent !== fn && (top.parent.type === AST_NODE_TYPES.LogicalExpression || top.parent.type === AST_NODE_TYPES.UnaryExpression || (top.parent.type === AST_NODE_TYPES.CallExpression && LIST_CALLBACK.test(calleeName(top.parent) ?? '')) || (isFunctionNode(top.parent) && top.parent.body === top))) top = top.parent;
  if (top.parent === fn) return fn.body === top;
  return top.parent?.type === AST_NODE_TYPES.ReturnStatement;
}

/** Whether `fn`'s text mentions an abort at all: most functions are ruled out without a walk. */
export function mentionsAbort(fn: FunctionNode, text: string): boolean {
  const at = text.indexOf('borted', fn.range[0]);
  return at >= 0 && at < fn.range[1];
}

/** The abort check `fn` makes on one of its parameters, if it makes one. */
export function abortCheckOf(fn: FunctionNode, visitorKeys: SourceCode.VisitorKeys): AbortCheck | undefined {
  let found: AbortCheck | undefined;
  walk(fn.body, visitorKeys, (node) => {
    if (found || node.type !== AST_NODE_TYPES.MemberExpression) return;
    const name = memberName(node) ?? '';
    const object = unwrap(node.object);
    if (object.type !== AST_NODE_TYPES.Identifier) return;
    if (ABORT_SIGNAL_ASSERT.test(name) && node.parent?.type === AST_NODE_TYPES.CallExpression && node.parent.callee === node) {
      const arg = paramOf(object, fn);
      if (arg !== undefined) found = { arg, throws: true };
      return;
    }
    if (!ABORT_SIGNAL_MEMBER.test(name)) return;
    const arg = paramOf(object, fn);
    if (arg === undefined) return;
    if (guardsThrow(node)) found = { arg, throws: true };
    else if (isReturned(node, fn)) found = { arg, throws: false };
  });
  return found;
}
