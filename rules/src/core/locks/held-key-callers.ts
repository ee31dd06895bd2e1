/**
 * A key a same-file function writes, filled by its callers with the very value that names a lock
 * they take: `claim({ key })` and later `markDone({ key })` (or a hook that calls it, handed on
 * through a context object), where `markDone` SETs its `key` parameter. That write keeps the claim
 * itself (marks it done, moves it on), as a renewal does: lock upkeep, not a write the lock
 * protects. Only a value bound once (a `const`, a parameter never reassigned) counts, and only
 * when every caller of the function fills the key with such a value.
 *
 * The same holds for a key computed again from the same values (`sameAsHeldKey`): an idempotency
 * claim taken on `const key = this.keyOf(request)`, whose result a helper of the class stores under
 * its own `const key = this.keyOf(request)`, handed that same `request`.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { contains, enclosingFunction, unwrap, type FunctionNode, type Node } from '../ast.js';
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

/** The lock key itself at an acquire: a SET NX's key, or the argument a helper takes its lock on as is. */
function exactLockKeyAt(site: AcquireSite): Node | undefined {
  if (site.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const origin = site.origin;
  if (origin) return origin.keyExact && origin.keyArg !== undefined && origin.keyProperty === undefined ? site.node.arguments[origin.keyArg] : undefined;
  return site.library === 'redis-set-nx' ? readSetNx(site.node)?.key : undefined;
}

/** Definitions that name code rather than hold a value that could change. */
const CODE_NAMES = new Set(['FunctionName', 'ClassName', 'ImportBinding']);
/** How many initializers, calls and callers deep two keys are compared. */
const MAX_SAME_DEPTH = 4;
/** A parameter is followed into at most this many callers (each is compared in turn). */
const MAX_CALLERS = 16;

/**
 * Whether `key` is the value that names the lock of one of the file's acquires: the same variable,
 * or built the same way (the same callee, operators and literals) from the same values, where a
 * `const` stands for its initializer and a parameter for what every caller of its function passes.
 */
export function sameAsHeldKey(key: Node, acquires: readonly AcquireSite[], functions: FunctionIndex, sourceCode: SourceCode): boolean {
  for (const site of acquires) {
    const held = exactLockKeyAt(site);
    if (held && sameValue(key, held, { functions, sourceCode }, 0)) return true;
  }
  return false;
}

interface SameEnv {
  functions: FunctionIndex;
  sourceCode: SourceCode;
}

function sameValue(a: Node, b: Node, env: SameEnv, depth: number): boolean {
  if (depth > MAX_SAME_DEPTH) return false;
  const x = unwrap(a);
  const y = unwrap(b);
  if (x === y) return true;
  if (x.type === AST_NODE_TYPES.Identifier || y.type === AST_NODE_TYPES.Identifier) return sameBinding(x, y, env, depth);
  if (x.type !== y.type) return false;
  switch (x.type) {
    case AST_NODE_TYPES.Literal:
      return x.value === (y as TSESTree.Literal).value;
    case AST_NODE_TYPES.ThisExpression:
      // `this` of two methods of one class (arrow functions see their method's).
      return classOf(x) !== undefined && classOf(x) === classOf(y);
    case AST_NODE_TYPES.MemberExpression: {
      const other = y as TSESTree.MemberExpression;
      if (x.computed !== other.computed || !(x.computed ? sameValue(x.property, other.property, env, depth + 1) : propertyName(x) === propertyName(other))) return false;
      return sameValue(x.object, other.object, env, depth + 1);
    }
    case AST_NODE_TYPES.BinaryExpression: {
      const other = y as TSESTree.BinaryExpression;
      return x.operator === other.operator && sameValue(x.left, other.left, env, depth + 1) && sameValue(x.right, other.right, env, depth + 1);
    }
    case AST_NODE_TYPES.TemplateLiteral: {
      const other = y as TSESTree.TemplateLiteral;
      return (
        x.quasis.length === other.quasis.length &&
        x.quasis.every((q, i) => q.value.cooked === other.quasis[i].value.cooked) &&
        x.expressions.every((e, i) => sameValue(e, other.expressions[i], env, depth + 1))
      );
    }
    case AST_NODE_TYPES.CallExpression: {
      // A key builder called the same way on the same values (`this.keyOf(request)`, `lockKey(id)`).
      const other = y as TSESTree.CallExpression;
      if (x.arguments.length !== other.arguments.length || x.optional !== other.optional) return false;
      if (!sameValue(x.callee, other.callee, env, depth + 1)) return false;
      return x.arguments.every((arg, i) => arg.type !== AST_NODE_TYPES.SpreadElement && other.arguments[i].type !== AST_NODE_TYPES.SpreadElement && sameValue(arg, other.arguments[i], env, depth + 1));
    }
    default:
      return false;
  }
}

/** Two values of which at least one is a name: the same variable, its `const` initializer, or what a parameter is always handed. */
function sameBinding(x: Node, y: Node, env: SameEnv, depth: number): boolean {
  const vx = x.type === AST_NODE_TYPES.Identifier ? boundOnce(x, env.sourceCode) : undefined;
  const vy = y.type === AST_NODE_TYPES.Identifier ? boundOnce(y, env.sourceCode) : undefined;
  if (vx && vx === vy) return true;
  // A name for code, not a value: a function, class or import (`keyOf`), or an undeclared global (`JSON`).
  if (x.type === AST_NODE_TYPES.Identifier && y.type === AST_NODE_TYPES.Identifier && !vx && !vy) {
    const fx = ASTUtils.findVariable(env.sourceCode.getScope(x), x.name);
    const fy = ASTUtils.findVariable(env.sourceCode.getScope(y), y.name);
    if (!fx && !fy) return x.name === y.name;
    return !!fx && fx === fy && CODE_NAMES.has(fx.defs[0]?.type ?? '');
  }
  for (const [v, other] of [[vx, y], [vy, x]] as const) {
    if (!v) continue;
    const init = constInitializer(v);
    if (init) return sameValue(init, other, env, depth + 1);
    const param = parameterSlot(v);
    if (param) {
      // A parameter is the value its function is always handed; the other value must sit outside it.
      if (contains(param.fn, other)) continue;
      const callers = env.functions.callersOf(param.fn);
      const handed = callers.length <= MAX_CALLERS && callers.every((call) => {
        const arg = call.arguments[param.index];
        return arg !== undefined && arg.type !== AST_NODE_TYPES.SpreadElement && !contains(param.fn, call) && sameValue(arg, other, env, depth + 1);
      });
      // Else the other side may still be the name to follow (an entry point's parameter has no callers here).
      if (callers.length > 0 && handed) return true;
    }
  }
  return false;
}

function constInitializer(variable: Variable): Node | undefined {
  const def = variable.defs[0];
  if (def?.type !== 'Variable' || def.parent?.kind !== 'const') return undefined;
  const declarator = def.node as TSESTree.VariableDeclarator;
  return declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init ? declarator.init : undefined;
}

/** A plain parameter (`request`, not destructured) of a function: where callers fill it. */
function parameterSlot(variable: Variable): { fn: FunctionNode; index: number } | undefined {
  const def = variable.defs[0];
  if (def?.type !== 'Parameter') return undefined;
  const fn = def.node as FunctionNode;
  const index = fn.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === variable.name);
  return index >= 0 ? { fn, index } : undefined;
}

function classOf(node: Node): Node | undefined {
  for (let fn = enclosingFunction(node); fn; fn = enclosingFunction(fn)) {
    if (fn.type === AST_NODE_TYPES.ArrowFunctionExpression) continue;
    const parent = fn.parent;
    if (parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.PropertyDefinition) return parent.parent?.parent;
    return undefined;
  }
  return undefined;
}

function propertyName(member: TSESTree.MemberExpression): string | undefined {
  return member.property.type === AST_NODE_TYPES.Identifier || member.property.type === AST_NODE_TYPES.PrivateIdentifier ? member.property.name : undefined;
}
