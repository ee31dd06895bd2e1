/**
 * Lease checks: the places where code asks "is my lease still valid?" before acting
 * (`lock.expiration > Date.now()`, `await lock.isValid()`, `mutex.isAcquired`, `await lease.ttl()`,
 * `(await redis.get(lockKey)) === me`, redlock's `signal.aborted`, `isLockOwner(...)` helpers),
 * or extend it right before a write. Each is returned with the code it guards.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, memberName, receiverPath, unwrap, type Node } from '../ast.js';
import { abortCheckOf, mentionsAbort } from '../locks/abort-checks.js';
import type { AcquireSite } from '../locks/acquires.js';
import type { Check, CheckKind } from './check-then-write.js';
import type { FileAnalysis } from '../file-analysis.js';
import { readsDefinition } from './guarded-writes.js';
import { comparisonsOfValue, guardsOf, isComparison, readsOf, restOfBlock, type Guard } from './guards.js';
import { ABORT_SIGNAL_ASSERT, ABORT_SIGNAL_MEMBER, EXPIRY_MEMBER, GENERIC_EXTEND_METHOD, GENERIC_VALIDITY_MEMBER, REMAINING_TIME_MEMBER, VALIDITY_HELPER_ASSERT, VALIDITY_HELPER_CHECK_WORD, VALIDITY_HELPER_LOCK_WORD, type LockModel } from '../models/locks.js';
import { KEY_VALUE_READ_METHOD } from '../models/record-reads.js';
import { receiverKey } from '../modules/receivers.js';
import type { RedisLockKeys } from '../locks/redis-locks.js';

const CLOCK_CALL = /^(?:now)$/;
/** Statements after an extend that still count as "right before" the write. */
const EXTEND_REACH = 3;


/** Handles of the file's acquires, with their lock model. */
function handleModels(analysis: FileAnalysis): Map<string, LockModel | undefined> {
  const handles = new Map<string, LockModel | undefined>();
  for (const site of analysis.acquires) {
    const model = analysis.receivers.models.find((m) => m.id === site.library);
    if (site.handleKey) handles.set(site.handleKey, model);
  }
  return handles;
}

function isLeaseHandle(node: Node, analysis: FileAnalysis, handles: Map<string, LockModel | undefined>): boolean {
  const key = receiverKey(node);
  if (key !== undefined && handles.has(key)) return true;
  const kind = analysis.receivers.kindOf(node);
  if (kind?.type === 'lockObject') return true;
  if (etcdLease(node, analysis)) return true;
  // By name (`lease`, `lock`) only in a file that takes a lock: a rental `lease.isActive()` is no lease check.
  return analysis.acquires.length > 0 && analysis.tracer.isHandle(node);
}

/** `const lease = client.lease(10)` on an etcd3 client: a lease whose keys are the lock. */
function etcdLease(node: Node, analysis: FileAnalysis): boolean {
  const n = unwrap(node);
  let init: Node | undefined = n;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const parent = readsDefinition(n);
    init = parent?.init ?? undefined;
  }
  if (!init) return false;
  const call = unwrap(init);
  if (call.type !== AST_NODE_TYPES.CallExpression || calleeName(call) !== 'lease') return false;
  const object = calleeObject(call);
  const kind = object && analysis.receivers.kindOf(object);
  return kind?.type === 'authority' && kind.model.id === 'etcd3';
}

function modelOf(node: Node, analysis: FileAnalysis, handles: Map<string, LockModel | undefined>): LockModel | undefined {
  const key = receiverKey(node);
  if (key !== undefined && handles.get(key)) return handles.get(key);
  const kind = analysis.receivers.kindOf(node);
  return kind?.type === 'lockObject' || kind?.type === 'authority' ? kind.model : undefined;
}

function isValidityMember(name: string, model: LockModel | undefined): boolean {
  return GENERIC_VALIDITY_MEMBER.test(name) || (model?.validity.includes(name) ?? false);
}

function isExpiryMember(name: string, model: LockModel | undefined): boolean {
  return EXPIRY_MEMBER.test(name) || (model?.validity.includes(name) === true && /expir/i.test(name));
}

/** `Date.now()`, `performance.now()`, `new Date()`, `Date.now() + margin`. */
function isClock(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.BinaryExpression && (n.operator === '+' || n.operator === '-')) return isClock(n.left) || isClock(n.right);
  if (n.type === AST_NODE_TYPES.NewExpression) return n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'Date' && n.arguments.length === 0;
  if (n.type === AST_NODE_TYPES.CallExpression) {
    const callee = unwrap(n.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression && CLOCK_CALL.test(memberName(callee) ?? '')) return /^(?:Date|performance)$/.test(receiverPath(callee.object).join('.'));
    if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'getTime') return isClock(callee.object);
    return false;
  }
  return n.type === AST_NODE_TYPES.Identifier && /^(?:now|nowMs|currentTime|timestamp)$/.test(n.name);
}

/** The expiry member a comparison reads off a handle (`lock.expiration`, `lease.expiresAt.getTime()`). */
function expiryOperand(node: Node, analysis: FileAnalysis, handles: Map<string, LockModel | undefined>): boolean {
  let n = unwrap(node);
  if (n.type === AST_NODE_TYPES.BinaryExpression && (n.operator === '+' || n.operator === '-')) return expiryOperand(n.left, analysis, handles) || expiryOperand(n.right, analysis, handles);
  if (n.type === AST_NODE_TYPES.CallExpression) {
    const callee = unwrap(n.callee);
    if (callee.type !== AST_NODE_TYPES.MemberExpression || !/^(?:getTime|valueOf|toMillis|unix)$/.test(memberName(callee) ?? '')) return false;
    n = unwrap(callee.object);
  }
  // `const { expiresAt } = await authority.acquire(key)`.
  if (n.type === AST_NODE_TYPES.Identifier) {
    const local = n.name;
    return analysis.acquires.some((site) => [...site.destructured].some(([prop, name]) => name === local && isExpiryMember(prop, undefined)));
  }
  if (n.type !== AST_NODE_TYPES.MemberExpression) return false;
  const name = memberName(n);
  return !!name && isExpiryMember(name, modelOf(n.object, analysis, handles)) && isLeaseHandle(n.object, analysis, handles);
}

/** The models' validity and extend method names, per model list (one per settings object): built once, not per file. */
const checkNamesOf = new WeakMap<readonly LockModel[], ReadonlySet<string>>();

/** Method names worth a closer look as a validity check, an extension or a lock-key probe. */
function checkMethodNames(models: readonly LockModel[]): (name: string) => boolean {
  let names = checkNamesOf.get(models);
  if (!names) {
    names = new Set(models.flatMap((m) => [...m.validity, ...m.extend]));
    checkNamesOf.set(models, names);
  }
  const known = names;
  return (name) => known.has(name) || GENERIC_VALIDITY_MEMBER.test(name) || REMAINING_TIME_MEMBER.test(name) || GENERIC_EXTEND_METHOD.test(name) || /^(?:pttl|ttl|PTTL|TTL|exists|EXISTS)$/.test(name) || KEY_VALUE_READ_METHOD.test(name);
}

export function validityChecks(analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys, out: Check[]): void {
  // Lease checks need a lease: an acquire in the file, or an etcd3 lease.
  if (analysis.acquires.length === 0 && !sourceCode.text.includes('etcd3')) return;
  const handles = handleModels(analysis);
  const interesting = checkMethodNames(analysis.receivers.models);
  // A call under the lock to a project function that writes is a write after the check too.
  const push = (kind: CheckKind, node: Node, guards: Guard[]) => {
    for (const guard of guards) out.push({ kind, node, regions: guard.regions, throughCalls: kind === 'leaseValidity' });
  };
  for (const call of analysis.calls) {
    const method = calleeName(call) ?? '';
    const object = calleeObject(call);
    if (abortCheckCall(call, analysis, sourceCode, push)) continue;
    if (isValidityHelper(method, object)) {
      helperCheck(call, method, sourceCode, push);
      continue;
    }
    if (!object) continue;
    // `lock.expiration > Date.now()`: found from the clock call.
    if (isClock(call) && call.parent) {
      let top: Node = call;
      while (top.parent && top.parent.type === AST_NODE_TYPES.BinaryExpression && !isComparison(top.parent)) top = top.parent;
      const comparison = top.parent;
      if (comparison && isComparison(comparison) && expiryOperand(comparison.left === top ? comparison.right : comparison.left, analysis, handles)) {
        push('leaseValidity', comparison, guardsOf(comparison, sourceCode));
      }
      continue;
    }
    if (!interesting(method)) continue;
    // `await lock.isValid()`, `await lease.ttl()`, `redlock.extend(lock, ttl)`.
    const model = modelOf(object, analysis, handles);
    if ((isValidityMember(method, model) || REMAINING_TIME_MEMBER.test(method)) && isLeaseHandle(object, analysis, handles)) {
      push('leaseValidity', call, guardsOf(call, sourceCode));
      continue;
    }
    // `await authority.isValid(lease)`: the authority asked about the handle it handed out.
    const objectKey = receiverKey(object);
    const authorityOfAcquire = analysis.receivers.kindOf(object)?.type === 'authority' || (objectKey !== undefined && analysis.acquires.some((site) => site.authorityKey === objectKey));
    if (isValidityMember(method, model) && authorityOfAcquire && call.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && isLeaseHandle(a, analysis, handles))) {
      push('leaseValidity', call, guardsOf(call, sourceCode));
      continue;
    }
    // `redis.pttl(lockKey) > 0`, `(await redis.get(lockKey)) === me`.
    const first = call.arguments[0];
    if (first && first.type !== AST_NODE_TYPES.SpreadElement && locks.isLockKey(first) && analysis.receivers.kindOf(object)?.type !== 'authority') {
      if (/^(?:pttl|ttl|PTTL|TTL|exists|EXISTS)$/.test(method)) {
        push('leaseValidity', call, guardsOf(call, sourceCode));
        continue;
      }
      if (KEY_VALUE_READ_METHOD.test(method)) {
        for (const { comparison, other } of comparisonsOfValue(call, sourceCode)) {
          const o = unwrap(other);
          if (o.type === AST_NODE_TYPES.Literal || (o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined')) continue;
          push('leaseValidity', comparison, guardsOf(comparison, sourceCode));
        }
        continue;
      }
    }
    const extendNames = model?.extend ?? [];
    const onHandle = isLeaseHandle(object, analysis, handles);
    const onAuthority = analysis.receivers.kindOf(object)?.type === 'authority' && call.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && isLeaseHandle(a, analysis, handles));
    if ((extendNames.includes(method) || GENERIC_EXTEND_METHOD.test(method)) && (onHandle || onAuthority)) {
      const guards = guardsOf(call, sourceCode);
      if (guards.length > 0) push('leaseExtend', call, guards);
      else {
        const statement = statementOf(call);
        // "Immediately before": the next few statements, not the rest of a long function.
        const rest = statement && restOfBlock(statement, EXTEND_REACH);
        if (rest) out.push({ kind: 'leaseExtend', node: call, regions: [rest], firstOnly: true });
      }
    }
  }
  // Validity members read as properties: `if (!mutex.isAcquired) throw`, `lock.expiration < new Date()`.
  for (const site of analysis.acquires) propertyChecks(site, analysis, sourceCode, push);
}

/** `isLockHeld(key, token)`, `this.stillOwnsLease()`: a same-file or service helper that checks ownership. */
function isValidityHelper(method: string, object: Node | undefined): boolean {
  if (!VALIDITY_HELPER_LOCK_WORD.test(method) || !VALIDITY_HELPER_CHECK_WORD.test(method)) return false;
  // `lock.isHeld()` and friends are handled as handle members; here only free helpers and `this.x()`.
  return !object || unwrap(object).type === AST_NODE_TYPES.ThisExpression;
}

function helperCheck(call: TSESTree.CallExpression, method: string, sourceCode: SourceCode, push: (kind: CheckKind, node: Node, guards: Guard[]) => void): void {
  let top: Node = call;
  while (top.parent?.type === AST_NODE_TYPES.AwaitExpression) top = top.parent;
  if (top.parent?.type === AST_NODE_TYPES.ExpressionStatement && VALIDITY_HELPER_ASSERT.test(method)) {
    const rest = restOfBlock(top.parent);
    if (rest) push('leaseValidity', call, [{ statement: top.parent, regions: [rest] }]);
    return;
  }
  push('leaseValidity', call, guardsOf(call, sourceCode));
}

/**
 * `assertStillLocked(signals)`: a function of this file or of the project that checks the abort
 * signal it is handed (see `locks/abort-checks.ts`), called with the signal (or a list holding it)
 * that a section's callback receives. A call that throws on a lost lease guards the rest of its
 * block; one that returns the answer guards what its test guards.
 */
function abortCheckCall(call: TSESTree.CallExpression, analysis: FileAnalysis, sourceCode: SourceCode, push: (kind: CheckKind, node: Node, guards: Guard[]) => void): boolean {
  if (call.arguments.length === 0) return false;
  const local = analysis.functions.callee(call);
  const check = local ? (mentionsAbort(local, sourceCode.text) ? abortCheckOf(local, sourceCode.visitorKeys) : undefined) : analysis.callees?.summaryOf(call)?.checksLease;
  const arg = check ? call.arguments[check.arg] : undefined;
  if (!check || !arg || !analysis.sectionOf(call) || !carriesSectionSignal(arg, call, analysis)) return false;
  let top: Node = call;
  while (top.parent?.type === AST_NODE_TYPES.AwaitExpression) top = top.parent;
  if (check.throws && top.parent?.type === AST_NODE_TYPES.ExpressionStatement) {
    const rest = restOfBlock(top.parent);
    if (rest) push('leaseValidity', call, [{ statement: top.parent, regions: [rest] }]);
    return true;
  }
  push('leaseValidity', call, guardsOf(call, sourceCode));
  return true;
}

/** Whether `arg` is a parameter of the callback of a section around `call`, or a list literal holding one. */
function carriesSectionSignal(arg: Node, call: TSESTree.CallExpression, analysis: FileAnalysis): boolean {
  const n = unwrap(arg);
  if (n.type === AST_NODE_TYPES.ArrayExpression) return n.elements.some((e) => !!e && (e.type === AST_NODE_TYPES.SpreadElement ? carriesSectionSignal(e.argument, call, analysis) : carriesSectionSignal(e, call, analysis)));
  if (n.type !== AST_NODE_TYPES.Identifier) return false;
  return analysis.acquires.some((site) => {
    const fn = site.scope;
    if (fn.type === AST_NODE_TYPES.Program || !contains(fn, call)) return false;
    return fn.params.some((p) => p.type === AST_NODE_TYPES.Identifier && p.name === n.name);
  });
}

/** `if (signal.aborted) throw signal.error` / `signal.throwIfAborted()` in a redlock `using` callback. */
function abortSignalChecks(site: AcquireSite, sourceCode: SourceCode, push: (kind: CheckKind, node: Node, guards: Guard[]) => void): void {
  const fn = site.scope;
  if (fn.type === AST_NODE_TYPES.Program || fn.body.range[0] !== site.range[0] || fn.body.range[1] !== site.range[1]) return;
  for (const param of fn.params) {
    if (param.type !== AST_NODE_TYPES.Identifier) continue;
    for (const ref of readsOf(param, sourceCode)) {
      const member = ref.parent;
      if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== ref) continue;
      const name = memberName(member) ?? '';
      if (ABORT_SIGNAL_MEMBER.test(name)) push('leaseValidity', member, guardsOf(member, sourceCode));
      else if (ABORT_SIGNAL_ASSERT.test(name) && member.parent?.type === AST_NODE_TYPES.CallExpression) {
        const statement = statementOf(member.parent);
        const rest = statement && restOfBlock(statement);
        if (statement && rest) push('leaseValidity', member.parent, [{ statement, regions: [rest] }]);
      }
    }
  }
}

function propertyChecks(site: AcquireSite, analysis: FileAnalysis, sourceCode: SourceCode, push: (kind: CheckKind, node: Node, guards: Guard[]) => void): void {
  abortSignalChecks(site, sourceCode, push);
  const id = handleIdentifier(site);
  if (!id) return;
  const model = analysis.receivers.models.find((m) => m.id === site.library);
  for (const ref of readsOf(id, sourceCode)) {
    const member = ref.parent;
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== ref) continue;
    if (member.parent?.type === AST_NODE_TYPES.CallExpression && member.parent.callee === member) continue;
    const name = memberName(member) ?? '';
    if (isValidityMember(name, model) && !isExpiryMember(name, model)) {
      push('leaseValidity', member, guardsOf(member, sourceCode));
      continue;
    }
    if (!isExpiryMember(name, model)) continue;
    let top: Node = member;
    while (top.parent && top.parent.type === AST_NODE_TYPES.BinaryExpression && !isComparison(top.parent)) top = top.parent;
    const comparison = top.parent;
    // Clock calls are found from the call list; here only clocks that are not calls (`new Date()`, `now`).
    if (comparison && isComparison(comparison)) {
      const other = comparison.left === top ? comparison.right : comparison.left;
      if (isClock(other) && unwrap(other).type !== AST_NODE_TYPES.CallExpression) push('leaseValidity', comparison, guardsOf(comparison, sourceCode));
    }
  }
}

/** The identifier the acquire binds its handle to (`const lock = await ...`), or the mutex itself. */
function handleIdentifier(site: AcquireSite): TSESTree.Identifier | undefined {
  if (!site.handleKey || site.handleKey.includes('.')) return undefined;
  let current: Node = site.node;
  while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression)) current = current.parent;
  const parent = current.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier && parent.id.name === site.handleKey) return parent.id;
  // redis-semaphore: `const mutex = new Mutex(...)`; the handle is the receiver.
  const object = site.node.type === AST_NODE_TYPES.CallExpression ? calleeObject(site.node) : undefined;
  if (object?.type === AST_NODE_TYPES.Identifier && object.name === site.handleKey) return object;
  return undefined;
}

function statementOf(node: Node): TSESTree.Statement | undefined {
  let current: Node = node;
  while (current.parent && current.parent.type !== AST_NODE_TYPES.BlockStatement && current.parent.type !== AST_NODE_TYPES.Program && current.parent.type !== AST_NODE_TYPES.SwitchCase) {
    if (current.parent.type === AST_NODE_TYPES.ArrowFunctionExpression || current.parent.type === AST_NODE_TYPES.FunctionExpression) return undefined;
    current = current.parent;
  }
  return current.parent ? (current as TSESTree.Statement) : undefined;
}

