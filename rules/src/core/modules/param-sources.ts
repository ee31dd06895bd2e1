/**
 * Which parameters of a function a value comes from: one walk back through the function's
 * bindings, members, templates, operators and calls, read as strictly or as liberally as its use
 * asks (`ParamWalk`). A key that must name the caller's argument follows only what keeps the value
 * (`String(id)`, `` `lock:${id}` ``); a value the caller may have decided follows everything it is
 * built from.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, isFunctionNode, propertyKeyName, unwrap, type FunctionNode, type Node } from '../ast.js';

export interface ParamWalk {
  /** How many hops back the walk goes before it gives up. */
  readonly maxDepth: number;
  /**
   * Which calls pass a parameter on: `all` (the callee and every argument, `format(id)`),
   * `conversions` (only those that keep the value: `String(t)`, `t.toString()`, `ids.join()`), or
   * `conversions-or-arguments` (those, and the arguments of any other call: a key built by a
   * helper, `keyFor(id)`, still names it).
   */
  readonly calls: 'all' | 'conversions' | 'conversions-or-arguments';
  /** `byId[id]`: a computed member comes from its key too, not only from its object. */
  readonly computedKeys: boolean;
  /** `{ id, ...rest }`: an object literal comes from its values. */
  readonly objects: boolean;
  /** `...items` comes from `items`; otherwise a spread reaches nothing. */
  readonly spreads: boolean;
  /** `await repo.findActive(userId)` is a read of what is stored now: the function's own, not the caller's. */
  readonly awaitedReadsNothing: boolean;
  /**
   * Past a binding's initialiser: a loop variable from its collection (`for (const item of
   * items)`), a reassigned `let` from every value it is given, a callback's parameter
   * (`items.map((item) => ...)`) from the callee it is handed to.
   */
  readonly bindingFlow: boolean;
}

/** A value that may come from the caller counts as the caller's: liberal on purpose. */
export const BUILT_FROM: ParamWalk = { maxDepth: 8, calls: 'all', computedKeys: true, objects: true, spreads: true, awaitedReadsNothing: true, bindingFlow: true };

/** The parameter itself, or a form of it that keeps its value: `key`, `lease.token`, `` `lock:${id}` ``, `String(t)`. */
export const SAME_VALUE: ParamWalk = { maxDepth: 6, calls: 'conversions', computedKeys: false, objects: false, spreads: false, awaitedReadsNothing: false, bindingFlow: false };

/** As `SAME_VALUE`, for a key: a helper that builds it from the parameter (`this.prefixer(key)`) still names it. */
export const NAMED_BY: ParamWalk = { ...SAME_VALUE, calls: 'conversions-or-arguments' };

/** Conversions keep the value: `String(t)`, `BigInt(t)`, `t.toString()`, `JSON.stringify(k)`. */
const CONVERSION = /^(?:String|Number|BigInt|parseInt|toString|valueOf|stringify|trim|toLowerCase|join)$/;

/** The parameters of `fn` an expression's value comes from, read by `walk`. */
export function paramSources(node: Node | undefined, fn: FunctionNode, sourceCode: SourceCode, walk: ParamWalk, depth = 0): Set<number> {
  const out = new Set<number>();
  if (!node || depth > walk.maxDepth) return out;
  const add = (inner: Node | null | undefined) => {
    const value = inner?.type === AST_NODE_TYPES.SpreadElement ? (walk.spreads ? inner.argument : undefined) : inner;
    if (value) for (const i of paramSources(value, fn, sourceCode, walk, depth + 1)) out.add(i);
  };
  if (walk.awaitedReadsNothing) {
    for (let w: Node = node; ; w = (w as TSESTree.TSNonNullExpression).expression) {
      if (w.type === AST_NODE_TYPES.AwaitExpression) return out;
      if (w.type !== AST_NODE_TYPES.TSNonNullExpression && w.type !== AST_NODE_TYPES.TSAsExpression && w.type !== AST_NODE_TYPES.ChainExpression) break;
    }
  }
  const n = unwrap(node);
  switch (n.type) {
    case AST_NODE_TYPES.Identifier: {
      const variable = ASTUtils.findVariable(sourceCode.getScope(n), n.name);
      const def = variable?.defs[0];
      if (!def) return out;
      if (def.type === 'Parameter' && def.node === fn) {
        const index = paramIndex(def.name, fn);
        if (index !== undefined) out.add(index);
      } else if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && contains(fn, def.node)) {
        add(def.node.init);
        if (!walk.bindingFlow) return out;
        const loop = def.node.parent?.parent;
        if (loop?.type === AST_NODE_TYPES.ForOfStatement || loop?.type === AST_NODE_TYPES.ForInStatement) add(loop.right);
        // A destructured binding (`const { id } = input`) and reassignments stay with their sources.
        for (const ref of variable?.references ?? []) if (ref.writeExpr && ref.writeExpr !== def.node.init) add(ref.writeExpr as Node);
      } else if (walk.bindingFlow && def.type === 'Parameter' && isFunctionNode(def.node) && contains(fn, def.node)) {
        const call = def.node.parent;
        if (call?.type === AST_NODE_TYPES.CallExpression) add(call.callee);
      }
      return out;
    }
    case AST_NODE_TYPES.MemberExpression:
      add(n.object);
      if (walk.computedKeys && n.computed) add(n.property);
      return out;
    case AST_NODE_TYPES.TemplateLiteral:
      n.expressions.forEach(add);
      return out;
    case AST_NODE_TYPES.BinaryExpression:
    case AST_NODE_TYPES.LogicalExpression:
      add(n.left as Node);
      add(n.right);
      return out;
    case AST_NODE_TYPES.ConditionalExpression:
      add(n.consequent);
      add(n.alternate);
      return out;
    case AST_NODE_TYPES.ArrayExpression:
      n.elements.forEach((e) => add(e));
      return out;
    case AST_NODE_TYPES.ObjectExpression:
      if (walk.objects) for (const p of n.properties) add(p.type === AST_NODE_TYPES.Property ? (p.value as Node) : p);
      return out;
    case AST_NODE_TYPES.CallExpression: {
      if (walk.calls === 'all') {
        add(n.callee);
        n.arguments.forEach((a) => add(a));
        return out;
      }
      const name = calleeName(n);
      if (name && CONVERSION.test(name)) {
        const object = calleeObject(n);
        if (object && name !== 'stringify') add(object);
        n.arguments.forEach((a) => add(a));
      } else if (walk.calls === 'conversions-or-arguments') {
        n.arguments.forEach((a) => add(a));
      }
      return out;
    }
    default:
      return out;
  }
}

/** The parameter of `fn` an expression is, directly (`id`, not `id.x`; a name destructured from one counts as it). */
export function directParam(node: Node | undefined, fn: FunctionNode, sourceCode: SourceCode): number | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (n.type !== AST_NODE_TYPES.Identifier) return undefined;
  const def = ASTUtils.findVariable(sourceCode.getScope(n), n.name)?.defs[0];
  return def?.type === 'Parameter' && def.node === fn ? paramIndex(def.name, fn) : undefined;
}

/** Which of `fn`'s parameters declares a name (`{ id }` in `({ id }, opts) =>` is the first). */
function paramIndex(name: Node, fn: FunctionNode): number | undefined {
  const index = fn.params.findIndex((p) => contains(p, name));
  return index >= 0 ? index : undefined;
}

/**
 * The property of an options parameter a key is named by, when it is one: `lockKey` in
 * `({ lockKey, ttlMs }) => redis.set(lockKey, ...)`, `(opts) => redis.del(`lock:${opts.lockKey}`)` or
 * `const { lockKey } = opts`. Walked as `NAMED_BY` walks a key; the first property found.
 */
export function paramProperty(node: Node | undefined, fn: FunctionNode, sourceCode: SourceCode, depth = 0): { index: number; property: string } | undefined {
  if (!node || depth > NAMED_BY.maxDepth) return undefined;
  const next = (inner: Node | null | undefined) => (inner && inner.type !== AST_NODE_TYPES.SpreadElement ? paramProperty(inner, fn, sourceCode, depth + 1) : undefined);
  const n = unwrap(node);
  switch (n.type) {
    case AST_NODE_TYPES.Identifier: {
      const def = ASTUtils.findVariable(sourceCode.getScope(n), n.name)?.defs[0];
      if (def?.type === 'Parameter' && def.node === fn) return destructuredProperty(def.name, fn.params.find((p) => contains(p, def.name)), fn);
      if (def?.type !== 'Variable' || def.node.type !== AST_NODE_TYPES.VariableDeclarator || !contains(fn, def.node)) return undefined;
      // `const { lockKey } = opts`, with `opts` a parameter.
      if (def.node.id.type === AST_NODE_TYPES.ObjectPattern) {
        const index = directParam(def.node.init ?? undefined, fn, sourceCode);
        return index !== undefined ? destructuredProperty(def.name, def.node.id, fn, index) : undefined;
      }
      return next(def.node.init);
    }
    case AST_NODE_TYPES.MemberExpression: {
      const index = n.computed ? undefined : directParam(n.object, fn, sourceCode);
      return index !== undefined && n.property.type === AST_NODE_TYPES.Identifier ? { index, property: n.property.name } : undefined;
    }
    case AST_NODE_TYPES.TemplateLiteral:
      for (const e of n.expressions) {
        const found = next(e);
        if (found) return found;
      }
      return undefined;
    case AST_NODE_TYPES.BinaryExpression:
      return next(n.left as Node) ?? next(n.right);
    case AST_NODE_TYPES.CallExpression:
      for (const a of n.arguments) {
        const found = next(a);
        if (found) return found;
      }
      return calleeName(n) && CONVERSION.test(calleeName(n) ?? '') ? next(calleeObject(n)) : undefined;
    default:
      return undefined;
  }
}

/** The top-level property of an object pattern that binds `name` (`lockKey` in `{ lockKey, ttlMs = 10 }`). */
function destructuredProperty(name: Node, pattern: Node | undefined, fn: FunctionNode, index = pattern ? fn.params.indexOf(pattern as TSESTree.Parameter) : -1): { index: number; property: string } | undefined {
  let p = pattern;
  if (p?.type === AST_NODE_TYPES.AssignmentPattern) p = p.left;
  if (p?.type !== AST_NODE_TYPES.ObjectPattern || index < 0) return undefined;
  for (const prop of p.properties) {
    if (prop.type !== AST_NODE_TYPES.Property) continue;
    const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
    const key = propertyKeyName(prop);
    if (value === name && key !== undefined) return { index, property: key };
  }
  return undefined;
}

/**
 * The argument that names a key, where a summary says it is: the argument at `index`, or that
 * argument's `property` when it is an object literal (`acquireLock({ lockKey, ttlMs })` is named by
 * `lockKey`, whatever else the options hold).
 */
export function keyArgument(args: readonly TSESTree.CallExpressionArgument[], index: number | undefined, property: string | undefined): Node | undefined {
  const arg = index !== undefined ? args[index] : undefined;
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const object = unwrap(arg);
  if (property === undefined || object.type !== AST_NODE_TYPES.ObjectExpression) return arg;
  const found = object.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === property);
  return found ? (found.value as Node) : arg;
}

/**
 * Whether two helper calls name their lock key with the same values, when a summary says a key is
 * built from several arguments (`claimPart(env, id, io, part)` over `buildPartKey(env, id, io, part)`):
 * a helper that deletes a key built from other values (`drainWaiters(env, id, io)`) deletes another
 * key, whatever its first argument shares. Undefined when neither key is built from several.
 */
export function sameKeyValues(
  first: TSESTree.CallExpression,
  firstKey: { keyArg?: number; arg?: number; keyArgs?: readonly number[] },
  second: TSESTree.CallExpression,
  secondKey: { keyArg?: number; arg?: number; keyArgs?: readonly number[] },
  text: (node: Node) => string,
): boolean | undefined {
  if (!firstKey.keyArgs && !secondKey.keyArgs) return undefined;
  const texts = (call: TSESTree.CallExpression, key: typeof firstKey): Set<string> | undefined => {
    const indexes = key.keyArgs ?? [key.keyArg ?? key.arg];
    const out = new Set<string>();
    for (const index of indexes) {
      const arg = index === undefined ? undefined : call.arguments[index];
      if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return undefined;
      out.add(text(arg));
    }
    return out;
  };
  const a = texts(first, firstKey);
  const b = texts(second, secondKey);
  if (!a || !b) return undefined;
  return a.size === b.size && [...a].every((t) => b.has(t));
}
