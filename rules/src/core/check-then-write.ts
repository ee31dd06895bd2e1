/**
 * The read-then-update gap: a write whose safety rests on an earlier, separate check.
 *
 * - a stored token or version is read by one statement (`SELECT fence_token`, Prisma
 *   `findUnique`, Redis `GET`), compared in application code, then written by another;
 * - a lease-validity check guards the write (`lock.expiration > Date.now()`,
 *   `await lock.isValid()`, `await lease.ttl()`, `(await redis.get(lockKey)) === me`), or the
 *   lease is extended just before it.
 *
 * A pause between check and write lets a newer holder write first. A write that carries the
 * comparison itself (a conditional UPDATE, a filter on the token) is not a finding, nor is a
 * `SELECT ... FOR UPDATE` and the UPDATE on the same client, nor a SERIALIZABLE transaction.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, memberName, receiverPath, staticString, unwrap, type Node } from './ast.js';
import type { AcquireSite } from './acquires.js';
import type { FileAnalysis } from './file-analysis.js';
import { comparisonsOfValue, guardsOf, inRegions, isComparison, readsOf, restOfBlock, type Guard } from './guards.js';
import { judgeKnexWrite, readKnexWrite } from './knex-writes.js';
import { ABORT_SIGNAL_ASSERT, ABORT_SIGNAL_MEMBER, EXPIRY_MEMBER, GENERIC_EXTEND_METHOD, VALIDITY_HELPER_ASSERT, VALIDITY_HELPER_CHECK_WORD, VALIDITY_HELPER_LOCK_WORD, GENERIC_VALIDITY_MEMBER, REMAINING_TIME_MEMBER, type LockModel } from './models/locks.js';
import { DYNAMO_READ_COMMAND, KEY_VALUE_READ_METHOD, KEY_VALUE_WRITE_METHOD, RECORD_READ_METHOD, RECORD_SAVE_METHOD, TOKEN_KEY_TEXT, TOKEN_READER_NAME, VERSION_FIELD } from './models/record-reads.js';
import { isHandleTokenName, isStrongTokenName, isTokenColumnName } from './models/token-names.js';
import { camel, judgeObjectWrite, readObjectWrite } from './object-writes.js';
import { receiverKey } from './receivers.js';
import { keyText, RedisLockKeys } from './redis-locks.js';
import { isProtectedWrite, judgeWrite, readSqlCall } from './sql-writes.js';

export type CheckKind = 'storedToken' | 'leaseValidity' | 'leaseExtend';
export type WriteSink = 'sql' | 'knex' | 'object' | 'redis';

export interface GuardedWrite {
  node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  sink: WriteSink;
  /** Table, model path or key the write targets, when known. */
  target?: string;
  /** Receiver of the write (`client`, `tx`), for the same-client FOR UPDATE exception. */
  receiver?: string;
  /** Whether the write's own condition compares the given field (or any token). */
  carriesComparison(field: string | undefined): boolean;
  /** Columns or properties the write stores. */
  stores: string[];
}

export interface CheckThenWrite {
  kind: CheckKind;
  /** The check: the comparison, the validity call or the extend call. */
  check: Node;
  write: GuardedWrite;
  /** The stored field that was compared, for stored-token checks. */
  field?: string;
}

interface Check {
  kind: CheckKind;
  node: Node;
  regions: TSESTree.Range[];
  field?: string;
  /** Stored-token reads: target of the read, and its FOR UPDATE receiver. */
  readTarget?: string;
  readSink?: WriteSink;
  forUpdateReceiver?: string;
  /** Extend: only the first write after it counts ("immediately before writing"). */
  firstOnly?: boolean;
  /**
   * A weak field (`version`, `token`) compared for equality is a fencing check only when the
   * write then stores that field (optimistic concurrency); `token !== provided` alone is auth.
   */
  needsStore?: boolean;
}

const CLOCK_CALL = /^(?:now)$/;
/** Statements after an extend that still count as "right before" the write. */
const EXTEND_REACH = 3;

/** Links of a builder chain, outermost first: `db.select().from(t).where(c)` gives where, from, select. */
function chainNames(call: TSESTree.CallExpression): string[] {
  const names: string[] = [];
  let current: Node = call;
  while (current.type === AST_NODE_TYPES.CallExpression) {
    names.push(calleeName(current) ?? '');
    const callee = unwrap(current.callee);
    if (callee.type !== AST_NODE_TYPES.MemberExpression) break;
    current = unwrap(callee.object);
  }
  return names;
}

const BUILDER_READ = /^(?:select|selectFrom|selectAll|first|pluck|findFirst)$/;
const BUILDER_WRITE = /^(?:update|updateTable|insert|insertInto|delete|deleteFrom|del|set|merge|values|returning)$/;

/** The outermost call of a query-builder read (Drizzle, Kysely, knex), not of a write. */
function isBuilderRead(call: TSESTree.CallExpression): boolean {
  const parent = call.parent;
  if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === call) return false;
  const names = chainNames(call);
  return names.length > 1 && names.some((n) => BUILDER_READ.test(n)) && !names.some((n) => BUILDER_WRITE.test(n));
}

/** A field that on its own says "fence token" (any comparison of it is a fencing check). */
function isStrongField(field: string, tokenColumn: string): boolean {
  return field === tokenColumn || field === camel(tokenColumn) || isTokenColumnName(field) || isStrongTokenName(field);
}

const ORDERING = new Set(['<', '<=', '>', '>=']);

/**
 * The client a query runs on: `client` for `client.query(...)`, `trx` for `trx('t').where().update()`,
 * `tx` for postgres.js `tx\`...\``.
 */
function receiverOf(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression): string | undefined {
  const head = node.type === AST_NODE_TYPES.TaggedTemplateExpression ? unwrap(node.tag) : unwrap(node.callee);
  // The root of the chain names the client: `tx.document.update` and `tx.$queryRaw` both run on `tx`.
  const path = receiverPath(head).map((part) => part.replace(/\(\)$/, ''));
  if (path.length === 0) return undefined;
  return path[0] === 'this' ? path.slice(0, 2).join('.') : path[0];
}

const TRANSACTION_CALLBACK = /^(?:transaction|\$transaction|begin|tx|task|withTransaction|runInTransaction|serializable)$/;
const TRANSACTION_RECEIVER = /^(?:tx|trx|t|txn|transaction|tr)$/;

/**
 * Evidence that a FOR UPDATE read runs inside a transaction: it sits in a transaction callback
 * (`knex.transaction(async (trx) => ...)`, `sql.begin(...)`, `prisma.$transaction(...)`), its client
 * is named as one, or the same function sends BEGIN / START TRANSACTION on that client.
 */
function inTransaction(node: Node, receiver: string | undefined, analysis: FileAnalysis): boolean {
  if (receiver && TRANSACTION_RECEIVER.test(receiver)) return true;
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === AST_NODE_TYPES.CallExpression && TRANSACTION_CALLBACK.test(calleeName(p) ?? '') && p.arguments.some((a) => contains(a, node))) return true;
  }
  const fn = enclosingFunction(node);
  const begins = (text: string | undefined) => text !== undefined && /^\s*(?:BEGIN|START\s+TRANSACTION)\b/i.test(text);
  const before = (c: Node) => enclosingFunction(c) === fn && c.range[0] < node.range[0];
  return (
    analysis.calls.some((c) => before(c) && receiverOf(c) === receiver && c.arguments[0] !== undefined && begins(staticString(c.arguments[0]))) ||
    analysis.taggedTemplates.some((t) => before(t) && receiverOf(t) === receiver && begins(t.quasi.quasis[0]?.value.cooked ?? undefined))
  );
}

/** Classifies a call as a write to a shared store, with what it targets and whether it compares in itself. */
function readWrite(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys): GuardedWrite | undefined {
  const isToken = (n: Node) => analysis.tracer.isToken(n);
  const receiver = receiverOf(node);
  if (node.type === AST_NODE_TYPES.CallExpression) {
    const knex = readKnexWrite(node, analysis.receivers);
    if (knex) {
      return {
        node, sink: 'knex', target: knex.table, receiver, stores: knex.values?.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property && p.key.type === AST_NODE_TYPES.Identifier ? [p.key.name] : [])) ?? [],
        carriesComparison: (field) => judgeKnexWrite(knex, field ?? analysis.tokenColumn, isToken).tokenCompared || judgeKnexWrite(knex, analysis.tokenColumn, isToken).tokenCompared,
      };
    }
    const first = node.arguments[0];
    const object = first && unwrap(first).type === AST_NODE_TYPES.NewExpression ? readObjectWrite(unwrap(first) as TSESTree.NewExpression) : readObjectWrite(node);
    if (object) {
      const path = calleeObject(node);
      return {
        node, sink: 'object', target: path ? receiverPath(path).join('.') : undefined, receiver, stores: objectKeys(object.node.arguments.filter((a) => unwrap(a) !== object.filter)),
        carriesComparison: (field) => judgeObjectWrite(object, field ?? analysis.tokenColumn, isToken).tokenCompared || judgeObjectWrite(object, analysis.tokenColumn, isToken).tokenCompared,
      };
    }
    const method = calleeName(node) ?? '';
    const callee = calleeObject(node);
    if (callee && RECORD_SAVE_METHOD.test(method) && savesFetchedRecord(callee, method)) {
      return { node, sink: 'object', receiver, stores: objectKeys(node.arguments), carriesComparison: () => false };
    }
    if (KEY_VALUE_WRITE_METHOD.test(method) && callee && first && first.type !== AST_NODE_TYPES.SpreadElement) {
      const kind = analysis.receivers.kindOf(callee);
      const redisLike = kind?.type === 'redis' || (!kind && /(?:redis|valkey)/i.test(receiverPath(callee).join('.')));
      // SET NX takes a lock and SET XX on the lock key renews it: lock upkeep, not the guarded write.
      if (redisLike && !locks.sites.some((s) => s.call === node) && !locks.isLockKey(first)) {
        return { node, sink: 'redis', target: keyText(first, sourceCode), receiver, stores: [], carriesComparison: () => false };
      }
    }
  }
  const call = readSqlCall(node, sourceCode);
  if (!call) return undefined;
  const statements = call.source.analysis.statements.filter(isProtectedWrite);
  if (statements.length === 0) return undefined;
  return {
    node, sink: 'sql', target: statements[0].table, receiver, stores: statements.flatMap((s) => s.assignments.map((a) => a.column)),
    carriesComparison: (field) =>
      statements.every((s) => judgeWrite(s, call, { tokenColumn: analysis.tokenColumn, isTokenValue: isToken }).tokenCompared || (field !== undefined && s.conditions.some((c) => (c.column.split('.').pop() ?? c.column) === field && c.value.params.length + c.value.columns.length > 0))),
  };
}

/** `doc.save()` on a record fetched with findById/findOne, or `repo.save(entity)` on a repository. */
function savesFetchedRecord(callee: Node, method: string): boolean {
  const c = unwrap(callee);
  if (c.type === AST_NODE_TYPES.Identifier) {
    const init = readsDefinition(c)?.init;
    const call = init && unwrap(init);
    if (call?.type === AST_NODE_TYPES.CallExpression && RECORD_READ_METHOD.test(calleeName(call) ?? '')) return true;
  }
  return method === 'save' && /(?:repo|repository|manager)$/i.test(receiverPath(c).pop() ?? '');
}

/** Property keys of object literals, nested (`{ $set: { body }, $inc: { version: 1 } }` gives body, version). */
function objectKeys(nodes: readonly Node[], depth = 0): string[] {
  const keys: string[] = [];
  for (const node of nodes) {
    const n = unwrap(node);
    if (n.type === AST_NODE_TYPES.NewExpression && depth === 0) {
      keys.push(...objectKeys(n.arguments, depth + 1));
      continue;
    }
    if (n.type !== AST_NODE_TYPES.ObjectExpression || depth > 3) continue;
    for (const p of n.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const key = !p.computed && p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : p.key.type === AST_NODE_TYPES.Literal ? String(p.key.value) : undefined;
      if (key && key !== 'where') keys.push(key);
      if (key !== 'where') keys.push(...objectKeys([p.value], depth + 1));
    }
  }
  return keys;
}

/** Stored-token reads and their comparisons: SQL SELECT, record finds, key-value GETs of token keys. */
/** Methods that send SQL a read can come back from (the SQL parse runs only for these). */
const SQL_READ_METHOD = /^(?:query|execute|exec|run|raw|unsafe|one|oneOrNone|many|manyOrNone|any|result|get|all|queryOne|queryAll|first|\$queryRawUnsafe|executeQuery)$/;

/** Whether a call or tagged template may send a SELECT, judged from its text without parsing. */
function maySelect(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, sourceCode: SourceCode): boolean {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) return node.quasi.quasis.some((q) => /select/i.test(q.value.raw));
  if (!SQL_READ_METHOD.test(calleeName(node) ?? '')) return false;
  const first = node.arguments[0];
  if (!first) return false;
  const n = unwrap(first);
  // A const holding the SQL is resolved by readSqlCall; other shapes are judged by their text.
  if (n.type === AST_NODE_TYPES.Identifier) return true;
  if (n.type !== AST_NODE_TYPES.Literal && n.type !== AST_NODE_TYPES.TemplateLiteral && n.type !== AST_NODE_TYPES.ObjectExpression && n.type !== AST_NODE_TYPES.BinaryExpression) return false;
  return /select/i.test(sourceCode.text.slice(n.range[0], Math.min(n.range[1], n.range[0] + 400)));
}

function storedTokenChecks(analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys, out: Check[]): void {
  const nodes = [...analysis.calls, ...analysis.taggedTemplates];
  const builders = /\.(?:select|selectFrom|selectAll|first|pluck)\(/.test(sourceCode.text);
  for (const node of nodes) {
    let readTarget: string | undefined;
    let readSink: WriteSink | undefined;
    let selected: string[] = [];
    let forUpdateReceiver: string | undefined;
    let keyField: string | undefined;
    if (node.type === AST_NODE_TYPES.CallExpression) {
      const method = calleeName(node) ?? '';
      const object = calleeObject(node);
      const first = node.arguments[0];
      if (object && RECORD_READ_METHOD.test(method)) {
        readSink = 'object';
        readTarget = receiverPath(object).join('.');
      } else if (object && KEY_VALUE_READ_METHOD.test(method) && first && first.type !== AST_NODE_TYPES.SpreadElement && unwrap(first).type !== AST_NODE_TYPES.ObjectExpression) {
        const kind = analysis.receivers.kindOf(object);
        // Only Redis-like stores: `map.get(key)` is the common case and is skipped cheaply here.
        if (kind ? kind.type !== 'redis' : !/redis|valkey/i.test(receiverPath(object).join('.'))) continue;
        // A GET of a lock key is a lease check (below), not a stored token.
        if (locks.isLockKey(first)) continue;
        const text = sourceCode.getText(first);
        if (!TOKEN_KEY_TEXT.test(text) && !TOKEN_KEY_TEXT.test(keyText(first, sourceCode))) continue;
        readSink = 'redis';
        readTarget = keyText(first, sourceCode);
        keyField = 'token';
      } else if (first && unwrap(first).type === AST_NODE_TYPES.NewExpression && DYNAMO_READ_COMMAND.test(calleeName(unwrap(first) as TSESTree.NewExpression) ?? '')) {
        readSink = 'object';
      } else if (TOKEN_READER_NAME.test(method)) {
        // A helper that reads the stored token: `const stored = await loadFenceToken(id)`.
        readSink = 'object';
        keyField = undefined;
        selected = [analysis.tokenColumn];
      } else if (builders && isBuilderRead(node)) {
        // Builder reads and writes name their tables differently: targets are not compared.
        readSink = 'object';
        if (chainNames(node).some((n) => /^(?:forUpdate|forNoKeyUpdate|forShare)$/.test(n)) && inTransaction(node, receiverOf(node), analysis)) forUpdateReceiver = receiverOf(node) ?? '';
      }
    }
    if (!readSink) {
      if (!maySelect(node, sourceCode)) continue;
      const call = readSqlCall(node, sourceCode);
      const select = call?.source.analysis.statements.find((s) => s.kind === 'select');
      if (!call || !select || call.source.analysis.statements.some((s) => s.kind !== 'select')) continue;
      readSink = 'sql';
      readTarget = select.table;
      selected = select.selectedColumns;
      // FOR UPDATE holds the row only until the transaction ends: without one, the lock is gone at once.
      if (select.forUpdate && inTransaction(node, receiverOf(node), analysis)) forUpdateReceiver = receiverOf(node) ?? '';
    }
    for (const { comparison, field } of comparisonsOfValue(node, sourceCode)) {
      const ordering = ORDERING.has(comparison.operator);
      let compared: string | undefined;
      let needsStore = false;
      if (keyField) {
        // A Redis value under a token key: only an ordering comparison is a fencing check.
        if (!ordering) continue;
      } else {
        compared = field ?? (selected.length === 1 ? selected[0] : undefined);
        if (!compared) continue;
        if (!isStrongField(compared, analysis.tokenColumn)) {
          // A version compared for equality is optimistic concurrency when the write bumps it;
          // a plain `token` compared for equality is far more often an auth token.
          if (VERSION_FIELD.test(compared)) needsStore = !ordering;
          else if (!isHandleTokenName(compared) || !ordering) continue;
        }
      }
      for (const guard of guardsOf(comparison, sourceCode)) {
        out.push({ kind: 'storedToken', node: comparison, regions: guard.regions, field: compared, readTarget, readSink, forUpdateReceiver, needsStore });
      }
    }
  }
}

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

function readsDefinition(id: TSESTree.Identifier): TSESTree.VariableDeclarator | undefined {
  for (let scope: Node | undefined = id.parent; scope; scope = scope.parent) {
    if (scope.type !== AST_NODE_TYPES.BlockStatement && scope.type !== AST_NODE_TYPES.Program) continue;
    for (const statement of scope.body) {
      if (statement.type !== AST_NODE_TYPES.VariableDeclaration) continue;
      for (const d of statement.declarations) if (d.id.type === AST_NODE_TYPES.Identifier && d.id.name === id.name) return d;
    }
  }
  return undefined;
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

/** Method names worth a closer look as a validity check, an extension or a lock-key probe. */
function checkMethodNames(models: readonly LockModel[]): (name: string) => boolean {
  const names = new Set(models.flatMap((m) => [...m.validity, ...m.extend]));
  return (name) => names.has(name) || GENERIC_VALIDITY_MEMBER.test(name) || REMAINING_TIME_MEMBER.test(name) || GENERIC_EXTEND_METHOD.test(name) || /^(?:pttl|ttl|PTTL|TTL|exists|EXISTS)$/.test(name) || KEY_VALUE_READ_METHOD.test(name);
}

function validityChecks(analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys, out: Check[]): void {
  // Lease checks need a lease: an acquire in the file, or an etcd3 lease.
  if (analysis.acquires.length === 0 && !sourceCode.text.includes('etcd3')) return;
  const handles = handleModels(analysis);
  const interesting = checkMethodNames(analysis.receivers.models);
  const push = (kind: CheckKind, node: Node, guards: Guard[]) => {
    for (const guard of guards) out.push({ kind, node, regions: guard.regions });
  };
  for (const call of analysis.calls) {
    const method = calleeName(call) ?? '';
    const object = calleeObject(call);
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
  const object = calleeObject(site.node);
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

/** Cheap test before any work: the file mentions a stored token/version or a lease. */
const HINT = /fenc|token|version|revision|generation|epoch|\bseq|lock|lease|mutex/i;

/** Every write whose safety rests on an earlier, separate check, once per write (the nearest check wins). */
export function findCheckThenWrites(analysis: FileAnalysis, sourceCode: SourceCode): CheckThenWrite[] {
  if (analysis.calls.length === 0 || !HINT.test(sourceCode.text)) return [];
  const locks = new RedisLockKeys(analysis.calls, sourceCode);
  const checks: Check[] = [];
  storedTokenChecks(analysis, sourceCode, locks, checks);
  validityChecks(analysis, sourceCode, locks, checks);
  if (checks.length === 0) return [];

  const writeCache = new Map<Node, GuardedWrite | null>();
  const writeAt = (node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression) => {
    let w = writeCache.get(node);
    if (w === undefined) {
      w = readWrite(node, analysis, sourceCode, locks) ?? null;
      writeCache.set(node, w);
    }
    return w ?? undefined;
  };
  const candidates = [...analysis.calls, ...analysis.taggedTemplates].sort((a, b) => a.range[0] - b.range[0]);
  const found = new Map<Node, CheckThenWrite>();
  for (const check of checks) {
    for (const node of candidates) {
      if (node.range[0] < check.node.range[1] || !inRegions(node, check.regions)) continue;
      const write = writeAt(node);
      if (!write) continue;
      if (check.kind === 'storedToken' && !relevant(check, write)) continue;
      if (check.needsStore && !stores(write, check.field)) continue;
      if (write.carriesComparison(check.field)) {
        if (check.firstOnly) break;
        continue;
      }
      const previous = found.get(write.node);
      if (!previous || previous.check.range[0] < check.node.range[0]) found.set(write.node, { kind: check.kind, check: check.node, write, field: check.field });
      if (check.firstOnly) break;
    }
  }
  return [...found.values()].filter((f) => !serializable(f.write.node, sourceCode)).sort((a, b) => a.write.node.range[0] - b.write.node.range[0]);
}

function stores(write: GuardedWrite, field: string | undefined): boolean {
  return field !== undefined && write.stores.some((s) => s === field || camel(s) === camel(field));
}

/** The write targets what was read (same table, model or key), unless the target of either is unknown. */
function relevant(check: Check, write: GuardedWrite): boolean {
  // SELECT ... FOR UPDATE and the UPDATE on the same client: the row stays locked in between.
  if (check.forUpdateReceiver !== undefined && write.receiver === check.forUpdateReceiver) return false;
  // Redis keeps the token and the value under different keys, so keys are not compared.
  if (check.readSink === write.sink && write.sink !== 'redis' && check.readTarget && write.target && check.readTarget !== write.target) {
    return stores(write, check.field);
  }
  return true;
}

/** A SERIALIZABLE transaction in the same function makes the check and the write one unit. */
function serializable(node: Node, sourceCode: SourceCode): boolean {
  const fn = enclosingFunction(node);
  const text = fn ? sourceCode.getText(fn) : '';
  return /\bSERIALIZABLE\b|isolationLevel:\s*['"]?(?:Serializable|SERIALIZABLE)|IsolationLevel\.Serializable/.test(text);
}

