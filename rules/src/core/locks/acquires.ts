/**
 * Finds where a lock is taken and how far its critical section reaches: from the acquire to
 * the release of the same handle, or the body of the callback that runs under the lock.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import {
  afterExit,
  calleeName,
  calleeObject,
  constInitializer,
  contains,
  enclosingFunction,
  isFunctionNode,
  memberName,
  propertyKeyName,
  staticString,
  unwrap,
  type FunctionNode,
  type Node,
} from '../ast.js';
import {
  ADVISORY_LOCK_ADVICE,
  CUSTOM_ADVICE,
  CUSTOM_AUTHORITY_ACQUIRE,
  LOCK_NAMED_ACQUIRE,
  CUSTOM_CALLBACK_ACQUIRE,
  GENERIC_RELEASE_METHOD,
  LOCK_KEY_NAME,
  LOCK_RECEIVER_NAME,
  REDIS_SET_NX_ADVICE,
  ETCD_CLAIM_ADVICE,
  WITH_LOCK_FUNCTION,
  LEASE_TABLE_ADVICE,
  leaseTableWritten,
  type CallbackMethod,
  type LockModel,
} from '../models/locks.js';
import { isHandleTokenName, isStrongTokenName } from '../models/token-names.js';
import { advisoryLockIn, connectionOf, endsTransaction, sqlTextOf, type AdvisoryLock } from './advisory-scope.js';
import { receiverKey, type ReceiverTable } from '../modules/receivers.js';
import { keyArgument, sameKeyValues } from '../modules/param-sources.js';
import { isLockNamedKey, keyText, readCheckedSet, readSetNx, replyDiscarded, setNxPurpose } from './redis-locks.js';
import { leaseRowTaken } from './lease-rows.js';
import { etcdClaimKey } from './etcd-claims.js';
import { type AcquireSummary, type FunctionSummary, type ReleaseSummary, type SourceLocation } from '../modules/summaries.js';
import { codeSpan, fileLabel, shorten } from '../message-text.js';
import { handedOverSections } from './handed-over.js';
import { sectionExitEnd } from './section-exits.js';
import { untakenBranches } from './untaken-branches.js';

export interface AcquireSite {
  id: number;
  /** The acquire call (or, for SQL advisory locks, the query: a call or a tagged template). */
  node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  /** Model id: 'redlock', 'etcd3', 'redis-set-nx', 'redis-get-set' (a GET check, then SET with an expiry), 'pg-advisory-lock', 'custom', or a user model id. */
  library: string;
  /** Text key of the handle the acquire resolves to (`lock`, `this.lease`), when it is bound. */
  handleKey?: string;
  /** Text key of the authority the acquire was called on. */
  authorityKey?: string;
  /** For `const { fenceToken: t } = await acquire()`: property -> local name. */
  destructured: Map<string, string>;
  /** Handle properties known to hold a fence token. */
  tokenProperties: string[];
  /** Where a real fence token can come from, for messages when none is in scope. */
  advice: string;
  /** The function (or callback) the critical section lives in. */
  scope: FunctionNode | TSESTree.Program;
  /** Source range of the critical section within `scope`. */
  range: TSESTree.Range;
  /**
   * Branches inside `range` that run only when a try-lock was not taken (`if (!acquired) {...}`):
   * no lock is held there. Ask `inSection` (untaken-branches.ts) rather than `range` alone.
   */
  gaps?: TSESTree.Range[];
  /** The call that ends the critical section, if found. */
  release?: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  /** For PostgreSQL advisory locks: the exact function, its scope and its connection. */
  advisory?: AdvisoryLock;
  /** For SET NX locks: the source text of the key, to match its release; for lease tables, the table. */
  lockKeyText?: string;
  /** How messages name the acquire, as Markdown: `` `redlock.acquire` ``, `` a `job_leases` row ``. */
  label: string;
  /** A lock taken inside a project helper (`withLock`, `acquireLock`): the lock inside, in its module. */
  origin?: AcquireSummary;
  /** From this call down to the lock inside the helper, across files (for code flows). */
  flow?: SourceLocation[];
  /** The text of the argument that names the lock, for a helper whose release names it too. */
  keyArgText?: string;
  /** The value a script's claim is on (bound to its `KEYS[k]`), when the key is no argument of the call itself. */
  keyNode?: Node;
  /** A callback acquire whose callback is not a function of this file (a parameter, an import): that argument. */
  callbackArgument?: Node;
  /**
   * An advisory lock a helper took on one connection or transaction (`lockChat(trx, id)`): the
   * receiver key of that connection here. Writes on it commit with the lock held.
   */
  lockedSession?: { key: string; scope: 'transaction' | 'session' };
  /** The lock was taken elsewhere and handed to this function, which releases it (`node` is that release). */
  handedOver?: boolean;
  /**
   * The handle is bound with `using` / `await using`: disposed, and so released, where the block
   * that declares it ends. The lock never outlives the function that took it.
   */
  disposed?: boolean;
}

/** Whether the lock is given back in the function that took it: by a release call or by disposal. */
export function releasedInPlace(site: AcquireSite): boolean {
  return site.release !== undefined || site.disposed === true;
}

const NO_OVERWRITE_OPTION = /^(?:canOverride|canOverwrite|overwrite|override|replace|replaceExisting)$/i;
const IF_ABSENT_OPTION = /^(?:ifNotExists?|onlyIfAbsent|ifAbsent|onlyIfNotExists|notExists?)$/i;

function isNxFlag(node: Node): boolean {
  const n = unwrap(node);
  const text = staticString(n);
  if (text !== undefined) return text.toUpperCase() === 'NX';
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    return n.properties.some((p) => {
      if (p.type !== AST_NODE_TYPES.Property) return false;
      const name = propertyKeyName(p) ?? '';
      const literal = p.value.type === AST_NODE_TYPES.Literal ? p.value.value : undefined;
      // A key-value store's own set-if-absent: `{ canOverride: false }`, `{ overwrite: false }`, `{ ifNotExists: true }`.
      if (NO_OVERWRITE_OPTION.test(name)) return literal === false;
      // node-redis v5: `{ condition: 'NX', expiration: { type: 'PX', value } }`.
      if (name === 'condition') return typeof literal === 'string' && literal.toUpperCase() === 'NX';
      return (/^nx$/i.test(name) && literal !== false) || (IF_ABSENT_OPTION.test(name) && literal === true);
    });
  }
  if (n.type === AST_NODE_TYPES.ArrayExpression) return n.elements.some((e) => e !== null && e.type !== AST_NODE_TYPES.SpreadElement && isNxFlag(e));
  return false;
}

/** `redis.set(key, id, 'PX', ttl, 'NX')`, `client.set(key, id, { NX: true, PX })` (v5: `{ condition: 'NX' }`), `setnx`, `call('SET', ..., 'NX')`. */
export function isRedisSetNx(call: TSESTree.CallExpression): boolean {
  const method = calleeName(call);
  if (!method) return false;
  if (/^setnx$/i.test(method)) return true;
  if (/^set$/i.test(method)) return call.arguments.slice(2).some(isNxFlag);
  if (/^(?:call|sendCommand|send_command)$/.test(method)) {
    const first = call.arguments[0];
    if (first && first.type === AST_NODE_TYPES.ArrayExpression) {
      const head = first.elements[0];
      return !!head && head.type !== AST_NODE_TYPES.SpreadElement && staticString(head)?.toUpperCase() === 'SET' && isNxFlag(first);
    }
    return !!first && staticString(first)?.toUpperCase() === 'SET' && call.arguments.slice(3).some(isNxFlag);
  }
  return false;
}

/** The text of the first string-ish argument of a SQL-looking call, cheaply, without parsing. */
function sqlHead(call: TSESTree.CallExpression): string | undefined {
  const first = call.arguments[0];
  if (!first) return undefined;
  const n = unwrap(first);
  if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') return n.value;
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.quasis.map((q) => q.value.raw).join(' ');
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    for (const p of n.properties) {
      if (p.type === AST_NODE_TYPES.Property && /^(?:text|sql)$/.test(propertyKeyName(p) ?? '')) {
        const v = unwrap(p.value);
        if (v.type === AST_NODE_TYPES.Literal && typeof v.value === 'string') return v.value;
        if (v.type === AST_NODE_TYPES.TemplateLiteral) return v.quasis.map((q) => q.value.raw).join(' ');
      }
    }
  }
  return undefined;
}

const ADVISORY_UNLOCK = /\bpg_advisory_unlock(?:_all|_shared)?\s*\(/i;

/**
 * Where the awaited result of a call is bound: `const x = await call`, `x = await call`, also as
 * the fallback of a handle handed in (`const release = options?.release ?? (await acquire(k))`) or
 * an arm of `?:`: when this call runs, the binding holds its handle.
 */
function bindingOf(call: Node): TSESTree.VariableDeclarator | TSESTree.AssignmentExpression | undefined {
  let current: Node = call;
  for (;;) {
    const parent: Node | undefined = current.parent;
    if (!parent) break;
    const wraps = parent.type === AST_NODE_TYPES.AwaitExpression || parent.type === AST_NODE_TYPES.TSAsExpression || parent.type === AST_NODE_TYPES.TSNonNullExpression;
    const fallback = parent.type === AST_NODE_TYPES.LogicalExpression && (parent.operator === '??' || parent.operator === '||') && parent.right === current;
    const arm = parent.type === AST_NODE_TYPES.ConditionalExpression && parent.test !== current;
    if (!wraps && !fallback && !arm) break;
    current = parent;
  }
  const parent = current.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.init === current) return parent;
  if (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.right === current) return parent;
  return undefined;
}

/** `await using lock = await acquire(...)`: the block whose end disposes of the handle. */
function disposingBlock(binding: TSESTree.VariableDeclarator | TSESTree.AssignmentExpression | undefined): Node | undefined {
  const declaration = binding?.type === AST_NODE_TYPES.VariableDeclarator ? binding.parent : undefined;
  if (declaration?.type !== AST_NODE_TYPES.VariableDeclaration) return undefined;
  const kind: string = declaration.kind;
  return kind === 'using' || kind === 'await using' ? declaration.parent : undefined;
}

function callbackArgument(call: TSESTree.CallExpression, spec: CallbackMethod): FunctionNode | undefined {
  if (!namesEvent(call, spec)) return undefined;
  const index = spec.callbackArg < 0 ? call.arguments.length + spec.callbackArg : spec.callbackArg;
  const arg = call.arguments[index];
  return arg && isFunctionNode(arg) ? arg : undefined;
}

/** A listener model (`on('elected', cb)`) matches only the call that names its event. */
function namesEvent(call: TSESTree.CallExpression, spec: CallbackMethod): boolean {
  if (spec.event === undefined) return true;
  const first = call.arguments[0];
  return first !== undefined && first.type !== AST_NODE_TYPES.SpreadElement && staticString(first) === spec.event;
}

/** `acquire(...).then((lock) => { ... })`: the callback that runs with the handle. */
function thenCallback(call: TSESTree.CallExpression): FunctionNode | undefined {
  const parent = call.parent;
  if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === call && calleeNameOfMember(parent) === 'then') {
    const outer = parent.parent;
    if (outer?.type === AST_NODE_TYPES.CallExpression && outer.callee === parent) {
      const cb = outer.arguments[0];
      if (cb && isFunctionNode(cb)) return cb;
    }
  }
  return undefined;
}

function calleeNameOfMember(member: TSESTree.MemberExpression): string | undefined {
  return !member.computed && member.property.type === AST_NODE_TYPES.Identifier ? member.property.name : undefined;
}

function bodyRange(fn: FunctionNode | TSESTree.Program): TSESTree.Range {
  return fn.type === AST_NODE_TYPES.Program ? fn.range : fn.body.range;
}

interface Candidate {
  library: string;
  advice: string;
  model?: LockModel;
  callback?: FunctionNode;
  /** The handle is the receiver itself (lock objects, redis-semaphore mutexes). */
  selfHandle?: boolean;
  lockKeyText?: string;
  keyNode?: Node;
  /** Custom authorities count only when the result is used as a token-carrying handle or the receiver says "lock". */
  custom?: boolean;
  /** Only when the result carries a token: a project method that takes no lock we can see (a remote authority's client). */
  tokenRequired?: boolean;
  /** Taken through a project helper whose summary says so. */
  summary?: AcquireSummary;
  /** For a summarised callback acquire: the callback argument, when it is no function of this file. */
  callbackArgument?: Node;
  advisory?: Omit<AdvisoryLock, 'connection'>;
  /** The call resolves to a tuple whose element at this index is the handle (`const [ok, release] = await tryLock(...)`). */
  handleIndex?: number;
}

export interface AcquireFinderInput {
  calls: readonly TSESTree.CallExpression[];
  /** Tagged templates (postgres.js `sql`, Prisma `$executeRaw`): advisory locks taken through them. */
  taggedTemplates?: readonly TSESTree.TaggedTemplateExpression[];
  receivers: ReceiverTable;
  sourceText: (node: Node) => string;
  /** Member names read off each receiver key anywhere in the file (`lease.fenceToken` -> lease: {fenceToken}). */
  membersRead: ReadonlyMap<string, ReadonlySet<string>>;
  program: TSESTree.Program;
  /** The summary of the project function a call invokes (another module's lock helper), if any. */
  summaryOf?: (call: TSESTree.CallExpression) => FunctionSummary | undefined;
  /** A same-file function by name, for callbacks passed by name (`withLock(key, flush)`). */
  functionNamed?: (name: string) => FunctionNode | undefined;
  /** The same-file function a call invokes, if any: its body, not its name, says what it takes. */
  localCallee?: (call: TSESTree.CallExpression) => FunctionNode | undefined;
  /** Whether a receiver is an in-process lock held by another module's class (`activeDoc.triggersLock`). */
  isInProcessLock?: (node: Node) => boolean;
  /** Where a node of this file is, in the shape summaries use. */
  locationOf?: (node: Node) => SourceLocation;
  /** The file, to tell a SET NX lease from a once-only marker by its key and value. */
  sourceCode?: SourceCode;
  /** The key a Lua script run by the call claims with an expiry (`SETNX` then `EXPIRE`), if it claims one. */
  scriptClaimKey?: (call: TSESTree.CallExpression) => Node | undefined;
  /**
   * Only the sections' ranges and their order are read (the lock-first pass that orders the module
   * graph's budget): labels, flows, locked sessions and untaken branches are left out.
   */
  sectionsOnly?: boolean;
}

/** A lock taken through a project helper, as its summary describes it. */
function classifySummarised(call: TSESTree.CallExpression, acquire: AcquireSummary, input: AcquireFinderInput): Candidate | undefined {
  const base: Candidate = { library: acquire.library, advice: acquire.advice, summary: acquire };
  // A decorator factory locks only the method it decorates; called elsewhere it runs nothing.
  if (acquire.decorates) {
    const member = call.parent?.type === AST_NODE_TYPES.Decorator ? call.parent.parent : undefined;
    return member?.type === AST_NODE_TYPES.MethodDefinition && isFunctionNode(member.value) ? { ...base, callback: member.value } : undefined;
  }
  if (acquire.style !== 'callback' || acquire.callbackArg === undefined) return base;
  const index = acquire.callbackArg < 0 ? call.arguments.length + acquire.callbackArg : acquire.callbackArg;
  let arg: Node | undefined = call.arguments[index];
  if (acquire.callbackProperty !== undefined) {
    // The callback is one property of an options object; without one written here, nothing runs under the lock from this call.
    const options = arg && unwrap(arg);
    const property = options?.type === AST_NODE_TYPES.ObjectExpression
      ? options.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === acquire.callbackProperty)
      : undefined;
    if (!property) return undefined;
    arg = unwrap(property.value);
    const bound = arg.type === AST_NODE_TYPES.CallExpression && memberName(unwrap(arg.callee)) === 'bind' ? calleeObject(arg) : undefined;
    const key = bound ? receiverKey(bound) : arg.type === AST_NODE_TYPES.MemberExpression ? receiverKey(arg) : undefined;
    const callback = isFunctionNode(arg) ? arg : key ? input.functionNamed?.(key) : undefined;
    if (callback) return { ...base, callback };
    // `runFunc: importPayments`: a function of another module runs under the lock, elsewhere.
    return arg.type === AST_NODE_TYPES.Identifier || arg.type === AST_NODE_TYPES.MemberExpression ? { ...base, callbackArgument: arg } : undefined;
  }
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return { ...base, callbackArgument: call };
  const callback = isFunctionNode(arg) ? arg : arg.type === AST_NODE_TYPES.Identifier ? input.functionNamed?.(arg.name) : undefined;
  return callback ? { ...base, callback } : { ...base, callbackArgument: arg };
}

/**
 * The callback a lock-named helper runs: its last function argument, written inline or kept in a
 * variable of this file first (`const runCritical = async () => {...}; withLock(key, runCritical)`).
 */
function lastCallback(call: TSESTree.CallExpression, input: AcquireFinderInput): FunctionNode | undefined {
  for (let i = call.arguments.length - 1; i >= 0; i--) {
    const arg = call.arguments[i];
    if (isFunctionNode(arg)) return arg;
    if (arg.type === AST_NODE_TYPES.Identifier) {
      const named = input.functionNamed?.(arg.name);
      if (named) return named;
    }
  }
  return undefined;
}

/**
 * A set-if-absent helper of the project called to mark something once, as a `SET NX` written here
 * would be (see `setNxPurpose`): handed a constant value (`setIfAbsent(key, '1')`), or its reply,
 * which the helper hands back, dropped (`await acquire(CACHE_KEY, rows, ttl);` as a statement, or
 * inside a `Promise.all` whose result is dropped). A key named as a lock keeps it a lease.
 */
function marksOnce(call: TSESTree.CallExpression, acquire: AcquireSummary, input: AcquireFinderInput): boolean {
  const value = acquire.valueArg !== undefined ? call.arguments[acquire.valueArg] : undefined;
  const constant = value !== undefined && value.type !== AST_NODE_TYPES.SpreadElement && isConstantValue(value);
  if (!constant && !(acquire.returnsReply && replyDiscarded(call))) return false;
  const key = keyArgument(call.arguments, acquire.keyArg, acquire.keyProperty);
  if (!key) return true;
  return !(input.sourceCode ? isLockNamedKey(key, input.sourceCode) || LOCK_KEY_NAME.test(keyText(key, input.sourceCode)) : LOCK_KEY_NAME.test(input.sourceText(key)));
}

/** A lock model's method decorator, imported from its package: the decorated method is the section. */
function lockDecorator(call: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const member = call.parent?.parent;
  if (member?.type !== AST_NODE_TYPES.MethodDefinition || !isFunctionNode(member.value)) return undefined;
  const binding = input.receivers.importOf(unwrap(call.callee));
  if (!binding) return undefined;
  const model = input.receivers.models.find((m) => m.methodDecorators?.includes(binding.exported) && m.packages.includes(binding.source));
  return model && { library: model.id, advice: model.tokenAdvice, model, callback: member.value };
}

/** A call of a lock model's acquire function, imported from its package (also through a namespace). */
function libraryAcquireFunction(call: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.Identifier && callee.type !== AST_NODE_TYPES.MemberExpression) return undefined;
  const binding = input.receivers.importOf(callee);
  if (!binding) return undefined;
  for (const model of input.receivers.models) {
    if (!model.acquireFunctions || !model.packages.includes(binding.source)) continue;
    const fn = model.acquireFunctions.find((f) => f.name === binding.exported);
    if (fn) return { library: model.id, advice: model.tokenAdvice, model, handleIndex: fn.handleIndex };
  }
  return undefined;
}

/**
 * A call of a const bound to a lock model's acquire method made promise-returning by Node's
 * `promisify` (`const acquireLock = promisify(lockClient.acquireLock.bind(lockClient))`, also
 * `util.promisify(x.m).bind(x)`): it resolves to the handle the callback would have been given.
 */
function promisifiedAcquire(call: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.Identifier || !input.sourceCode) return undefined;
  let n: Node | undefined = constInitializer(callee, input.sourceCode);
  let promisified = false;
  for (let i = 0; i < 4 && n; i++) {
    const u: Node = unwrap(n);
    if (u.type !== AST_NODE_TYPES.CallExpression) {
      n = u;
      break;
    }
    const name = calleeName(u);
    if (name === 'promisify') {
      promisified = true;
      n = u.arguments[0];
    } else if (name === 'bind') n = calleeObject(u);
    else return undefined;
  }
  const member = n && unwrap(n);
  if (!promisified || member?.type !== AST_NODE_TYPES.MemberExpression) return undefined;
  const method = memberName(member);
  const kind = method ? input.receivers.kindOf(member.object) : undefined;
  if (kind?.type !== 'authority') return undefined;
  const { model } = kind;
  const acquires = model.acquire.includes(method!) || model.acquireWithCallback.some((c) => c.method === method);
  return acquires ? { library: model.id, advice: model.tokenAdvice, model } : undefined;
}

/**
 * A call of the lock function a model's factory made (`const lock = require('redis-lock')(client)`,
 * possibly `promisify`d): with a function as last argument that function is the section, else the
 * call resolves to the release function.
 */
function madeLockFunction(call: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.Identifier || !input.sourceCode) return undefined;
  let n: Node | undefined = constInitializer(callee, input.sourceCode);
  for (let i = 0; i < 3 && n; i++) {
    const u: Node = unwrap(n);
    if (u.type === AST_NODE_TYPES.CallExpression && calleeName(u) === 'promisify') n = u.arguments[0];
    else break;
  }
  const made = n && unwrap(n);
  if (made?.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const factory = unwrap(made.callee);
  const binding = factory.type === AST_NODE_TYPES.CallExpression ? requiredPackage(factory) : input.receivers.importOf(factory);
  if (!binding) return undefined;
  const model = input.receivers.models.find((m) => m.lockFunctionFactories?.includes(binding.exported) && m.packages.includes(binding.source));
  if (!model) return undefined;
  const last = call.arguments[call.arguments.length - 1];
  const callback = last && isFunctionNode(last) ? last : undefined;
  return { library: model.id, advice: model.tokenAdvice, model, callback };
}

/** `require('pkg')` called in place: the package's whole export. */
function requiredPackage(call: TSESTree.CallExpression): { source: string; exported: string } | undefined {
  const callee = unwrap(call.callee);
  const arg = call.arguments[0];
  if (callee.type !== AST_NODE_TYPES.Identifier || callee.name !== 'require' || arg?.type !== AST_NODE_TYPES.Literal || typeof arg.value !== 'string') return undefined;
  return { source: arg.value, exported: '*' };
}

/** A literal (`'1'`, `1`, `true`) or a template without expressions. */
function isConstantValue(node: Node): boolean {
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.Literal || (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0);
}

/** Every method a lock model acquires with or makes a lock object with, per list of models. */
const lockMethodsOf = new WeakMap<readonly LockModel[], ReadonlySet<string>>();
function lockMethodNames(models: readonly LockModel[]): ReadonlySet<string> {
  let names = lockMethodsOf.get(models);
  if (!names) {
    names = new Set(models.flatMap((m) => [...m.acquire, ...m.acquireWithCallback.map((c) => c.method), ...m.lockFactory, ...m.objectAcquire, ...m.objectAcquireWithCallback.map((c) => c.method)]));
    lockMethodsOf.set(models, names);
  }
  return names;
}

/**
 * A project function that declares no parameters, is handed arguments and does nothing a summary
 * sees: a placeholder a client facade starts with (`let kv = { set: () => Promise.resolve(null) }`,
 * replaced by the real client's methods once connected). What the call does is read off its own
 * shape (`kv.set(key, v, { NX: true, PX: ttl })`), as for a receiver nothing resolves.
 */
function isPlaceholder(summary: FunctionSummary, call: TSESTree.CallExpression): boolean {
  return summary.params.length === 0 && call.arguments.length > 0 && !summary.acquire && summary.releases.length === 0 && summary.writes.length === 0;
}

/** What lock, if any, this call takes. */
function classify(call: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const method = calleeName(call);
  const object = calleeObject(call);
  // `super({ onFlush })`: a base class that runs what it is handed under its lock.
  if (call.callee.type === AST_NODE_TYPES.Super) {
    const acquire = input.summaryOf?.(call)?.acquire;
    return acquire ? classifySummarised(call, acquire, input) : undefined;
  }
  // `withLock(name)(async () => ...)`: the call made on what a lock factory returns.
  const calledResult = unwrap(call.callee);
  if (calledResult.type === AST_NODE_TYPES.CallExpression) return curriedAcquire(call, calledResult, input);
  if (!method) return undefined;

  // A project function we could read: its summary says whether it takes a lock, whatever its name.
  // (Unless the settings declare the receiver: the user's model of it wins.)
  const summary = object && input.receivers.isDeclared(object) ? undefined : input.summaryOf?.(call);
  // `this.store.set(key, '1', { NX: true, PX })` on a project wrapper that hands its options on to
  // Redis (`args.push('NX')`, then `redis.set(key, value, ...args)`): the caller's NX is the lock.
  const forwardsSetNx = !!summary && !summary.acquire && isRedisSetNx(call) && summary.writes.some((w) => w.keyValue === true);
  if (summary && !summary.partial && !isPlaceholder(summary, call) && !forwardsSetNx) {
    // A client of a remote authority (`acquire(key)` POSTs to a lease service): no lock inside that
    // we can see, but a lease when its result carries a fence token, as when it cannot be read.
    if (!summary.acquire) return object && CUSTOM_AUTHORITY_ACQUIRE.test(method) ? { library: 'custom', advice: CUSTOM_ADVICE, custom: true, tokenRequired: true } : undefined;
    if (marksOnce(call, summary.acquire, input)) return undefined;
    // A lock factory takes nothing until what it returns is called.
    if (summary.acquire.curried) return undefined;
    return classifySummarised(call, summary.acquire, input);
  }

  // A library function that takes the lock itself: `const release = await lock(redis, key)`.
  const fnAcquire = libraryAcquireFunction(call, input) ?? promisifiedAcquire(call, input) ?? madeLockFunction(call, input);
  if (fnAcquire) return fnAcquire;
  // `@Redlock(['k'], 5000) async save() {...}`: the method runs under the lock.
  if (call.parent?.type === AST_NODE_TYPES.Decorator) return lockDecorator(call, input);

  // `SELECT pg_advisory_lock(...)` through any SQL client, knex's `trx.raw(...)` included.
  const head = sqlHead(call);
  const advisory = head ? advisoryLockIn(head) : undefined;
  if (advisory) return { library: 'pg-advisory-lock', advice: ADVISORY_LOCK_ADVICE, advisory };

  if (object) {
    // Only a method named like an acquire is worth asking the module graph what a receiver is.
    const lockish = lockMethodNames(input.receivers.models).has(method) || WITH_LOCK_FUNCTION.test(method) || CUSTOM_CALLBACK_ACQUIRE.test(method) || CUSTOM_AUTHORITY_ACQUIRE.test(method);
    const kind = lockish ? input.receivers.kindOf(object) : input.receivers.knownKindOf(object);
    if (kind?.type === 'local') return undefined;
    // knex takes no lock of its own, but SQL text it sends (`db.raw('UPDATE job_leases SET holder = ?')`) may claim a lease row.
    if (kind?.type === 'knex') return leaseTableClaim(head);
    if (!kind && input.isInProcessLock?.(object)) return undefined;
    if (kind?.type === 'authority') {
      const { model } = kind;
      if (model.acquire.includes(method) && !callbackFor(model.acquireWithCallback, method, call)) {
        return { library: model.id, advice: model.tokenAdvice, model };
      }
      const cbSpec = callbackFor(model.acquireWithCallback, method, call);
      if (cbSpec) return { library: model.id, advice: model.tokenAdvice, model, callback: callbackArgument(call, cbSpec) };
      return passedCallback(model.acquireWithCallback, method, call, input, { library: model.id, advice: model.tokenAdvice, model });
    }
    if (kind?.type === 'lockObject') {
      const { model } = kind;
      if (model.objectAcquire.includes(method) && !callbackFor(model.objectAcquireWithCallback, method, call)) return { library: model.id, advice: model.tokenAdvice, model, selfHandle: true };
      const cbSpec = callbackFor(model.objectAcquireWithCallback, method, call);
      if (cbSpec) return { library: model.id, advice: model.tokenAdvice, model, callback: callbackArgument(call, cbSpec) };
      return passedCallback(model.objectAcquireWithCallback, method, call, input, { library: model.id, advice: model.tokenAdvice, model });
    }
    // etcd: a key put under a lease only while it does not exist yet, in one transaction.
    const etcdKey = method === 'commit' ? etcdClaimKey(call, input.receivers, input.sourceText) : undefined;
    if (etcdKey) return { library: 'etcd-claim', advice: ETCD_CLAIM_ADVICE, lockKeyText: input.sourceText(etcdKey), keyNode: etcdKey };
    // SET NX is a lock whatever the client, unless it only marks something once (see `setNxPurpose`).
    if (isRedisSetNx(call)) {
      const site = input.sourceCode ? readSetNx(call) : undefined;
      if (site && setNxPurpose(site, input.calls, input.sourceCode!) === 'marker') return undefined;
      return { library: 'redis-set-nx', advice: REDIS_SET_NX_ADVICE, lockKeyText: call.arguments[0] && input.sourceText(call.arguments[0]) };
    }
    // A script that sets the key only if absent and gives it an expiry (a set-if-absent-or-get primitive).
    const claimed = input.scriptClaimKey?.(call);
    if (claimed) return { library: 'redis-set-nx', advice: REDIS_SET_NX_ADVICE, lockKeyText: input.sourceText(claimed), keyNode: claimed };
    // `if (await redis.get(key)) return; await redis.set(key, v, 'EX', ttl)`: a lease taken in two steps.
    if ((!kind || kind.type === 'redis') && input.sourceCode && readCheckedSet(call, input.calls, input.sourceCode)) {
      return { library: 'redis-get-set', advice: REDIS_SET_NX_ADVICE, lockKeyText: call.arguments[0] && input.sourceText(call.arguments[0]) };
    }
    if (kind?.type === 'redis') return undefined;
  }

  const leaseTable = leaseTableClaim(head);
  if (leaseTable) return leaseTable;
  // The same, through knex or a document API: `db('job_leases').update({ owner: me, ... })`.
  const leaseRow = leaseRowTaken(call, input.receivers, input.sourceCode);
  if (leaseRow) return { library: 'sql-lease-table', advice: LEASE_TABLE_ADVICE, lockKeyText: leaseRow.toLowerCase() };
  // `withLock(key, async () => { ... })`: the helper's name says the callback runs under a lock.
  if (WITH_LOCK_FUNCTION.test(method) && !wrapsInProcessLock(call, input)) {
    const cb = lastCallback(call, input);
    if (cb) return { library: 'custom', advice: CUSTOM_ADVICE, callback: cb };
  }
  if (!object) return undefined;

  // Last resort: a user's own lock service, recognised by shape. The method rules out most calls
  // before the receiver's name is built.
  const callbackAcquire = CUSTOM_CALLBACK_ACQUIRE.test(method);
  if (callbackAcquire || method === 'using') {
    const lastName = (receiverKey(object) ?? '').split('.').pop() ?? '';
    if (callbackAcquire && LOCK_RECEIVER_NAME.test(lastName)) {
      const cb = lastCallback(call, input);
      if (cb) return { library: 'custom', advice: CUSTOM_ADVICE, callback: cb };
    }
    if (method === 'using' && /redlock/i.test(lastName)) {
      const cb = call.arguments[call.arguments.length - 1];
      if (cb && isFunctionNode(cb)) return { library: 'redlock', advice: CUSTOM_ADVICE, callback: cb };
    }
  }
  if (CUSTOM_AUTHORITY_ACQUIRE.test(method)) return { library: 'custom', advice: CUSTOM_ADVICE, custom: true };
  return undefined;
}

/**
 * `factory(args)(callback)`: a project function whose summary says it returns a function that runs
 * its argument under a lock, or, when the factory cannot be read, one named for it (`withLock(key)`)
 * called on an inline callback.
 */
function curriedAcquire(call: TSESTree.CallExpression, factory: TSESTree.CallExpression, input: AcquireFinderInput): Candidate | undefined {
  const summary = input.summaryOf?.(factory);
  if (summary) {
    if (summary.partial || !summary.acquire?.curried) return undefined;
    return classifySummarised(call, { ...summary.acquire, curried: undefined }, input);
  }
  const name = calleeName(factory);
  if (!name || !WITH_LOCK_FUNCTION.test(name) || wrapsInProcessLock(factory, input)) return undefined;
  const cb = lastCallback(call, input);
  return cb ? { library: 'custom', advice: CUSTOM_ADVICE, callback: cb } : undefined;
}

/** SQL text that writes a row of a lease table (`UPDATE job_leases SET holder = ...`): it takes the lease. */
function leaseTableClaim(head: string | undefined): Candidate | undefined {
  const leaseTable = leaseTableWritten(head);
  return leaseTable ? { library: 'sql-lease-table', advice: LEASE_TABLE_ADVICE, lockKeyText: leaseTable.toLowerCase() } : undefined;
}

/**
 * A callback acquire handed a callback by reference (`redlock.using(keys, ttl, routine)`): a
 * same-file function is the section; anything else (a parameter of a lock helper) runs under
 * the lock elsewhere, and the helper's summary says which argument that was.
 */
function passedCallback(specs: readonly CallbackMethod[], method: string, call: TSESTree.CallExpression, input: AcquireFinderInput, base: Candidate): Candidate | undefined {
  for (const spec of specs) {
    if (spec.method !== method || !namesEvent(call, spec)) continue;
    const index = spec.callbackArg < 0 ? call.arguments.length + spec.callbackArg : spec.callbackArg;
    const arg = call.arguments[index];
    if (!arg || (arg.type !== AST_NODE_TYPES.Identifier && arg.type !== AST_NODE_TYPES.MemberExpression)) continue;
    const key = receiverKey(arg);
    const callback = key ? input.functionNamed?.(key) : undefined;
    return callback ? { ...base, callback } : { ...base, callbackArgument: arg };
  }
  return undefined;
}

/**
 * A same-file helper named like a lock wrapper (`withDocLock(cb)`) whose body runs the callback
 * under an in-process lock (async-mutex and the like, here or a field of another module's
 * class): nothing in it can lapse, whatever its name says.
 */
function wrapsInProcessLock(call: TSESTree.CallExpression, input: AcquireFinderInput): boolean {
  const callee = unwrap(call.callee);
  const helper = callee.type === AST_NODE_TYPES.Identifier ? input.functionNamed?.(callee.name) : undefined;
  if (!helper) return false;
  return input.calls.some((inner) => {
    if (!contains(helper.body.range, inner)) return false;
    const object = calleeObject(inner);
    if (!object) return false;
    return input.receivers.kindOf(object)?.type === 'local' || (input.isInProcessLock?.(object) ?? false);
  });
}

function callbackFor(specs: readonly CallbackMethod[], method: string, call: TSESTree.CallExpression): CallbackMethod | undefined {
  return specs.find((s) => s.method === method && callbackArgument(call, s) !== undefined);
}

/** Token-like names a custom handle exposes: from destructuring or from member reads. */
function handleTokenUse(binding: ReturnType<typeof bindingOf>, input: AcquireFinderInput, handleIndex?: number): { key?: string; destructured: Map<string, string>; tokenProps: string[] } {
  const destructured = new Map<string, string>();
  const tokenProps: string[] = [];
  let key: string | undefined;
  let target: Node | null | undefined = binding?.type === AST_NODE_TYPES.VariableDeclarator ? binding.id : binding?.left;
  // A tuple result: the handle is one element of the array pattern.
  if (handleIndex !== undefined) target = target?.type === AST_NODE_TYPES.ArrayPattern ? target.elements[handleIndex] : undefined;
  if (target?.type === AST_NODE_TYPES.ObjectPattern) {
    for (const prop of target.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      const name = propertyKeyName(prop);
      const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
      if (name && value.type === AST_NODE_TYPES.Identifier) {
        destructured.set(name, value.name);
        if (isHandleTokenName(name)) tokenProps.push(name);
      }
    }
  } else if (target) {
    key = receiverKey(target);
    for (const name of (key && input.membersRead.get(key)) ?? []) {
      if (isHandleTokenName(name)) tokenProps.push(name);
    }
  }
  return { key, destructured, tokenProps };
}

/** The text of what names a helper's lock at its call: the key argument, or its key property in an options object. */
function keyTextOf(call: TSESTree.CallExpression, origin: AcquireSummary | undefined, input: AcquireFinderInput): string | undefined {
  const key = keyArgument(call.arguments, origin?.keyArg, origin?.keyProperty);
  return key ? input.sourceText(key) : undefined;
}

/** A release helper whose key is built from other values than the acquire helper's (see `sameKeyValues`). */
function otherKeyValues(site: { node: Node; origin?: AcquireSummary }, release: TSESTree.CallExpression, summary: ReleaseSummary, input: AcquireFinderInput): boolean {
  if (!site.origin || site.node.type !== AST_NODE_TYPES.CallExpression) return false;
  return sameKeyValues(site.node, site.origin, release, summary, input.sourceText) === false;
}

/** The last release of this lock that follows the acquire within the same function. */
function findRelease(site: Omit<AcquireSite, 'range' | 'id' | 'label'> & { start: number }, model: LockModel | undefined, input: AcquireFinderInput): TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | undefined {
  const scopeRange = bodyRange(site.scope);
  if (site.advisory) return advisoryRelease(site.advisory, site.start, scopeRange, input);
  // A lease row's own `DELETE FROM <table>` in a tagged template ends its section like one sent as text.
  const taggedRelease = site.origin === undefined && site.library === 'sql-lease-table'
    ? (input.taggedTemplates ?? []).filter((t) => t.range[0] >= site.start && contains(scopeRange, t) && leaseRowDelete(sqlTextOf(t), site.lockKeyText)).pop()
    : undefined;
  let found: TSESTree.CallExpression | undefined;
  let inCallback: TSESTree.CallExpression | undefined;
  for (const call of input.calls) {
    if (call.range[0] < site.start || !contains(scopeRange, call)) continue;
    const method = calleeName(call);
    if (!method) continue;
    const object = calleeObject(call);
    const objectKey = object ? receiverKey(object) : undefined;
    const releaseNames = model?.release ?? [];
    let isRelease = false;
    // A lock taken inside a project helper names its key there: its release is found by receiver.
    const ownKey = site.origin === undefined;
    if (ownKey && site.library === 'sql-lease-table') {
      isRelease = leaseRowDelete(sqlHead(call), site.lockKeyText);
    } else if (ownKey && site.library === 'etcd-claim') {
      // Revoking the lease frees the key (the right release); deleting the key frees it too, by name.
      const builder = object && unwrap(object);
      isRelease = method === 'revoke' || (method === 'key' && builder?.type === AST_NODE_TYPES.CallExpression && calleeName(builder) === 'delete' && !!call.arguments[0] && input.sourceText(call.arguments[0]) === site.lockKeyText);
    } else if (ownKey && (site.library === 'redis-set-nx' || site.library === 'redis-get-set')) {
      const first = call.arguments[0];
      isRelease =
        (/^(?:del|unlink)$/i.test(method) && !!first && input.sourceText(first) === site.lockKeyText) ||
        (/^(?:eval|evalsha|evalSha|fcall)$/i.test(method) && call.arguments.some((a) => input.sourceText(a) === site.lockKeyText || (a.type === AST_NODE_TYPES.ObjectExpression && input.sourceText(a).includes(site.lockKeyText ?? '\u0000'))));
    } else if (objectKey !== undefined && objectKey === site.handleKey) {
      isRelease = releaseNames.includes(method) || GENERIC_RELEASE_METHOD.test(method);
    } else if (site.handleKey !== undefined && !object && receiverKey(call.callee) === site.handleKey) {
      // The handle is itself the release: `const release = await acquireLock(k); ...; await release()`.
      isRelease = true;
    } else if (objectKey !== undefined && objectKey === site.authorityKey) {
      const first = call.arguments[0];
      const argKey = first ? receiverKey(first) : undefined;
      // An instance of a project class that holds its own lock (`lock.tryTake()` ... `lock.unlock()`):
      // its release names no handle, whatever the handle binding holds (a TTL, a boolean).
      const selfHeld = site.origin?.style === 'handle' && call.arguments.length === 0;
      isRelease =
        ((model?.authorityRelease.includes(method) ?? false) || GENERIC_RELEASE_METHOD.test(method)) &&
        (site.handleKey === undefined || argKey === site.handleKey || site.library === 'custom' || selfHeld);
    }
    // A project helper that releases: by the handle it is given, or by the lock's key.
    for (const release of input.summaryOf?.(call)?.releases ?? []) {
      const arg = call.arguments[release.arg];
      if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) continue;
      if (release.by === 'handle' && site.handleKey !== undefined && receiverKey(arg) === site.handleKey) isRelease = true;
      // By name: the same key, compared where each helper takes it (`clearLock({ lockKey })` frees `acquireLock({ lockKey, ttlMs })`).
      const key = release.by === 'name' ? keyArgument(call.arguments, release.arg, release.keyProperty) : undefined;
      if (key && site.origin && (site.keyArgText === undefined || input.sourceText(key) === site.keyArgText) && !otherKeyValues(site, call, release, input)) isRelease = true;
    }
    if (!isRelease) continue;
    // A release inside a function defined here (`const releaseLock = async () => ...`) ends the
    // section where that function is called, not where it is written; one never called here does not.
    const owner = enclosingFunction(call);
    if (owner && owner !== site.scope && contains(scopeRange, owner)) {
      const calledAt = lastCallOf(owner, site.start, scopeRange, input.calls);
      if (calledAt) found = calledAt;
      else if (isInlineCallback(owner)) inCallback = call;
      continue;
    }
    found = call;
  }
  // `gateway.send(req, async (err, reply) => { ...; await lock.release(); })`: the lock is held until
  // the callback gives it back, so the section reaches that release. Only past a release of the
  // function's own (an early exit's): without one the section already runs to the function's end.
  if (found && inCallback && inCallback.range[0] > found.range[0]) return inCallback;
  if (taggedRelease && (!found || taggedRelease.range[0] > found.range[0])) return taggedRelease;
  return found;
}

/** Whether SQL text deletes from the lease table `table` (`DELETE FROM job_locks ...`). */
function leaseRowDelete(text: string | undefined, table: string | undefined): boolean {
  return !!text && !!table && new RegExp(`^\\s*delete\\s+from\\s+(?:"?\\w+"?\\.)?"?${table}"?\\b`, 'i').test(text);
}

/** A function written as an argument of a call: a callback the call runs later. */
function isInlineCallback(fn: FunctionNode): boolean {
  const parent = fn.parent;
  return parent?.type === AST_NODE_TYPES.CallExpression && parent.arguments.includes(fn as TSESTree.CallExpressionArgument);
}

/** The last call, after `start` and within `scope`, of a function bound to a name (`const release = () => ...`). */
function lastCallOf(fn: FunctionNode, start: number, scope: TSESTree.Range, calls: readonly TSESTree.CallExpression[]): TSESTree.CallExpression | undefined {
  const parent = fn.parent;
  const name = parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier ? parent.id.name : fn.type === AST_NODE_TYPES.FunctionDeclaration ? fn.id?.name : undefined;
  if (!name) return undefined;
  let last: TSESTree.CallExpression | undefined;
  for (const call of calls) {
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.Identifier && callee.name === name && call.range[0] >= start && contains(scope, call) && !contains(fn, call)) last = call;
  }
  return last;
}

/**
 * Where an advisory lock ends: the first `COMMIT` (else `ROLLBACK`) on its connection for an xact lock,
 * the last `pg_advisory_unlock` (on its connection when it has one) for a session lock.
 */
function advisoryRelease(lock: AdvisoryLock, start: number, scope: TSESTree.Range, input: AcquireFinderInput): TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | undefined {
  const queries = [...input.calls, ...(input.taggedTemplates ?? [])].filter((q) => q.range[0] >= start && contains(scope, q)).sort((a, b) => a.range[0] - b.range[0]);
  // A ROLLBACK on an early-return branch does not end the section for the code after it; the COMMIT does.
  if (lock.scope === 'transaction') return queries.find((q) => endsTransaction(q, lock.connection) === 'commit') ?? queries.find((q) => endsTransaction(q, lock.connection));
  const unlocks = queries.filter((q) => ADVISORY_UNLOCK.test(sqlTextOf(q) ?? ''));
  return unlocks.filter((q) => lock.connection === undefined || connectionOf(q) === lock.connection).pop() ?? unlocks.pop();
}

/** The connection a helper's advisory lock is held on, as a receiver key of this file. */
function lockedSessionOf(session: NonNullable<AcquireSummary['session']>, call: TSESTree.CallExpression, callback: FunctionNode | undefined): AcquireSite['lockedSession'] {
  let key: string | undefined;
  if (session.arg !== undefined) {
    const arg = call.arguments[session.arg];
    key = arg && arg.type !== AST_NODE_TYPES.SpreadElement ? receiverKey(arg) : undefined;
  } else if (session.callbackParam !== undefined && callback) {
    const param = callback.params[session.callbackParam];
    key = param?.type === AST_NODE_TYPES.Identifier ? param.name : undefined;
  }
  return key ? { key, scope: session.scope } : undefined;
}

/** The untaken branches of a try-lock's section, as a property to spread into its site (none: nothing). */
function gapsOf(node: Node, range: TSESTree.Range, binding: ReturnType<typeof bindingOf> | undefined, input: AcquireFinderInput): { gaps?: TSESTree.Range[] } {
  if (input.sectionsOnly) return {};
  const gaps = untakenBranches(node, binding ?? bindingOf(node), range);
  return gaps.length > 0 ? { gaps } : {};
}

/** Every acquire in the file with its critical section, in source order. */
export function findAcquires(input: AcquireFinderInput): AcquireSite[] {
  const sites: AcquireSite[] = [];
  for (const tagged of input.taggedTemplates ?? []) {
    const text = sqlTextOf(tagged);
    // A lease row taken through a tagged template (postgres.js `sql`, Prisma `$executeRaw`), as
    // `pool.query('INSERT INTO job_locks ...')` takes one.
    const leaseTable = leaseTableWritten(text);
    if (leaseTable && !afterExit(tagged)) {
      const scope = enclosingFunction(tagged) ?? input.program;
      const lockKeyText = leaseTable.toLowerCase();
      const base = {
        label: `a ${codeSpan(lockKeyText, 24)} row`, node: tagged, library: 'sql-lease-table', destructured: new Map<string, string>(), tokenProperties: [], advice: LEASE_TABLE_ADVICE, scope, lockKeyText,
      };
      const release = findRelease({ ...base, start: tagged.range[1] }, undefined, input);
      const reach = release ? release.range[0] : bodyRange(scope)[1];
      const end = Math.min(reach, sectionExitEnd(tagged, bindingOf(tagged)) ?? reach);
      sites.push({ ...base, id: -1, range: [tagged.range[1], end], release, ...gapsOf(tagged, [tagged.range[1], end], undefined, input) });
      continue;
    }
    const lock = text !== undefined ? advisoryLockIn(text) : undefined;
    if (!lock) continue;
    const advisory = { ...lock, connection: connectionOf(tagged) };
    const scope = enclosingFunction(tagged) ?? input.program;
    const base = {
      label: `\`${advisory.fn}\``, node: tagged, library: 'pg-advisory-lock', destructured: new Map<string, string>(), tokenProperties: [], advice: ADVISORY_LOCK_ADVICE, scope, advisory,
    };
    const release = findRelease({ ...base, start: tagged.range[1] }, undefined, input);
    const range: TSESTree.Range = [tagged.range[1], release ? release.range[0] : bodyRange(scope)[1]];
    sites.push({ ...base, id: -1, range, release, ...gapsOf(tagged, range, undefined, input) });
  }
  for (const call of input.calls) {
    const candidate = classify(call, input);
    // Left behind an early `return;`: never runs, so it holds nothing.
    if (!candidate || afterExit(call)) continue;
    const object = calleeObject(call);
    const authorityKey = object ? receiverKey(object) : undefined;
    const binding = bindingOf(call);
    const use = handleTokenUse(binding, input, candidate.handleIndex);
    const tokenProperties = [...new Set([...(candidate.model?.tokenProperties ?? []), ...use.tokenProps])];

    if (candidate.custom) {
      // The method's own name counts only for a receiver nothing resolves, not a same-file method we can read.
      const lockNamed = LOCK_RECEIVER_NAME.test((authorityKey ?? '').split('.').pop() ?? '') || (LOCK_NAMED_ACQUIRE.test(calleeName(call) ?? '') && !input.localCallee?.(call));
      const carriesToken = use.tokenProps.some((p) => isHandleTokenName(p)) || [...use.destructured.keys()].some(isStrongTokenName);
      if (!carriesToken && (!lockNamed || candidate.tokenRequired)) continue;
      // An acquire whose result is ignored and that is not awaited is not a lock we can follow.
      if (!binding && call.parent?.type !== AST_NODE_TYPES.AwaitExpression && !thenCallback(call)) continue;
    }

    const callback = candidate.callback ?? thenCallback(call);
    const scope = callback ?? enclosingFunction(call) ?? input.program;
    // A lock object created inline (`await client.lock(k).acquire()`) is handled through the result binding.
    const handleKey = candidate.selfHandle ? (authorityKey ?? use.key) : use.key;
    const origin = candidate.summary;
    // `super(… onFlush)`: the base class's lock, named by the option it runs.
    const callee = input.sectionsOnly ? '' : call.callee.type === AST_NODE_TYPES.Super && origin?.callbackProperty ? `super(… ${shorten(origin.callbackProperty, 16)})` : shorten(input.sourceText(call.callee), 24);
    const label = input.sectionsOnly
      ? ''
      : origin
      ? `\`${callee}\` (${fileLabel(origin.at.file)}:${origin.at.line})`
      : candidate.advisory
        ? `\`${candidate.advisory.fn}\``
        : candidate.library === 'sql-lease-table'
          ? `a ${codeSpan(candidate.lockKeyText ?? 'lease', 24)} row`
          : candidate.library === 'redis-set-nx'
            ? `\`${callee}(… NX)\``
            : `\`${callee}\``;
    const base = {
      label,
      node: call,
      library: candidate.library,
      handleKey,
      authorityKey,
      destructured: use.destructured,
      tokenProperties,
      advice: candidate.advice,
      scope,
      lockKeyText: candidate.lockKeyText,
      keyNode: candidate.keyNode,
      origin,
      flow: origin && input.locationOf && !input.sectionsOnly ? [input.locationOf(call), ...origin.flow, origin.at] : undefined,
      keyArgText: keyTextOf(call, origin, input),
      callbackArgument: candidate.callbackArgument,
      advisory: candidate.advisory && { ...candidate.advisory, connection: connectionOf(call) },
      lockedSession: origin?.session && !input.sectionsOnly ? lockedSessionOf(origin.session, call, callback) : undefined,
    };
    if (callback) {
      sites.push({ ...base, id: sites.length, range: callback.body.range });
      continue;
    }
    if (candidate.callbackArgument) {
      // The callback runs under the lock elsewhere: nothing after the call here is in the section.
      sites.push({ ...base, id: sites.length, range: [call.range[1], call.range[1]] });
      continue;
    }
    const release = findRelease({ ...base, start: call.range[1] }, candidate.model, input);
    const block = release ? undefined : disposingBlock(binding);
    const reach = release ? release.range[0] : block ? Math.min(block.range[1], bodyRange(scope)[1]) : bodyRange(scope)[1];
    // The path that holds the lock may leave the function first (`return await claim(k)`).
    const end = Math.min(reach, sectionExitEnd(call, binding) ?? reach);
    sites.push({ ...base, id: sites.length, range: [call.range[1], end], release, ...(block ? { disposed: true } : {}), ...gapsOf(call, [call.range[1], end], binding, input) });
  }
  sites.push(...handedOverSections(input, sites).map((site) => ({ ...site, id: -1 })));
  // Source order, numbered in it.
  if (input.sectionsOnly) return sites.sort((a, b) => a.node.range[0] - b.node.range[0]);
  return sites.sort((a, b) => a.node.range[0] - b.node.range[0]).map((site, id) => ({ ...site, id }));
}
