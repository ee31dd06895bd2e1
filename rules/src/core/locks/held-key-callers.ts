/**
 * A key a same-file function writes, filled by its callers with the very value that names a lock
 * they take: `claim({ key })` and later `markDone({ key })` (or a hook that calls it, handed on
 * through a context object), where `markDone` SETs its `key` parameter. That write keeps the claim
 * itself (marks it done, moves it on), as a renewal does: lock upkeep, not a write the lock
 * protects. Only a value bound once (a `const`, a parameter never reassigned) counts, and only
 * when every caller of the function fills the key with such a value.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { enclosingFunction, unwrap, type Node } from '../ast.js';
import type { FunctionIndex } from '../modules/functions.js';
import { directParam, keyArgument, paramProperty } from '../modules/param-sources.js';
import type { AcquireSite } from './acquires.js';
import { readSetNx } from './redis-locks.js';

type Variable = NonNullable<ReturnType<typeof ASTUtils.findVariable>>;

/** The variable an argument is, when it is bound once. */
function boundOnce(node: Node | undefined, sourceCode: SourceCode): Variable | undefined {
  const n = node && unwrap(node);
  if (n?.type !== AST_NODE_TYPES.Identifier) return undefined;
  const variable = ASTUtils.findVariable(sourceCode.getScope(n), n.name);
  const def = variable?.defs[0];
  if (!variable || !def) return undefined;
  const once = def.type === 'Parameter' || (def.type === 'Variable' && def.parent?.kind === 'const');
  return once && variable.references.every((r) => !r.isWrite() || r.init) ? variable : undefined;
}

/** What names the lock at an acquire of this file: a SET NX's key, or a helper's key argument. */
function lockKeyAt(site: AcquireSite): Node | undefined {
  if (site.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  if (site.origin) return keyArgument(site.node.arguments, site.origin.keyArg, site.origin.keyProperty);
  return site.library === 'redis-set-nx' ? readSetNx(site.node)?.key : undefined;
}

export function namesHeldKey(key: Node, acquires: readonly AcquireSite[], functions: FunctionIndex, sourceCode: SourceCode): boolean {
  const fn = enclosingFunction(key);
  const k = unwrap(key);
  // The parameter itself (`key`, `opts.key`), not a key built from it (`'note:' + key` is another key).
  if (!fn || acquires.length === 0 || (k.type !== AST_NODE_TYPES.Identifier && k.type !== AST_NODE_TYPES.MemberExpression)) return false;
  const named = paramProperty(key, fn, sourceCode);
  const index = named?.index ?? directParam(key, fn, sourceCode);
  if (index === undefined) return false;
  const callers = functions.callersOf(fn);
  if (callers.length === 0) return false;
  const held = new Set<Variable>();
  for (const site of acquires) {
    const variable = boundOnce(lockKeyAt(site), sourceCode);
    if (variable) held.add(variable);
  }
  return callers.every((call: TSESTree.CallExpression) => {
    const variable = boundOnce(keyArgument(call.arguments, index, named?.property), sourceCode);
    return variable !== undefined && held.has(variable);
  });
}
