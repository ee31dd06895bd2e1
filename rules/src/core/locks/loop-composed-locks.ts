/**
 * A helper that takes one lock per entry of a list by wrapping its callback in a loop:
 *
 *     let run = task;
 *     for (const keys of groups) {
 *       const inner = run;
 *       run = (held) => redlock.using(keys, ttl, (signal) => inner([...held, signal]));
 *     }
 *     return run([]);
 *
 * Each wrapper runs the one before it under its lock, and the first of them is the parameter, so
 * the parameter runs under every lock of the list when the helper calls the last wrapper.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { ASTUtils } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { contains, enclosingFunction, unwrap, type FunctionNode, type Node } from '../ast.js';
import { directParam } from '../modules/param-sources.js';
import type { AcquireSite } from './acquires.js';
import { inSection } from './untaken-branches.js';

type Variable = NonNullable<ReturnType<typeof ASTUtils.findVariable>>;

const LOOPS = new Set<string>([AST_NODE_TYPES.ForOfStatement, AST_NODE_TYPES.ForInStatement, AST_NODE_TYPES.ForStatement, AST_NODE_TYPES.WhileStatement, AST_NODE_TYPES.DoWhileStatement]);

function variableOf(id: Node, sourceCode: SourceCode): Variable | undefined {
  const n = unwrap(id);
  return n.type === AST_NODE_TYPES.Identifier ? (ASTUtils.findVariable(sourceCode.getScope(n), n.name) ?? undefined) : undefined;
}

/** Whether `node` sits in a loop of `fn` (not of a function nested in it). */
function inLoopOf(node: Node, fn: FunctionNode): boolean {
  for (let current = node.parent; current && current !== fn; current = current.parent) if (LOOPS.has(current.type)) return true;
  return false;
}

/** Whether `callee` is the wrapper variable itself or a `const` that copies it (`const inner = run`). */
function callsWrapper(callee: Node, wrapper: Variable, sourceCode: SourceCode): boolean {
  const variable = variableOf(callee, sourceCode);
  if (!variable) return false;
  if (variable === wrapper) return true;
  const def = variable.defs[0];
  const init = def?.type === 'Variable' && def.parent?.kind === 'const' ? def.node.init : undefined;
  return init != null && variableOf(init, sourceCode) === wrapper;
}

/**
 * The lock and the parameter `fn` runs under it by such a loop: a lock whose callback calls the
 * previous wrapper, taken in a function assigned in a loop to a `let` that starts as the parameter,
 * and `fn` calls that `let` itself.
 */
export function loopComposedCallback(fn: FunctionNode, acquires: readonly AcquireSite[], calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): { site: AcquireSite; param: number } | undefined {
  for (const site of acquires) {
    const wrapperFn = enclosingFunction(site.node);
    const assignment = wrapperFn?.parent;
    if (!wrapperFn || wrapperFn === fn || assignment?.type !== AST_NODE_TYPES.AssignmentExpression || assignment.operator !== '=' || assignment.right !== wrapperFn) continue;
    if (!contains(fn.body, assignment) || !inLoopOf(assignment, fn)) continue;
    const wrapper = variableOf(assignment.left, sourceCode);
    const def = wrapper?.defs[0];
    if (!wrapper || def?.type !== 'Variable' || def.parent?.kind !== 'let' || !def.node.init || !contains(fn.body, def.node)) continue;
    const param = directParam(def.node.init, fn, sourceCode);
    if (param === undefined) continue;
    // The lock's callback runs the previous wrapper; `fn` runs the last one.
    const chained = calls.some((c) => contains(site.node, c) && inSection(site, c) && callsWrapper(c.callee, wrapper, sourceCode));
    const started = calls.some((c) => enclosingFunction(c) === fn && variableOf(c.callee, sourceCode) === wrapper);
    if (chained && started) return { site, param };
  }
  return undefined;
}
