/**
 * Locks handed over to the function that releases them. A framework's create hook takes a mutex
 * and returns it in its result, the next hook gets that result as a parameter and releases the
 * mutex after its writes (`onCreateSuccess(created, onCreate)` ending with
 * `Semaphore.release(onCreate.carryForward.mutex)`); a class takes a lock into `this.lock` in
 * `start()` and `stop()` writes, then releases it. Such a function holds the lock from its first
 * statement to its last release: that span is a critical section whose acquire is elsewhere.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, contains, enclosingFunction, unwrap, type FunctionNode, type Node } from '../ast.js';
import { CUSTOM_ADVICE, GENERIC_RELEASE_METHOD, type LockModel } from '../models/locks.js';
import { receiverKey } from '../modules/receivers.js';
import type { AcquireFinderInput, AcquireSite } from './acquires.js';

/** Functions that keep the lock itself (release it, renew it): the span before the release holds no data write of interest. */
const UPKEEP_FUNCTION = /^(?:release|unlock|free|dispose|close|destroy|renew|extend|refresh|heartbeat|keepAlive)(?:[A-Z]\w*)?$|(?:Release|Unlock)$/;

interface Released {
  handle: Node;
  model?: LockModel;
}

/** The handle a call releases: a project helper's release by handle, a lock object's own release, an authority's release of a handle. */
function releasedHandle(call: TSESTree.CallExpression, input: AcquireFinderInput, fieldHandles: ReadonlyMap<string, AcquireSite>): Released | undefined {
  for (const release of input.summaryOf?.(call)?.releases ?? []) {
    const arg = call.arguments[release.arg];
    if (release.by === 'handle' && arg && arg.type !== AST_NODE_TYPES.SpreadElement) return { handle: arg };
  }
  const method = calleeName(call);
  const object = calleeObject(call);
  if (!method || !object) return undefined;
  // `this.lease.release()` where another method took the lock into `this.lease`.
  const field = fieldHandles.get(receiverKey(object) ?? '');
  if (field) {
    const model = input.receivers.models.find((m) => m.id === field.library);
    if ((model?.release.includes(method) ?? false) || GENERIC_RELEASE_METHOD.test(method)) return { handle: object, model };
  }
  const kind = input.receivers.kindOf(object);
  if (kind?.type === 'lockObject' && (kind.model.release.includes(method) || GENERIC_RELEASE_METHOD.test(method))) return { handle: object, model: kind.model };
  const first = call.arguments[0];
  if (kind?.type === 'authority' && kind.model.authorityRelease.includes(method) && first && first.type !== AST_NODE_TYPES.SpreadElement) return { handle: first, model: kind.model };
  return undefined;
}

/** The root of a member chain: `onCreate` for `onCreate.carryForward.mutex`. */
function chainRoot(node: Node): Node {
  let current = unwrap(node);
  while (current.type === AST_NODE_TYPES.MemberExpression) current = unwrap(current.object);
  return current;
}

/**
 * Whether the handle was handed to `fn`: a parameter, a path off one, a `const` bound to one of
 * those, or a field of `this` that a method of the same class took the lock into.
 */
function handedIn(handle: Node, fn: FunctionNode, input: AcquireFinderInput, fieldHandles: ReadonlyMap<string, AcquireSite>, hops = 0): boolean {
  const h = unwrap(handle);
  if (h.type === AST_NODE_TYPES.MemberExpression && unwrap(h.object).type === AST_NODE_TYPES.ThisExpression) return fieldHandles.has(receiverKey(h) ?? '');
  const root = chainRoot(h);
  if (root.type !== AST_NODE_TYPES.Identifier || !input.sourceCode || hops > 2) return false;
  const variable = ASTUtils.findVariable(input.sourceCode.getScope(root), root.name);
  const def = variable?.defs[0];
  if (!def) return false;
  if (def.type === 'Parameter') return def.node === fn;
  if (def.type !== 'Variable' || def.parent?.kind !== 'const' || enclosingFunction(def.node) !== fn) return false;
  const init = def.node.init;
  return !!init && def.node.id.type === AST_NODE_TYPES.Identifier && handedIn(init, fn, input, fieldHandles, hops + 1);
}

function functionName(fn: FunctionNode): string | undefined {
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration) return fn.id?.name;
  const parent = fn.parent;
  if (parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.Property || parent?.type === AST_NODE_TYPES.PropertyDefinition) {
    return parent.key.type === AST_NODE_TYPES.Identifier ? parent.key.name : undefined;
  }
  return parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier ? parent.id.name : undefined;
}

/**
 * The critical sections of functions that release a lock they did not take: from the start of
 * the function to its last such release. A function that takes a lock itself is judged by that
 * lock's own section.
 */
export function handedOverSections(input: AcquireFinderInput, sites: readonly AcquireSite[]): Array<Omit<AcquireSite, 'id'>> {
  const fieldHandles = new Map(sites.flatMap((s) => (s.handleKey?.startsWith('this.') ? [[s.handleKey, s] as const] : [])));
  const last = new Map<FunctionNode, { call: TSESTree.CallExpression; released: Released }>();
  for (const call of input.calls) {
    const fn = enclosingFunction(call);
    if (!fn || fn.body.type !== AST_NODE_TYPES.BlockStatement) continue;
    const known = last.get(fn);
    if (known && known.call.range[0] > call.range[0]) continue;
    const released = releasedHandle(call, input, fieldHandles);
    if (!released || !handedIn(released.handle, fn, input, fieldHandles)) continue;
    last.set(fn, { call, released });
  }
  const out: Array<Omit<AcquireSite, 'id'>> = [];
  for (const [fn, { call, released }] of last) {
    const name = functionName(fn);
    if (name !== undefined && UPKEEP_FUNCTION.test(name)) continue;
    if (sites.some((s) => s.scope === fn || contains(fn, s.node))) continue;
    const range: TSESTree.Range = [fn.body.range[0], call.range[0]];
    out.push({
      node: call,
      library: released.model?.id ?? 'custom',
      handleKey: receiverKey(released.handle),
      destructured: new Map(),
      tokenProperties: [...(released.model?.tokenProperties ?? [])],
      advice: released.model?.tokenAdvice ?? CUSTOM_ADVICE,
      scope: fn,
      range,
      release: call,
      label: name ? `a lock \`${name}\` releases` : 'a lock released here',
      handedOver: true,
    });
  }
  return out;
}
