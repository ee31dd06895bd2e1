/**
 * Where the path after an acquire leaves its function. A critical section taken without a
 * callback reaches from the acquire to its release, or to the end of the function; but code
 * after a `return` or `throw` that follows the acquire on its own path never runs under it:
 * `return await claim(key)` hands the lock to the caller, and nothing later in this function
 * runs on that path. Likewise `if (claim.claimed) { ...; return ...; }` leaves on the branch
 * that holds the lock, so what follows the `if` runs only when the lock was not taken.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunctionNode, memberName, unwrap, type Node } from '../ast.js';
import { ACQUIRED_RESULT_MEMBER } from '../models/locks.js';

type Binding = TSESTree.VariableDeclarator | TSESTree.AssignmentExpression | undefined;

/** A statement that always leaves the function: `return`, `throw`, or a block ending in one. */
function leaves(statement: Node): boolean {
  if (statement.type === AST_NODE_TYPES.ReturnStatement || statement.type === AST_NODE_TYPES.ThrowStatement) return true;
  if (statement.type === AST_NODE_TYPES.BlockStatement) {
    const last = statement.body[statement.body.length - 1];
    return !!last && leaves(last);
  }
  return false;
}

/** The name the acquire's result is bound to (`const claim = await take(k)`). */
function boundName(binding: Binding): string | undefined {
  if (!binding) return undefined;
  const target = binding.type === AST_NODE_TYPES.VariableDeclarator ? binding.id : binding.left;
  return target.type === AST_NODE_TYPES.Identifier ? target.name : undefined;
}

/** `if (claim)` or `if (claim.claimed)`: a test that is true when the lock was taken. */
function testsTaken(test: Node, name: string): boolean {
  const t = unwrap(test);
  if (t.type === AST_NODE_TYPES.Identifier) return t.name === name;
  if (t.type !== AST_NODE_TYPES.MemberExpression || t.computed) return false;
  const object = unwrap(t.object);
  return object.type === AST_NODE_TYPES.Identifier && object.name === name && ACQUIRED_RESULT_MEMBER.test(memberName(t) ?? '');
}

/**
 * The offset where the section of the acquire `call` ends because its path leaves the function,
 * or undefined when it does not leave before the function's end.
 */
export function sectionExitEnd(call: Node, binding: Binding): number | undefined {
  const name = boundName(binding);
  let innermost = true;
  for (let child: Node = call, parent = call.parent; parent && !isFunctionNode(child); child = parent, parent = parent.parent) {
    if (parent.type !== AST_NODE_TYPES.BlockStatement && parent.type !== AST_NODE_TYPES.Program && parent.type !== AST_NODE_TYPES.SwitchCase) continue;
    const body: readonly Node[] = parent.type === AST_NODE_TYPES.SwitchCase ? parent.consequent : parent.body;
    const index = body.indexOf(child);
    if (index < 0) continue;
    const own = innermost;
    innermost = false;
    for (const statement of body.slice(index)) {
      if (leaves(statement)) return statement.range[1];
      // Only in the acquire's own block, where its result is bound: a later test of that result.
      if (
        own && name !== undefined &&
        statement.type === AST_NODE_TYPES.IfStatement && !statement.alternate && testsTaken(statement.test, name) && leaves(statement.consequent)
      ) {
        return statement.range[1];
      }
    }
  }
  return undefined;
}
