/**
 * Redis keys that are locks: taken with `SET key value NX` somewhere in the file, or named as a
 * lock (`lockKey`, `lock:cart:${id}`). Lets the release and check rules tell a lock key from a
 * cache key without a second walk of the file.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, classConstantValue, constInitializer, enclosingFunction, memberName, propertyKeyName, staticString, unwrap, walk, type Node } from '../ast.js';
import { isRedisSetNx } from './acquires.js';
import { GLOBAL_CLOCK_CALLS, VALUE_KEEPING_FUNCTIONS, VALUE_KEEPING_METHODS } from '../models/clock-sources.js';
import { LOCK_KEY_NAME, REDIS_DATA_COMMAND } from '../models/locks.js';

export interface SetNxSite {
  call: TSESTree.CallExpression;
  key: Node;
  /** The value written: the owner's id, which a safe release compares. */
  value?: Node;
  /** node-redis style options object (`{ NX: true, PX }`) rather than ioredis positional flags. */
  optionsObject: boolean;
}

/** `set(key, value, ...)`, `setnx(key, value)`, `call('SET', key, value, ...)`, `sendCommand(['SET', key, value, ...])`. */
export function readSetNx(call: TSESTree.CallExpression): SetNxSite | undefined {
  if (!isRedisSetNx(call)) return undefined;
  const args = call.arguments.filter((a): a is TSESTree.Expression => a.type !== AST_NODE_TYPES.SpreadElement);
  const method = calleeName(call) ?? '';
  if (/^(?:call|sendCommand|send_command)$/.test(method)) {
    const first = args[0];
    if (first?.type === AST_NODE_TYPES.ArrayExpression) {
      const [, key, value] = first.elements;
      if (!key || key.type === AST_NODE_TYPES.SpreadElement) return undefined;
      return { call, key, value: value && value.type !== AST_NODE_TYPES.SpreadElement ? value : undefined, optionsObject: false };
    }
    return args[1] ? { call, key: args[1], value: args[2], optionsObject: false } : undefined;
  }
  if (!args[0]) return undefined;
  return { call, key: args[0], value: args[1], optionsObject: args.slice(2).some((a) => unwrap(a).type === AST_NODE_TYPES.ObjectExpression) };
}

/** Source text of a key, with a `const` identifier replaced by the text it is initialised with. */
export function keyText(node: Node, sourceCode: SourceCode): string {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const variable = ASTUtils.findVariable(sourceCode.getScope(n), n.name);
    const def = variable?.defs[0];
    if (def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && def.node.id.type === AST_NODE_TYPES.Identifier) {
      return sourceCode.getText(def.node.init).replace(/\s+/g, '');
    }
  }
  return sourceCode.getText(n).replace(/\s+/g, '');
}

/** Whether a key expression names a lock by what it says: `lockKey`, `'lock:' + id`, `LOCK_PREFIX`. */
export function isLockNamedKey(node: Node, sourceCode: SourceCode): boolean {
  const text = sourceCode.getText(unwrap(node));
  if (LOCK_KEY_NAME.test(text)) return true;
  const literal = staticString(node);
  return literal !== undefined && LOCK_KEY_NAME.test(literal);
}

/**
 * What a SET NX is for, told by how it is used rather than by what it is called:
 *
 * - `lease`: a lock. It is taken with an expiry, its reply decides whether the caller goes on,
 *   and its value tells holders apart (an owner id), so a later holder can get the same key.
 * - `marker`: a once-only value. No expiry (nothing can lapse and pass to another holder), a
 *   reply nobody reads (nothing runs because of it), or a value that is a time or a constant
 *   (a "first change at" stamp, a "missing" cache entry, an idempotency gate): deleting it
 *   frees no one's lock, and nothing after it is a critical section.
 * - `primitive`: a store's set-if-absent whose key and value are both its function's
 *   parameters: the caller decides what it is for, so keys named alike in other functions of
 *   the store are not its keys.
 *
 * A key named as a lock (`lock:${id}`, `lockKey`) is a lease whatever the shape.
 */
export type SetNxPurpose = 'lease' | 'marker' | 'primitive';

const EXPIRY_FLAG = /^(?:ex|px|exat|pxat|keepttl)$/i;
const EXPIRY_OPTION = /^(?:ex|px|exat|pxat|keepttl|expiration|expires?|expiresIn|expireIn|ttl|ttl_?(?:ms|s|sec|seconds|millis|milliseconds))$/i;
/** A function named for taking a lock (`acquire`, `tryLock`, `claim`): what it sets is the lock, whatever the value. */
const ACQUIRE_FUNCTION = /^(?:acquire|lock|take|obtain|claim|grab|try(?:Acquire|Lock|Take|Claim))/i;
/** A function named for doing something once (`claimEventOnce`, `dedupeDelivery`): its claim is an idempotency gate, not a lock. */
const ONCE_FUNCTION = /once|idempot|dedup/i;
const RELEASING_FUNCTION = /release|unlock|free|relinquish|giveUp|yield/i;
const EXPIRE_CALL = /^(?:p?expire(?:at)?)$/i;

/** Whether the SET's options set an expiry; undefined when they cannot be read (a variable, a spread). */
function setsExpiry(site: SetNxSite): boolean | undefined {
  const method = calleeName(site.call) ?? '';
  let options: readonly Node[];
  if (/^(?:call|sendCommand|send_command)$/.test(method)) {
    const first = site.call.arguments[0];
    options = first?.type === AST_NODE_TYPES.ArrayExpression ? first.elements.slice(3).filter((e): e is TSESTree.Expression => e !== null && e.type !== AST_NODE_TYPES.SpreadElement) : site.call.arguments.slice(3);
  } else if (/^setnx$/i.test(method)) {
    return false;
  } else {
    options = site.call.arguments.slice(2);
  }
  let unreadable = false;
  for (const option of options) {
    const o = unwrap(option);
    const text = staticString(o);
    if (text !== undefined) {
      if (EXPIRY_FLAG.test(text)) return true;
      continue;
    }
    if (o.type === AST_NODE_TYPES.ObjectExpression) {
      for (const p of o.properties) {
        if (p.type !== AST_NODE_TYPES.Property) unreadable = true;
        else if (EXPIRY_OPTION.test(propertyKeyName(p) ?? '')) return true;
      }
      continue;
    }
    // A number after a flag (`'PX', ttl`) says nothing by itself; a variable or spread may hold flags.
    if (o.type === AST_NODE_TYPES.Identifier || o.type === AST_NODE_TYPES.SpreadElement || o.type === AST_NODE_TYPES.ArrayExpression) unreadable = true;
  }
  return unreadable ? undefined : false;
}

/**
 * The call's reply is thrown away: `await redis.set(...)` as a statement, `.catch(() => {})`
 * included, or one element of a `Promise.all([...])` whose result is thrown away in turn.
 */
export function replyDiscarded(call: TSESTree.CallExpression): boolean {
  let current: Node = call;
  for (;;) {
    const p: Node | undefined = current.parent;
    if (!p) return false;
    if (p.type === AST_NODE_TYPES.AwaitExpression || p.type === AST_NODE_TYPES.TSAsExpression || p.type === AST_NODE_TYPES.TSNonNullExpression || p.type === AST_NODE_TYPES.ChainExpression) {
      current = p;
      continue;
    }
    if (p.type === AST_NODE_TYPES.ArrayExpression && p.parent?.type === AST_NODE_TYPES.CallExpression && p.parent.arguments[0] === p && /^Promise\.(?:all|allSettled)$/.test(dottedName(p.parent.callee) ?? '')) {
      current = p.parent;
      continue;
    }
    if (p.type === AST_NODE_TYPES.MemberExpression && p.object === current && /^(?:catch|finally)$/.test(memberName(p) ?? '') && p.parent?.type === AST_NODE_TYPES.CallExpression && p.parent.callee === p) {
      current = p.parent;
      continue;
    }
    if (p.type === AST_NODE_TYPES.UnaryExpression && p.operator === 'void') return true;
    return p.type === AST_NODE_TYPES.ExpressionStatement;
  }
}

/** `Date.now()`, `new Date().toISOString()`, `String(Date.now())`: a reading of the clock, by the global's name. */
function isClockReading(node: Node, resolve: (id: TSESTree.Identifier) => Node | undefined, depth = 0): boolean {
  const n = unwrap(node);
  if (depth > 3) return false;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const init = resolve(n);
    return init !== undefined && isClockReading(init, resolve, depth + 1);
  }
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.expressions.length === 1 && n.quasis.every((q) => q.value.raw === '') && isClockReading(n.expressions[0], resolve, depth + 1);
  if (n.type !== AST_NODE_TYPES.CallExpression && n.type !== AST_NODE_TYPES.NewExpression) return false;
  const callee = unwrap(n.callee);
  // `new Date().toISOString()`, `Date.now().toString()`
  if (n.type === AST_NODE_TYPES.CallExpression && callee.type === AST_NODE_TYPES.MemberExpression && VALUE_KEEPING_METHODS.has(memberName(callee) ?? '') && isClockReading(callee.object, resolve, depth + 1)) return true;
  const dotted = dottedName(callee);
  if (!dotted) return false;
  if (n.type === AST_NODE_TYPES.CallExpression && VALUE_KEEPING_FUNCTIONS.has(dotted) && n.arguments[0]) return isClockReading(n.arguments[0], resolve, depth + 1);
  if (n.type === AST_NODE_TYPES.NewExpression) return dotted === 'Date' && n.arguments.length === 0;
  return GLOBAL_CLOCK_CALLS.get(dotted)?.kind === 'clock';
}

function dottedName(node: Node): string | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name;
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const name = memberName(n);
    const object = dottedName(n.object);
    return name && object ? `${object}.${name}` : undefined;
  }
  return undefined;
}

/**
 * A literal, a template without holes, or a `const` or readonly class constant holding one
 * (`Service.IN_FLIGHT`, `this.MARK`): the same value for every holder.
 */
function isConstant(node: Node, resolve: (id: TSESTree.Identifier) => Node | undefined, sourceCode?: SourceCode): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return true;
  if (staticString(n) !== undefined) return true;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const init = resolve(n);
    return init !== undefined && unwrap(init).type !== AST_NODE_TYPES.Identifier && isConstant(init, resolve);
  }
  if (n.type === AST_NODE_TYPES.MemberExpression && sourceCode) {
    const value = classConstantValue(n, sourceCode);
    return value !== undefined && (unwrap(value).type === AST_NODE_TYPES.Literal || staticString(unwrap(value)) !== undefined);
  }
  return false;
}

/** The names of the parameters of the function `node` is in. */
function parameterNames(node: Node): Set<string> {
  const names = new Set<string>();
  for (const param of enclosingFunction(node)?.params ?? []) {
    let p: Node = param.type === AST_NODE_TYPES.TSParameterProperty ? param.parameter : param;
    if (p.type === AST_NODE_TYPES.AssignmentPattern) p = p.left;
    if (p.type === AST_NODE_TYPES.Identifier) names.add(p.name);
  }
  return names;
}

/**
 * Built from the enclosing function's parameters and constant text only: `key`, `${ns}-${key}`,
 * `prefix + key`, also through a `const` of the function (`const prefixed = this.prefixKey(key)`), a
 * call that builds it from them (`this.prefixKey(key)`) and the instance's own settings (`this.prefix + key`).
 */
function madeOfParameters(node: Node, params: ReadonlySet<string>, resolve?: (id: TSESTree.Identifier) => Node | undefined, depth = 0): boolean {
  const n = unwrap(node);
  const made = (part: Node) => madeOfParameters(part, params, resolve, depth + 1);
  const fixed = (part: Node) => staticString(part) !== undefined || isInstanceSetting(part);
  if (n.type === AST_NODE_TYPES.Identifier) {
    if (params.has(n.name)) return true;
    const init = depth < 3 ? resolve?.(n) : undefined;
    return !!init && enclosingFunction(init) === enclosingFunction(n) && made(init);
  }
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.expressions.length > 0 && n.expressions.some(made) && n.expressions.every((e) => made(e) || fixed(e));
  if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') {
    const parts = [n.left, n.right];
    return parts.some(made) && parts.every((part) => made(part) || fixed(part));
  }
  if (n.type === AST_NODE_TYPES.CallExpression && depth < 3 && n.arguments.length > 0) {
    const callee = unwrap(n.callee);
    const helper = callee.type === AST_NODE_TYPES.Identifier || (callee.type === AST_NODE_TYPES.MemberExpression && unwrap(callee.object).type === AST_NODE_TYPES.ThisExpression);
    return helper && n.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && made(a)) && n.arguments.every((a) => a.type !== AST_NODE_TYPES.SpreadElement && (made(a) || fixed(a)));
  }
  return false;
}

/** `this.prefix`: a setting of the instance, the same for every call. */
function isInstanceSetting(node: Node): boolean {
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.MemberExpression && !n.computed && unwrap(n.object).type === AST_NODE_TYPES.ThisExpression;
}

/** What a SET NX is for (see `SetNxPurpose`). `calls`: the file's calls, to find a later `EXPIRE` of the key. */
export function setNxPurpose(site: SetNxSite, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): SetNxPurpose {
  if (isLockNamedKey(site.key, sourceCode) || LOCK_KEY_NAME.test(keyText(site.key, sourceCode))) return 'lease';
  const resolve = (id: TSESTree.Identifier) => constInitializer(id, sourceCode);
  const expiry = setsExpiry(site);
  // `acquire(key, ttl) { await store.set(key, '1', { canOverride: false, ttlMs }) }`: a store that
  // throws when the key exists needs no reply, and a constant value is exactly the release hazard.
  const named = functionName(enclosingFunction(site.call)) ?? '';
  if (expiry === true && ACQUIRE_FUNCTION.test(named) && !ONCE_FUNCTION.test(named)) return 'lease';
  if (expiry === false) {
    // `setnx(key, id)` then `expire(key, ttl)`: the expiry comes one command later.
    const text = keyText(site.key, sourceCode);
    const fn = enclosingFunction(site.call);
    const expiredLater = calls.some((c) => c.range[0] > site.call.range[1] && EXPIRE_CALL.test(calleeName(c) ?? '') && calleeObject(c) !== undefined && enclosingFunction(c) === fn && !!c.arguments[0] && keyText(c.arguments[0], sourceCode) === text);
    if (!expiredLater) return 'marker';
  }
  if (replyDiscarded(site.call)) return 'marker';
  if (site.value && (isConstant(site.value, resolve, sourceCode) || isClockReading(site.value, resolve))) return 'marker';
  const params = parameterNames(site.call);
  if (site.value && madeOfParameters(site.value, params, resolve) && madeOfParameters(site.key, params, resolve)) return 'primitive';
  return 'lease';
}

function functionName(fn: Node | undefined): string | undefined {
  if (!fn) return undefined;
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration) return fn.id?.name;
  const parent = fn.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) return parent.id.name;
  if ((parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.Property) && parent.key.type === AST_NODE_TYPES.Identifier) return parent.key.name;
  return undefined;
}

/**
 * Whether a key expression names the same key (or key family) in any function of the file, so
 * that the same text elsewhere is the same key: one built by a call, a template or a
 * concatenation (`this.keyFor(doc)`, `lock:${id}`), a fixed key (a string, a const bound to one,
 * an imported name: `LEADER_KEY`), or a property of the instance (`this.lockKey`). A bare name
 * bound per call (a parameter, a `let`) is the same key only where it is the same variable.
 */
export function fileWideKey(key: Node, sourceCode: SourceCode): boolean {
  let k = unwrap(key);
  if (k.type === AST_NODE_TYPES.Identifier) {
    if (ASTUtils.findVariable(sourceCode.getScope(k), k.name)?.defs[0]?.type === 'ImportBinding') return true;
    // `const redisKey = this.keyFor(id)`: the name stands for the key it is bound to.
    const init = constInitializer(k, sourceCode);
    if (init) k = unwrap(init);
  }
  if (staticString(k) !== undefined) return true;
  if (k.type === AST_NODE_TYPES.MemberExpression && !k.computed && unwrap(k.object).type === AST_NODE_TYPES.ThisExpression) return true;
  return k.type === AST_NODE_TYPES.CallExpression || (k.type === AST_NODE_TYPES.TemplateLiteral && k.expressions.length > 0) || (k.type === AST_NODE_TYPES.BinaryExpression && k.operator === '+');
}


/**
 * A lease taken in two steps: `if (await redis.get(key)) return;` then `redis.set(key, v, 'EX', ttl)`.
 * Not atomic (two callers can both pass the check), but a holder still goes on under an expiring
 * key, so what it writes is a late write when the key lapses. A cache fill has the same two steps,
 * so the key must say it is a lock: named as one, read into a lock-named variable, or deleted again
 * later in the same function (a cache entry is not freed by the code that filled it).
 */
export function readCheckedSet(call: TSESTree.CallExpression, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): SetNxSite | undefined {
  if (!/^set$/i.test(calleeName(call) ?? '') || isRedisSetNx(call) || !calleeObject(call)) return undefined;
  const [key, value] = call.arguments;
  if (!key || !value || key.type === AST_NODE_TYPES.SpreadElement || value.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const site: SetNxSite = { call, key, value, optionsObject: call.arguments.slice(2).some((a) => unwrap(a as Node).type === AST_NODE_TYPES.ObjectExpression) };
  if (setsExpiry(site) !== true) return undefined;
  const fn = enclosingFunction(call);
  const text = keyText(key, sourceCode);
  const sameKey = (c: TSESTree.CallExpression) => enclosingFunction(c) === fn && !!c.arguments[0] && c.arguments[0].type !== AST_NODE_TYPES.SpreadElement && keyText(c.arguments[0], sourceCode) === text;
  const check = [...calls].reverse().find((c) => c.range[1] <= call.range[0] && /^(?:get|exists)$/i.test(calleeName(c) ?? '') && !!calleeObject(c) && sameKey(c));
  if (!check) return undefined;
  const read = readInto(check);
  if (!guardsBetween(check, call, read, sourceCode)) return undefined;
  const lockNamed = isLockNamedKey(key, sourceCode) || LOCK_KEY_NAME.test(text) || (read !== undefined && LOCK_KEY_NAME.test(read));
  const freedLater = calls.some((c) => c.range[0] > call.range[1] && /^(?:del|unlink)$/i.test(calleeName(c) ?? '') && !!calleeObject(c) && sameKey(c));
  return lockNamed || freedLater ? site : undefined;
}

/** `const held = await redis.get(key)`: the variable the check's reply is kept in. */
function readInto(call: TSESTree.CallExpression): string | undefined {
  let current: Node = call;
  while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression)) current = current.parent;
  const parent = current.parent;
  return parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.init === current && parent.id.type === AST_NODE_TYPES.Identifier ? parent.id.name : undefined;
}

/** An `if` between the check and the set that reads the reply (or holds the check) and leaves when it is set. */
function guardsBetween(check: TSESTree.CallExpression, set: TSESTree.CallExpression, read: string | undefined, sourceCode: SourceCode): boolean {
  const fn = enclosingFunction(set);
  if (!fn || fn.body.type !== AST_NODE_TYPES.BlockStatement) return false;
  const readsReply = (test: Node) => {
    if (test.range[0] <= check.range[0] && check.range[1] <= test.range[1]) return true;
    if (test.range[0] < check.range[1]) return false;
    let found = false;
    if (read !== undefined) walk(test, sourceCode.visitorKeys, (n) => { found ||= n.type === AST_NODE_TYPES.Identifier && n.name === read; });
    return found;
  };
  const guarded = (statements: readonly TSESTree.Statement[]): boolean =>
    statements.some((statement) => {
      if (statement.range[1] <= check.range[0] || statement.range[0] >= set.range[0]) return false;
      if (statement.type === AST_NODE_TYPES.IfStatement) return readsReply(statement.test) && leaves(statement.consequent);
      if (statement.type === AST_NODE_TYPES.BlockStatement) return guarded(statement.body);
      if (statement.type === AST_NODE_TYPES.TryStatement) return guarded(statement.block.body);
      return false;
    });
  return guarded(fn.body.body);
}

/** A branch that ends the function: `return`, `throw`, or a block that ends with one. */
function leaves(node: TSESTree.Statement): boolean {
  if (node.type === AST_NODE_TYPES.ReturnStatement || node.type === AST_NODE_TYPES.ThrowStatement) return true;
  if (node.type === AST_NODE_TYPES.BlockStatement) {
    const last = node.body[node.body.length - 1];
    return !!last && leaves(last);
  }
  return false;
}

export class RedisLockKeys {
  /** Every SET NX of the file, whatever it is for. */
  readonly sites: SetNxSite[] = [];
  /** The SET NX sites that take leases (see `setNxPurpose`). */
  readonly leases: SetNxSite[] = [];
  private readonly byText = new Map<string, SetNxSite>();
  private dataKeys: Set<string> | undefined;

  constructor(
    private readonly calls: readonly TSESTree.CallExpression[],
    private readonly sourceCode: SourceCode,
  ) {
    for (const call of calls) {
      const checked = readCheckedSet(call, calls, sourceCode);
      if (checked) {
        // A GET check then SET with an expiry: a lease whatever it is named (see `readCheckedSet`).
        this.leases.push(checked);
        this.byText.set(keyText(checked.key, sourceCode), checked);
        continue;
      }
      const site = readSetNx(call);
      if (!site) continue;
      this.sites.push(site);
      // Markers and store primitives take no lock: their keys are not lock keys.
      if (setNxPurpose(site, calls, sourceCode) !== 'lease') continue;
      this.leases.push(site);
      this.byText.set(keyText(site.key, sourceCode), site);
    }
  }

  /** The SET NX lease that took this key, when the key is written the same way (directly or through a const). */
  setNxOf(key: Node): SetNxSite | undefined {
    const site = this.byText.get(keyText(key, this.sourceCode));
    // `key` as a parameter of two functions names whatever each caller passes: the same text is the
    // same key only for the function that gives the lock back (`release(key)`), not for a cache read.
    if (site && this.isParameter(key) && enclosingFunction(site.call) !== enclosingFunction(key) && !RELEASING_FUNCTION.test(functionName(enclosingFunction(key)) ?? '')) return undefined;
    return site;
  }

  private isParameter(node: Node): boolean {
    const n = unwrap(node);
    if (n.type !== AST_NODE_TYPES.Identifier) return false;
    return ASTUtils.findVariable(this.sourceCode.getScope(n), n.name)?.defs[0]?.type === 'Parameter';
  }

  /**
   * A key this file uses as a list, set, hash, sorted set or stream (`RPUSH`, `LRANGE`, `HSET`...):
   * data, not a lock, whatever its name says (`locked_payments_for_<user>`).
   */
  isDataKey(key: Node): boolean {
    if (!this.dataKeys) {
      this.dataKeys = new Set();
      for (const call of this.calls) {
        const first = call.arguments[0];
        if (first && first.type !== AST_NODE_TYPES.SpreadElement && calleeObject(call) && REDIS_DATA_COMMAND.test(calleeName(call) ?? '')) this.dataKeys.add(keyText(first, this.sourceCode));
      }
    }
    return this.dataKeys.has(keyText(key, this.sourceCode));
  }

  /** A key taken with a SET NX lease in this file, or a lock-named key. */
  isLockKey(key: Node): boolean {
    return this.setNxOf(key) !== undefined || isLockNamedKey(key, this.sourceCode);
  }
}
