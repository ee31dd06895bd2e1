/**
 * Releases that name the lock only: `DEL lockKey`, `GET` then `DEL`, `DELETE FROM locks WHERE
 * name = $1`, etcd3 `delete().key(lockName)`, `authority.release(resourceKey)`. After the
 * holder's lease expires the lock may belong to a newer holder, and such a release frees that
 * holder's lock. A release is safe when the store compares the holder (owner, lease, token) in
 * the same atomic step: a compare-and-delete script, a `WHERE owner_id = ...`, a handle.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type { AcquireSite } from '../locks/acquires.js';
import { calleeName, calleeObject, constInitializer, contains, enclosingFunction, mayBeEmpty, memberName, propertyKeyName, propertyValue, receiverPath, staticString, unwrap, type Node } from '../ast.js';
import type { FileAnalysis } from '../file-analysis.js';
import { comparisonsOfValue, guardsOf, inRegions } from './guards.js';
import { readKnexWrite } from '../sinks/knex-writes.js';
import { DYNAMO_TRANSACT_WRITE, isLockTable, LOCK_EXPIRY_COLUMN, LOCK_HOLDER_COLUMN } from '../models/lock-tables.js';
import { GENERIC_RELEASE_METHOD } from '../models/locks.js';
import { isTokenColumnName } from '../models/token-names.js';
import { camel, clearedFields, objectWriteTable, readObjectWrite, tableName, type ObjectWrite } from '../sinks/object-writes.js';
import { receiverKey } from '../modules/receivers.js';
import { isLockNamedKey, keyText, RedisLockKeys, type SetNxSite } from '../locks/redis-locks.js';
import { readSqlCall, type SqlCall } from '../sinks/sql-writes.js';
import { keyArgument, sameKeyValues } from '../modules/param-sources.js';
import { clockImports, clockSourceOf, sqlClockFunction } from '../modules/value-origin.js';
import { claimedLeaseColumns, claimedLeaseFields, leaseColumnChecks } from './lease-columns.js';
import { lockRecordNeverExpires } from './record-lock-expiry.js';
import type { SqlStatementInfo } from '../sql/types.js';

export type NameOnlyRelease =
  | { kind: 'redisDelete'; node: TSESTree.CallExpression; key: Node; setNx?: SetNxSite; ownerValue?: Node }
  | { kind: 'redisCheckThenDelete'; node: TSESTree.CallExpression; key: Node; check: TSESTree.CallExpression; ownerValue: Node; setNx?: SetNxSite }
  | { kind: 'sqlRelease'; node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression; call: SqlCall; statement: SqlStatementInfo; nameColumns: string[]; cleared?: string }
  | { kind: 'recordRelease'; node: TSESTree.CallExpression; nameColumns: string[]; cleared?: string }
  | { kind: 'etcdDelete'; node: TSESTree.CallExpression; key: Node }
  | { kind: 'authorityByKey'; node: TSESTree.CallExpression; acquire: AcquireSite };

export interface ReleaseFindings {
  releases: NameOnlyRelease[];
  /** Columns each lock table is seen with anywhere in the file, for suggestions that follow the file's schema. */
  tableColumns: Map<string, Set<string>>;
  redisLocks: RedisLockKeys;
}

/** `del`, `UNLINK`, and bluebird-promisified `delAsync` (the command is the name without `Async`). */
const REDIS_DELETE = /^(?:del|unlink|DEL|UNLINK)(?:Async)?$/;
const REDIS_GET = /^(?:get|GET)(?:Async)?$/;
/** Lock-table flags and holders cleared by an UPDATE that releases a row. */
const HELD_FLAG = /^(?:locked|is_locked|held|is_held|active|is_active|taken|acquired)$/i;

function sameFunction(a: Node, b: Node): boolean {
  return enclosingFunction(a) === enclosingFunction(b);
}

/** `redis.del(key)` whose key was read with GET and compared first: the check-then-delete race. */
function checkBeforeDelete(del: TSESTree.CallExpression, key: Node, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): { check: TSESTree.CallExpression; ownerValue: Node } | undefined {
  const text = keyText(key, sourceCode);
  for (const get of calls) {
    if (get.range[0] >= del.range[0]) break;
    if (!REDIS_GET.test(calleeName(get) ?? '') || !calleeObject(get) || !get.arguments[0] || !sameFunction(get, del)) continue;
    if (keyText(get.arguments[0], sourceCode) !== text) continue;
    for (const { comparison, other } of comparisonsOfValue(get, sourceCode)) {
      if (!['===', '==', '!==', '!='].includes(comparison.operator)) continue;
      // Compared with a value (the owner id), not with null/undefined (an existence check).
      const o = unwrap(other);
      if (o.type === AST_NODE_TYPES.Literal || (o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined')) continue;
      if (guardsOf(comparison, sourceCode).some((g) => inRegions(del, g.regions))) return { check: get, ownerValue: other };
    }
  }
  return undefined;
}

/** `redis.watch(key)` before the delete: MULTI/EXEC fails if the key changed, so the delete is conditional. */
function watched(del: TSESTree.CallExpression, key: Node, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): boolean {
  const text = keyText(key, sourceCode);
  return calls.some((c) => c.range[0] < del.range[0] && /^(?:watch|WATCH)$/.test(calleeName(c) ?? '') && c.arguments.some((a) => keyText(a, sourceCode) === text) && sameFunction(c, del));
}

/** `call('DEL', key)`, `sendCommand(['DEL', key])`: the key a raw DEL command deletes. */
function rawDeleteKey(call: TSESTree.CallExpression): Node | undefined {
  const [first, second] = call.arguments;
  if (first?.type === AST_NODE_TYPES.ArrayExpression) {
    const [head, key] = first.elements;
    return head && head.type !== AST_NODE_TYPES.SpreadElement && /^(?:del|unlink)$/i.test(staticString(head) ?? '') && key && key.type !== AST_NODE_TYPES.SpreadElement ? key : undefined;
  }
  return first && /^(?:del|unlink)$/i.test(staticString(first) ?? '') && second && second.type !== AST_NODE_TYPES.SpreadElement ? second : undefined;
}

/**
 * `redis.eval("return redis.call('del', KEYS[1])", 1, key)`: a script that deletes without
 * comparing the value first is a DEL by name too. Returns the key argument.
 */
function scriptDeleteKey(call: TSESTree.CallExpression, sourceCode: SourceCode): Node | undefined {
  const [script, numKeys, key] = call.arguments;
  if (!script || script.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const s = unwrap(script);
  let text = staticString(s);
  if (text === undefined && s.type === AST_NODE_TYPES.Identifier) {
    const init = constInitializer(s, sourceCode);
    text = init && staticString(init);
  }
  if (!text || !/redis\.call\(\s*['"](?:del|unlink)['"]/i.test(text) || /==|~=|redis\.call\(\s*['"]get['"]/i.test(text)) return undefined;
  // ioredis eval(script, numKeys, key, ...); node-redis eval(script, { keys: [key] }).
  if (key && key.type !== AST_NODE_TYPES.SpreadElement && numKeys && staticString(numKeys) === undefined && unwrap(numKeys).type === AST_NODE_TYPES.Literal) return key;
  const options = numKeys && unwrap(numKeys);
  if (options?.type === AST_NODE_TYPES.ObjectExpression) {
    for (const p of options.properties) {
      if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === 'keys' && p.value.type === AST_NODE_TYPES.ArrayExpression) {
        const k = p.value.elements[0];
        return k && k.type !== AST_NODE_TYPES.SpreadElement ? k : undefined;
      }
    }
  }
  return undefined;
}


function redisReleases(analysis: FileAnalysis, locks: RedisLockKeys, sourceCode: SourceCode, out: NameOnlyRelease[]): void {
  for (const call of analysis.calls) {
    const method = calleeName(call) ?? '';
    let key: Node | undefined;
    let raw = false;
    if (REDIS_DELETE.test(method)) key = call.arguments[0];
    else if (STORE_DELETE.test(method) && inUnlockFunction(call) && onLeaseStore(call, locks)) {
      // `release(lock) { await this.store.delete(lock.key) }` on the store whose set-if-absent took the lock.
      const k = call.arguments[0];
      if (k && k.type !== AST_NODE_TYPES.SpreadElement) out.push({ kind: 'redisDelete', node: call, key: k });
      continue;
    }
    else if (/^(?:call|sendCommand|send_command)$/.test(method)) {
      key = rawDeleteKey(call);
      raw = true;
    } else if (/^(?:eval|EVAL)$/.test(method)) {
      key = scriptDeleteKey(call, sourceCode);
      raw = true;
    } else continue;
    const object = calleeObject(call);
    if (!object || !key || key.type === AST_NODE_TYPES.SpreadElement) continue;
    const kind = analysis.receivers.kindOf(object);
    if (kind && kind.type !== 'redis') continue;
    if (watched(call, key, analysis.calls, sourceCode)) continue;
    const checked = checkBeforeDelete(call, key, analysis.calls, sourceCode);
    // Only a SET NX that takes a lease makes its key a lock key: a once-only marker (a timestamp,
    // a constant, no expiry) or a store's set-if-absent frees no one's lock when deleted.
    const found = locks.setNxOf(key);
    // A key kept as a list, set or hash here is data: its DEL releases nothing.
    if (!found && locks.isDataKey(key)) continue;
    // The compare-and-delete suggestion rewrites a plain `del(key)` only.
    const setNx = raw ? undefined : found;
    const lockKey = found !== undefined || isLockNamedKey(key, sourceCode);
    if (raw && lockKey) {
      out.push(checked ? { kind: 'redisCheckThenDelete', node: call, key, check: checked.check, ownerValue: checked.ownerValue } : { kind: 'redisDelete', node: call, key });
      continue;
    }
    if (checked) {
      out.push({ kind: 'redisCheckThenDelete', node: call, key, check: checked.check, ownerValue: checked.ownerValue, setNx });
      continue;
    }
    const redisClient = kind?.type === 'redis' || /redis|valkey/i.test(receiverPath(object).join('.'));
    // A lock-named key counts when the file takes Redis locks or the receiver is a Redis client (by import or name).
    if (setNx || (lockKey && (locks.sites.length > 0 || redisClient))) {
      out.push({ kind: 'redisDelete', node: call, key, setNx, ownerValue: setNx?.value });
      continue;
    }
    if (!redisClient && locks.sites.length === 0) continue;
    // `async unlock() { await this.store.del(this.key); }`: a method named for unlocking deletes by name.
    if (!raw && inUnlockFunction(call)) {
      out.push({ kind: 'redisDelete', node: call, key });
      continue;
    }
    // A same-file wrapper `removeKey(key) { redis.del(key) }` called with a lock key: the call names the lock.
    for (const { caller, argument } of wrapperCallsWithLockKey(call, key, analysis, locks)) out.push({ kind: 'redisDelete', node: caller, key: argument });
  }
}

const STORE_DELETE = /^(?:delete|remove|deleteKey|removeKey)$/;

/** The receiver of a delete is the one a SET NX lease of this file was taken on (`this.store`). */
function onLeaseStore(call: TSESTree.CallExpression, locks: RedisLockKeys): boolean {
  const object = calleeObject(call);
  const key = object ? receiverKey(object) : undefined;
  return key !== undefined && locks.leases.some((site) => {
    const receiver = calleeObject(site.call);
    return receiver !== undefined && receiverKey(receiver) === key;
  });
}

/** A function named for unlocking (`unlock`, `releaseLock`, `Mutex#release`): what it deletes is the lock. */
function inUnlockFunction(node: Node): boolean {
  const fn = enclosingFunction(node);
  const name = fn && functionName(fn);
  if (!name) return false;
  if (/unlock|release_?(?:lock|mutex|lease)/i.test(name)) return true;
  if (!/^(?:release|free)$/i.test(name)) return false;
  const owner = fn.parent?.parent?.parent;
  return (owner?.type === AST_NODE_TYPES.ClassDeclaration || owner?.type === AST_NODE_TYPES.ClassExpression) && !!owner.id && /lock|mutex|lease|semaphore/i.test(owner.id.name);
}

/** Callers of the delete's enclosing function that pass a lock key for the parameter the delete uses as its key. */
function wrapperCallsWithLockKey(del: TSESTree.CallExpression, key: Node, analysis: FileAnalysis, locks: RedisLockKeys): Array<{ caller: TSESTree.CallExpression; argument: Node }> {
  const k = unwrap(key);
  const fn = enclosingFunction(del);
  if (k.type !== AST_NODE_TYPES.Identifier || !fn) return [];
  const index = fn.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === k.name);
  if (index < 0) return [];
  const out: Array<{ caller: TSESTree.CallExpression; argument: Node }> = [];
  for (const caller of analysis.functions.callersOf(fn)) {
    const argument = caller.arguments[index];
    if (argument && argument.type !== AST_NODE_TYPES.SpreadElement && locks.isLockKey(argument)) out.push({ caller, argument });
  }
  return out;
}

/**
 * A lock taken through a project helper (`cache.claim(key, id, ttl)` over a set-if-absent script)
 * and ended by another helper that only DELs the key it is given (`cache.delete(key)`): the call
 * names the lock, not its holder.
 */
function summarisedReleases(analysis: FileAnalysis, sourceCode: SourceCode, out: NameOnlyRelease[]): void {
  for (const site of analysis.acquires) {
    const release = site.release;
    if (!site.origin || (site.library !== 'redis-set-nx' && site.library !== 'redis-get-set') || release?.type !== AST_NODE_TYPES.CallExpression) continue;
    // A helper named for releasing (`leases.release(name)`) has its DEL reported in its own module.
    if (/unlock|release|free/i.test(calleeName(release) ?? '')) continue;
    for (const summary of analysis.callees?.summaryOf(release)?.releases ?? []) {
      const key = summary.by === 'name' ? keyArgument(release.arguments, summary.arg, summary.keyProperty) : undefined;
      // The same key as the acquire was given (not a handle whose field the helper reads: that DEL is reported where it is).
      if (!summary.plain || !key || site.keyArgText === undefined) continue;
      if (site.node.type === AST_NODE_TYPES.CallExpression && sharesHolderValue(site.node, release, key, sourceCode)) continue;
      if (site.node.type === AST_NODE_TYPES.CallExpression && site.origin && sameKeyValues(site.node, site.origin, release, summary, (n) => keyText(n, sourceCode)) === false) continue;
      if (keyText(key, sourceCode) === site.keyArgText || sourceCode.getText(key) === site.keyArgText) out.push({ kind: 'redisDelete', node: release, key });
    }
  }
}

/**
 * Both helpers are handed the same value besides the key, in their options (`acquireLock({ key, token })`
 * ... `clearLock({ key, token })`): the holder's own value, which the release can compare before it
 * deletes. Its plain DEL may be only the branch taken without one.
 */
function sharesHolderValue(acquire: TSESTree.CallExpression, release: TSESTree.CallExpression, key: Node, sourceCode: SourceCode): boolean {
  const optionValues = (call: TSESTree.CallExpression) =>
    call.arguments.flatMap((a) => {
      const object = unwrap(a);
      return object.type === AST_NODE_TYPES.ObjectExpression ? object.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property ? [unwrap(p.value as Node)] : [])) : [];
    });
  const keyWritten = sourceCode.getText(key);
  const given = new Set(optionValues(acquire).map((v) => sourceCode.getText(v)));
  return optionValues(release).some((v) => (v.type === AST_NODE_TYPES.Identifier || v.type === AST_NODE_TYPES.MemberExpression) && sourceCode.getText(v) !== keyWritten && given.has(sourceCode.getText(v)));
}

/** Condition columns that identify only the lock (its name), when none names the holder or the expiry. */
function nameOnlyColumns(statement: SqlStatementInfo, call: SqlCall, analysis: FileAnalysis): string[] | undefined {
  const { conditions } = statement;
  if (conditions.length === 0) return undefined;
  const names: string[] = [];
  for (const c of conditions) {
    const column = c.column.split('.').pop() ?? c.column;
    if (LOCK_HOLDER_COLUMN.test(column) || LOCK_EXPIRY_COLUMN.test(column) || column === analysis.tokenColumn) return undefined;
    if (c.value.params.some((n) => { const v = call.param(n); return v !== undefined && (analysis.tracer.isToken(v) || analysis.tracer.isHandle(v)); })) return undefined;
    if (c.op === '=' || c.op === 'IN' || c.op === '= ANY') names.push(column);
  }
  return names.length > 0 ? [...new Set(names)] : undefined;
}

/** An UPDATE of a lock table that gives the lock up: holder set to NULL, a held flag cleared, expiry set to now. */
function releasesRow(statement: SqlStatementInfo): boolean {
  return statement.assignments.some(({ column, value }) => {
    const text = value.text.trim().toLowerCase();
    if (LOCK_HOLDER_COLUMN.test(column)) return text === 'null';
    if (HELD_FLAG.test(column)) return text === 'false' || text === '0' || text === "'f'";
    if (LOCK_EXPIRY_COLUMN.test(column)) return text === 'null' || (value.functions.some((f) => f === 'now' || f === 'current_timestamp' || f === 'clock_timestamp') && !/[+-]/.test(text));
    return false;
  });
}

const LOCK_WORD_TABLE = /lock|mutex/;
const RELEASE_FUNCTION = /release|unlock|free|relinquish|drop|giveUp|resign|abandon|yield/i;

/**
 * A `leases` table may hold rental contracts: count a table as a lock table when its name says
 * lock or mutex, when the file shows it with a holder or expiry column, or when the delete
 * runs in a function named like a release.
 */
function lockSemantics(table: string, node: Node, tableColumns: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  if (LOCK_WORD_TABLE.test(table)) return true;
  const columns = tableColumns.get(table);
  if (columns && [...columns].some((c) => LOCK_HOLDER_COLUMN.test(c) || LOCK_EXPIRY_COLUMN.test(c))) return true;
  const fn = enclosingFunction(node);
  const name = fn && functionName(fn);
  return name !== undefined && RELEASE_FUNCTION.test(name);
}

function functionName(fn: Node): string | undefined {
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration && fn.id) return fn.id.name;
  const parent = fn.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) return parent.id.name;
  if ((parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.Property || parent?.type === AST_NODE_TYPES.PropertyDefinition) && parent.key.type === AST_NODE_TYPES.Identifier) return parent.key.name;
  return undefined;
}

/** Lock tables are named lock/lease/mutex: a cheap text test before parsing any SQL. */
function mayTouchLockTable(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, sourceCode: SourceCode): boolean {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) return node.quasi.quasis.some((q) => LOCK_TABLE_WORD.test(q.value.raw));
  const first = node.arguments[0];
  if (!first || !SQL_METHOD.test(calleeName(node) ?? '')) return false;
  const n = unwrap(first);
  if (n.type === AST_NODE_TYPES.Identifier) return true;
  if (n.type !== AST_NODE_TYPES.Literal && n.type !== AST_NODE_TYPES.TemplateLiteral && n.type !== AST_NODE_TYPES.ObjectExpression && n.type !== AST_NODE_TYPES.BinaryExpression) return false;
  return LOCK_TABLE_WORD.test(sourceCode.text.slice(n.range[0], Math.min(n.range[1], n.range[0] + 2000)));
}

const LOCK_TABLE_WORD = /lock|lease|mutex/i;
const SQL_METHOD = /^(?:query|execute|exec|run|raw|unsafe|none|one|oneOrNone|many|manyOrNone|any|result|multi|all|get|\$executeRawUnsafe|\$executeRaw|executeQuery|sql)$/;
/** Methods that delete a record through knex or an object API. */
const RECORD_DELETE = /^(?:del|delete|deleteOne|deleteMany|findOneAndDelete|destroy|send)$/;
/** Methods that update a record through an object API (a lease field cleared by them is a release). */
const RECORD_UPDATE = /^(?:send|update|updateItem|updateOne|updateMany|findOneAndUpdate|findByIdAndUpdate)$/;

function sqlReleases(analysis: FileAnalysis, sourceCode: SourceCode, tableColumns: Map<string, Set<string>>, out: NameOnlyRelease[]): void {
  const nodes: Array<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression> = [...analysis.calls, ...analysis.taggedTemplates];
  const candidates: Array<{ node: (typeof nodes)[number]; call: SqlCall; statement: SqlStatementInfo }> = [];
  // Columns each acquire fills with a fresh random value: a holder's own id, not the lock's name.
  const holderColumns = new Map<string, Set<string>>();
  // First every statement on a lock table, so the columns the file uses are known before judging.
  for (const node of nodes) {
    if (!mayTouchLockTable(node, sourceCode)) continue;
    const call = readSqlCall(node, sourceCode, undefined, analysis.receivers.catalog);
    if (!call) continue;
    for (const statement of call.source.analysis.statements) {
      if (!isLockTable(statement.table)) continue;
      const columns = tableColumns.get(statement.table!) ?? new Set<string>();
      for (const a of [...statement.assignments, ...(statement.insertedValues ?? [])]) columns.add(a.column);
      for (const c of statement.conditions) columns.add(c.column.split('.').pop() ?? c.column);
      for (const c of statement.selectedColumns) columns.add(c);
      tableColumns.set(statement.table!, columns);
      for (const column of randomlyInserted(statement, call, sourceCode)) {
        const set = holderColumns.get(statement.table!) ?? new Set<string>();
        holderColumns.set(statement.table!, set.add(column));
      }
      if (statement.kind === 'delete' || (statement.kind === 'update' && releasesRow(statement))) candidates.push({ node, call, statement });
    }
  }
  leaseFieldReleases(analysis, sourceCode, out);
  for (const { node, call, statement } of candidates) {
    if (!lockSemantics(statement.table!, node, tableColumns)) continue;
    const holders = holderColumns.get(statement.table!);
    if (holders && statement.conditions.some((c) => holders.has(c.column.split('.').pop() ?? c.column))) continue;
    const nameColumns = nameOnlyColumns(statement, call, analysis);
    if (nameColumns) out.push({ kind: 'sqlRelease', node, call, statement, nameColumns });
  }
}

/**
 * Columns an acquire of a lock table fills with a value made for that acquire: at random
 * (`VALUES ($1, $2)` with `$2` bound to `randomUUID()` or `uuidv4()`, directly or through a
 * `const`, or `gen_random_uuid()` in the SQL), or a holder id built from one or from the clock
 * (`` `${job}-${Date.now()}` ``), inserted or set when the upsert takes an expired row over (its
 * `DO UPDATE SET`, an `UPDATE ... SET`). Every acquire writes a new one, so a row picked by it is
 * the row of the holder that has that value, and a release by it compares the holder. A bare
 * timestamp column (`locked_at = $3` bound to `new Date()`) is the acquire's time, not an id.
 */
function randomlyInserted(statement: SqlStatementInfo, call: SqlCall, sourceCode: SourceCode): string[] {
  if (statement.kind !== 'insert' && statement.kind !== 'update') return [];
  const out: string[] = [];
  const conflict = new Set(statement.conflictColumns ?? []);
  for (const { column, value } of [...(statement.insertedValues ?? []), ...statement.assignments]) {
    if (conflict.has(column.toLowerCase()) || LOCK_EXPIRY_COLUMN.test(column)) continue;
    if (sqlClockFunction(value)?.kind === 'random') out.push(column);
    else if (value.params.length === 1 && value.columns.length === 0 && value.text.trim() === `$${value.params[0]}` && isHolderValue(call.param(value.params[0]!), sourceCode)) out.push(column);
  }
  return out;
}

/**
 * A random source call, as bound (`{ type: 'uuid', value: id }` for a typed parameter), or a
 * `const` bound to one; or a text joined from one or from the clock (`` `${name}-${Date.now()}` ``).
 */
function isHolderValue(node: Node | undefined, sourceCode: SourceCode, joined = false, depth = 0): boolean {
  let n = node && unwrap(node);
  if (n?.type === AST_NODE_TYPES.ObjectExpression) n = propertyValue(n, 'value');
  n = n && unwrap(n);
  if (n?.type === AST_NODE_TYPES.Identifier) {
    const def = ASTUtils.findVariable(sourceCode.getScope(n), n.name)?.defs[0];
    const declaration = def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.id.type === AST_NODE_TYPES.Identifier && def.parent?.type === AST_NODE_TYPES.VariableDeclaration && def.parent.kind === 'const' ? def.node : undefined;
    n = declaration?.init ? unwrap(declaration.init) : undefined;
  }
  if (!n || depth > 3) return false;
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.expressions.some((e) => isHolderValue(e, sourceCode, true, depth + 1));
  if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') return [n.left, n.right].some((e) => isHolderValue(e, sourceCode, true, depth + 1));
  if (n.type !== AST_NODE_TYPES.CallExpression && n.type !== AST_NODE_TYPES.NewExpression) return false;
  const kind = clockSourceOf(n, sourceCode, clockImports(sourceCode))?.kind;
  return kind === 'random' || (joined && kind !== undefined);
}

/**
 * `UPDATE positions SET move_started = NULL ... WHERE id = $1` in a release function, where
 * `moveStarted` is a lease kept by hand (checked against the clock elsewhere in the file); and in
 * any function, a column the file claims while it is empty (`claimedLeaseColumns`), set to NULL or
 * to a value that may be empty (the run's state written back: `$2` bound to `job.lockedAt || null`).
 */
function leaseFieldReleases(analysis: FileAnalysis, sourceCode: SourceCode, out: NameOnlyRelease[]): void {
  const fields = leaseColumnChecks(sourceCode, []).map((f) => camel(f));
  const nodes = [...analysis.calls, ...analysis.taggedTemplates];
  const isSqlCall = (call: TSESTree.CallExpression) => SQL_METHOD.test(calleeName(call) ?? '');
  const claimed = claimedLeaseColumns(nodes, sourceCode, isSqlCall).map((c) => camel(c));
  if (fields.length === 0 && claimed.length === 0) return;
  for (const node of nodes) {
    const fn = enclosingFunction(node);
    const releasing = fn !== undefined && RELEASE_FUNCTION.test(functionName(fn) ?? '');
    if (!releasing && claimed.length === 0) continue;
    if (node.type === AST_NODE_TYPES.CallExpression && !isSqlCall(node)) continue;
    const call = readSqlCall(node, sourceCode);
    for (const statement of call?.source.analysis.statements ?? []) {
      if (statement.kind !== 'update' || isLockTable(statement.table)) continue;
      const cleared = statement.assignments.find((a) => {
        const column = camel(a.column);
        if (claimed.includes(column)) return a.value.text.trim().toLowerCase() === 'null' || (a.value.params.length === 1 && a.value.columns.length === 0 && a.value.text.trim() === `$${a.value.params[0]}` && mayBeEmptyParam(call!, a.value.params[0]!));
        return releasing && fields.includes(column) && a.value.text.trim().toLowerCase() === 'null';
      });
      if (!cleared || statement.conditions.some((c) => camel(c.column.split('.').pop() ?? c.column) === camel(cleared.column))) continue;
      const nameColumns = nameOnlyColumns(statement, call!, analysis);
      if (nameColumns) out.push({ kind: 'sqlRelease', node, call: call!, statement, nameColumns, cleared: cleared.column });
    }
  }
}

/** `$n` bound to a value that may be empty (`job.lockedAt || null`). */
function mayBeEmptyParam(call: SqlCall, n: number): boolean {
  const bound = call.param(n);
  return bound !== undefined && mayBeEmpty(bound);
}

/** `distributedLock`, `LockModel`, `lockRepository`, `service-locks` -> `distributed_lock`, `lock`, `lock`, `service_locks`. */
function objectKeyNames(object: TSESTree.ObjectExpression | undefined): string[] | undefined {
  if (!object) return undefined;
  const keys: string[] = [];
  for (const p of object.properties) {
    if (p.type !== AST_NODE_TYPES.Property) return undefined;
    const key = propertyKeyName(p);
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}

/** A column or attribute that names the holder, the token or the expiry (`ownerId`, `lease_id`, `leaseUntil`). */
function namesHolder(column: string, tokenColumn: string): boolean {
  const snake = column.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return LOCK_HOLDER_COLUMN.test(snake) || LOCK_EXPIRY_COLUMN.test(snake) || snake === tokenColumn || isTokenColumnName(snake);
}

/** Filter columns that name only the lock: none names the holder, the token or the expiry. */
function nameOnly(columns: readonly string[] | undefined, tokenColumn: string): string[] | undefined {
  if (!columns || columns.length === 0) return undefined;
  for (const column of columns) {
    if (column.startsWith('$') || namesHolder(column, tokenColumn)) return undefined;
  }
  return columns.slice();
}

function asObject(node: Node | undefined): TSESTree.ObjectExpression | undefined {
  const n = node && unwrap(node);
  return n?.type === AST_NODE_TYPES.ObjectExpression ? n : undefined;
}

/** A string, or the const it is bound to, or the fallback of `process.env.X ?? 'locks'`; else the const's own name (`LOCK_TABLE`). */
function stringOrConst(node: Node | undefined, sourceCode: SourceCode): string | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  const text = staticString(n);
  if (text !== undefined) return text;
  if (n.type === AST_NODE_TYPES.LogicalExpression) return stringOrConst(n.right, sourceCode);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const init = constInitializer(n, sourceCode);
    return (init && stringOrConst(init, sourceCode)) ?? n.name;
  }
  return undefined;
}

/** Attributes a DynamoDB expression names, `#placeholders` resolved through `ExpressionAttributeNames`. */
function dynamoAttributes(expression: string, input: TSESTree.ObjectExpression, sourceCode: SourceCode): string[] {
  const names = asObject(propertyValue(input, 'ExpressionAttributeNames'));
  const out: string[] = [];
  for (const [word] of expression.matchAll(/#?[A-Za-z_][\w]*/g)) {
    if (/^(?:AND|OR|NOT|BETWEEN|IN|SET|REMOVE|ADD|DELETE)$/i.test(word)) continue;
    out.push(word.startsWith('#') ? (stringOrConst(propertyValue(names, word), sourceCode) ?? word) : word);
  }
  return out;
}

/**
 * Whether a DynamoDB condition compares the holder, the token or the expiry. `attribute_exists(lockId)`
 * only asks that the item exists: after a takeover it still does.
 */
function dynamoConditionNamesHolder(input: TSESTree.ObjectExpression, tokenColumn: string, sourceCode: SourceCode): boolean {
  const condition = stringOrConst(propertyValue(input, 'ConditionExpression'), sourceCode);
  // A condition built at run time may compare anything: give it the benefit of the doubt.
  if (condition === undefined) return propertyValue(input, 'ConditionExpression') !== undefined;
  const compared = condition.replace(/\b(?:attribute_exists|attribute_not_exists|attribute_type|size)\s*\([^)]*\)/g, ' ');
  return dynamoAttributes(compared.replace(/:\w+/g, ' '), input, sourceCode).some((a) => namesHolder(a, tokenColumn));
}

/** An UpdateExpression that gives a lock item up: `REMOVE ownerId` or the holder or expiry set anew. */
function dynamoClearsHolder(input: TSESTree.ObjectExpression, tokenColumn: string, sourceCode: SourceCode): boolean {
  const update = stringOrConst(propertyValue(input, 'UpdateExpression'), sourceCode);
  if (!update) return false;
  const removed = /\bREMOVE\s+([^]*?)(?=\b(?:SET|ADD|DELETE)\b|$)/i.exec(update)?.[1] ?? '';
  if (dynamoAttributes(removed, input, sourceCode).some((a) => namesHolder(a, tokenColumn) || HELD_FLAG.test(a))) return true;
  const set = /\bSET\s+([^]*?)(?=\b(?:REMOVE|ADD|DELETE)\b|$)/i.exec(update)?.[1] ?? '';
  const values = asObject(propertyValue(input, 'ExpressionAttributeValues'));
  for (const assignment of set.split(',')) {
    const [left, right] = assignment.split('=').map((t) => t.trim());
    const value = right && /^:\w+$/.test(right) ? propertyValue(values, right) : undefined;
    const v = value && unwrap(value);
    const cleared = v?.type === AST_NODE_TYPES.Literal && (v.value === null || v.value === false || v.value === 0);
    if (cleared && left && dynamoAttributes(left, input, sourceCode).some((a) => namesHolder(a, tokenColumn) || HELD_FLAG.test(a))) return true;
  }
  return false;
}

/** A DynamoDB delete (or an update that clears the holder) of a lock item, by key only: its key attributes, else undefined. */
function dynamoNameOnlyRelease(input: TSESTree.ObjectExpression, kind: string, call: Node, tableColumns: ReadonlyMap<string, ReadonlySet<string>>, tokenColumn: string, sourceCode: SourceCode): string[] | undefined {
  const table = tableName(stringOrConst(propertyValue(input, 'TableName'), sourceCode));
  if (!isLockTable(table) || !lockSemantics(table!, call, tableColumns)) return undefined;
  if (kind !== 'delete' && !(kind === 'update' && dynamoClearsHolder(input, tokenColumn, sourceCode))) return undefined;
  if (dynamoConditionNamesHolder(input, tokenColumn, sourceCode)) return undefined;
  const key = asObject(propertyValue(input, 'Key'));
  return nameOnly(key ? objectKeyNames(key) : undefined, tokenColumn);
}

/** `new TransactWriteCommand({ TransactItems: [{ Delete: {...} }, { Update: {...} }] })`: its items. */
function transactItems(call: TSESTree.CallExpression): Array<{ kind: string; input: TSESTree.ObjectExpression }> {
  const first = call.arguments[0] && unwrap(call.arguments[0]);
  const holder = first?.type === AST_NODE_TYPES.NewExpression && DYNAMO_TRANSACT_WRITE.test(calleeName(first) ?? '') ? first : DYNAMO_TRANSACT_WRITE.test(calleeName(call) ?? '') ? call : undefined;
  const arg = holder?.arguments[0] && asObject(holder.arguments[0] as Node);
  const list = propertyValue(arg, 'TransactItems');
  const items = list && unwrap(list);
  if (items?.type !== AST_NODE_TYPES.ArrayExpression) return [];
  const out: Array<{ kind: string; input: TSESTree.ObjectExpression }> = [];
  for (const item of items.elements) {
    const o = item && item.type !== AST_NODE_TYPES.SpreadElement ? asObject(item) : undefined;
    const del = asObject(propertyValue(o, 'Delete'));
    const update = asObject(propertyValue(o, 'Update'));
    if (del) out.push({ kind: 'delete', input: del });
    if (update) out.push({ kind: 'update', input: update });
  }
  return out;
}

/** The field a knex `update({...})` empties to give a lock row up, as `releasesRow` reads SQL: the holder or expiry set to null, a held flag cleared. */
function knexClearedHolder(values: TSESTree.ObjectExpression | undefined): string | undefined {
  for (const p of values?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const column = propertyKeyName(p) ?? '';
    const v = unwrap(p.value as Node);
    if (v.type !== AST_NODE_TYPES.Literal) continue;
    if ((LOCK_HOLDER_COLUMN.test(column) || LOCK_EXPIRY_COLUMN.test(column)) && v.value === null) return column;
    if (HELD_FLAG.test(column) && (v.value === false || v.value === 0)) return column;
  }
  return undefined;
}

/** Columns a knex chain filters on: `.where({ name })`, `.where('name', name)`; undefined when a raw or dynamic filter is used. */
function knexWhereColumns(links: readonly TSESTree.CallExpression[]): string[] | undefined {
  const columns: string[] = [];
  for (const link of links) {
    const name = calleeName(link) ?? '';
    if (!/where/i.test(name)) continue;
    if (/Raw$|^orWhere/.test(name)) return undefined;
    const first = link.arguments[0];
    if (!first) continue;
    const f = unwrap(first);
    if (f.type === AST_NODE_TYPES.ObjectExpression) {
      const keys = objectKeyNames(f);
      if (!keys) return undefined;
      columns.push(...keys.map((k) => k.split('.').pop() ?? k));
    } else {
      const column = staticString(f);
      if (column === undefined) return undefined;
      columns.push(column.split('.').pop() ?? column);
    }
  }
  return columns;
}

/** Lock-table deletes through knex and object APIs (Prisma, MongoDB, Sequelize, TypeORM, DynamoDB). */
function recordReleases(analysis: FileAnalysis, sourceCode: SourceCode, tableColumns: ReadonlyMap<string, ReadonlySet<string>>, out: NameOnlyRelease[]): void {
  let leaseFields: string[] | undefined;
  let claimedFields: string[] | undefined;
  for (const call of analysis.calls) {
    const items = transactItems(call);
    if (items.length > 0) {
      const columns = items.map((i) => dynamoNameOnlyRelease(i.input, i.kind, call, tableColumns, analysis.tokenColumn, sourceCode)).find((c) => c !== undefined);
      if (columns) out.push({ kind: 'recordRelease', node: call, nameColumns: columns });
      continue;
    }
    if (!RECORD_DELETE.test(calleeName(call) ?? '') && !RECORD_UPDATE.test(calleeName(call) ?? '')) continue;
    const knex = readKnexWrite(call, analysis.receivers);
    if (knex) {
      const cleared = knex.kind === 'update' ? knexClearedHolder(knex.values) : undefined;
      if ((knex.kind !== 'delete' && !cleared) || !isLockTable(knex.table) || !lockSemantics(knex.table!, call, tableColumns)) continue;
      const columns = nameOnly(knexWhereColumns(knex.links), analysis.tokenColumn);
      if (columns) out.push({ kind: 'recordRelease', node: call, nameColumns: columns, ...(cleared ? { cleared } : {}) });
      continue;
    }
    const first = call.arguments[0] && unwrap(call.arguments[0]);
    const write = first?.type === AST_NODE_TYPES.NewExpression ? readObjectWrite(first, analysis.receivers) : readObjectWrite(call, analysis.receivers);
    if (write?.api === 'dynamodb' && write.filter) {
      const columns = dynamoNameOnlyRelease(write.filter, write.kind, call, tableColumns, analysis.tokenColumn, sourceCode);
      if (columns) out.push({ kind: 'recordRelease', node: call, nameColumns: columns });
      continue;
    }
    const emptied = write?.kind === 'update' ? clearedFields(write) : [];
    if (write?.kind === 'update' && (write.values || emptied.length > 0)) {
      // A lease kept by hand in a record field (see `lease-columns.ts`), cleared by a filter that names only the record.
      leaseFields ??= leaseColumnChecks(sourceCode, []);
      // A field the file claims (on the condition that it is empty, or with the row's move out of a state) is a lease wherever it is cleared.
      claimedFields ??= claimedLeaseFields(analysis.calls, analysis.receivers);
      const claimed = claimedFields.find((f) => emptied.includes(f));
      const cleared = claimed ?? leaseFields.find((f) => emptied.includes(f));
      const fn = enclosingFunction(call);
      const releasing = claimed !== undefined || (fn !== undefined && RELEASE_FUNCTION.test(functionName(fn) ?? ''));
      const filterKeys = objectKeyNames(write.filter);
      // The filter names the claim (its holder or its time): only this holder's claim is cleared.
      if (cleared && releasing && filterKeys && !filterKeys.includes(cleared) && !(claimed !== undefined && claimedFields.some((f) => filterKeys.includes(f)))) {
        const columns = nameOnly(filterKeys, analysis.tokenColumn);
        if (columns) out.push({ kind: 'recordRelease', node: call, nameColumns: columns, cleared });
      }
      continue;
    }
    if (!write || write.kind !== 'delete') continue;
    const table = objectWriteTable(write, sourceCode);
    if (!isLockTable(table) || !lockSemantics(table!, call, tableColumns)) continue;
    // A lock record with no expiry is held until deleted: no lease lapses for a newer holder to take.
    if (lockRecordNeverExpires(table!, analysis)) continue;
    const columns = nameOnly(objectKeyNames(write.filter), analysis.tokenColumn);
    if (columns) out.push({ kind: 'recordRelease', node: call, nameColumns: columns });
  }
}

/** The etcd3 client a receiver is, and the namespace prefix it writes under (`client.namespace('locks/')`). */
function etcdClient(node: Node, analysis: FileAnalysis, sourceCode: SourceCode, depth = 0): { prefix: string } | undefined {
  const n = unwrap(node);
  const kind = analysis.receivers.kindOf(n);
  if (kind?.type === 'authority' && kind.model.id === 'etcd3') return { prefix: '' };
  if (n.type === AST_NODE_TYPES.CallExpression && calleeName(n) === 'namespace' && depth < 3) {
    const parent = calleeObject(n);
    const inner = parent && etcdClient(parent, analysis, sourceCode, depth + 1);
    return inner && { prefix: inner.prefix + (n.arguments[0] ? (stringOrConst(n.arguments[0], sourceCode) ?? '') : '') };
  }
  if (n.type === AST_NODE_TYPES.Identifier && depth < 3) {
    const init = constInitializer(n, sourceCode);
    if (init) return etcdClient(init, analysis, sourceCode, depth + 1);
  }
  return /etcd/i.test(receiverKey(n) ?? receiverPath(n).join('.')) ? { prefix: '' } : undefined;
}

/** Keys put under an etcd lease (`lease.put(key)`): an election or lock key that the lease's revoke frees. */
function leasedKeys(analysis: FileAnalysis, sourceCode: SourceCode): Set<string> {
  const keys = new Set<string>();
  for (const call of analysis.calls) {
    if (calleeName(call) !== 'put' || !call.arguments[0]) continue;
    const object = calleeObject(call);
    if (!object) continue;
    const o = unwrap(object);
    const init = o.type === AST_NODE_TYPES.Identifier ? constInitializer(o, sourceCode) : o;
    if (init && unwrap(init).type === AST_NODE_TYPES.CallExpression && calleeName(unwrap(init) as TSESTree.CallExpression) === 'lease') keys.add(keyText(call.arguments[0], sourceCode));
    // `client.put(key).value(v).lease(leaseId)`: the same key, attached to a lease by id.
    else if (putChainLeased(call)) keys.add(keyText(call.arguments[0], sourceCode));
  }
  return keys;
}

/** Whether a `put(key)` builder is given a lease further along its chain (`.value(v).lease(id)`). */
function putChainLeased(put: TSESTree.CallExpression): boolean {
  let current: Node = put;
  for (let i = 0; i < 6; i++) {
    const parent: Node | undefined = current.parent;
    if (parent?.type !== AST_NODE_TYPES.MemberExpression || parent.object !== current || parent.parent?.type !== AST_NODE_TYPES.CallExpression) return false;
    const link: TSESTree.CallExpression = parent.parent;
    if (memberName(parent) === 'lease' && link.arguments.length === 1) return true;
    current = link;
  }
  return false;
}

/**
 * etcd3 `client.delete().key(name)` (or `.prefix(name)`) of a lock key, outside a transaction
 * that compares it: the lock belongs to a lease, and revoking the lease is what frees only one's own.
 * A key is a lock key by its name, its namespace (`namespace('locks/')`), because it was put
 * under a lease in this file, or because it is deleted in a function named like a release.
 */
function etcdReleases(analysis: FileAnalysis, locks: RedisLockKeys, sourceCode: SourceCode, out: NameOnlyRelease[]): void {
  let leased: Set<string> | undefined;
  for (const call of analysis.calls) {
    const method = calleeName(call);
    if (method !== 'key' && method !== 'prefix') continue;
    const builder = calleeObject(call);
    if (!builder || builder.type !== AST_NODE_TYPES.CallExpression || calleeName(builder) !== 'delete' || builder.arguments.length > 0) continue;
    const client = calleeObject(builder);
    const key = call.arguments[0];
    if (!client || !key || key.type === AST_NODE_TYPES.SpreadElement) continue;
    const etcd = etcdClient(client, analysis, sourceCode);
    if (!etcd) continue;
    leased ??= leasedKeys(analysis, sourceCode);
    const fn = enclosingFunction(call);
    const name = fn && functionName(fn);
    const lockKey = locks.isLockKey(key) || LOCK_WORD_TABLE.test(etcd.prefix) || leased.has(keyText(key, sourceCode)) || (name !== undefined && RELEASE_FUNCTION.test(name) && !/prefix/.test(method));
    if (!lockKey) continue;
    // `client.if(key, 'Value', '==', id).then(client.delete().key(key))` compares in the same transaction.
    let inTransaction = false;
    for (let p: Node | undefined = call.parent; p && !inTransaction; p = p.parent) {
      if (p.type === AST_NODE_TYPES.CallExpression && receiverPath(p.callee).some((part) => part === 'if()' || part === 'txn()' || part === 'compare()')) inTransaction = true;
      if (p.type.endsWith('Statement') || p.type === AST_NODE_TYPES.VariableDeclaration) break;
    }
    if (!inTransaction) out.push({ kind: 'etcdDelete', node: call, key });
  }
}

/** Identifiers an argument reads, to see whether it passes the handle. */
function readsName(node: Node, names: ReadonlySet<string>, sourceCode: SourceCode): boolean {
  const text = sourceCode.getText(node);
  for (const name of names) if (new RegExp(`(?:^|[^\\w$.])${name.replace(/[$.]/g, '\\$&')}(?![\\w$])`).test(text)) return true;
  return false;
}

/** A value named in the code (`runId`, `this.instanceId`), not a literal or an expression built on the spot. */
function isNamedValue(node: Node): boolean {
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.Identifier || (n.type === AST_NODE_TYPES.MemberExpression && !n.computed);
}

/** `authority.release(resourceKey)` after `const lease = await authority.acquire(resourceKey)`. */
function authorityReleases(analysis: FileAnalysis, sourceCode: SourceCode, out: NameOnlyRelease[]): void {
  for (const site of analysis.acquires) {
    if (!site.authorityKey || (!site.handleKey && site.destructured.size === 0)) continue;
    if (site.library === 'redis-set-nx' || site.library === 'redis-get-set' || site.library === 'pg-advisory-lock' || site.node.type !== AST_NODE_TYPES.CallExpression) continue;
    const resource = site.node.arguments[0];
    if (!resource || resource.type === AST_NODE_TYPES.SpreadElement) continue;
    const resourceText = keyText(resource, sourceCode);
    if (staticString(resource) === undefined && unwrap(resource).type === AST_NODE_TYPES.ObjectExpression) continue;
    const handleNames = new Set<string>([...(site.handleKey ? [site.handleKey] : []), ...site.destructured.values()]);
    // The holder's own value the acquire was handed besides the resource (`acquireLock(key, executionId)`).
    const holderValues = new Set(site.node.arguments.slice(1).flatMap((a) => (isNamedValue(a) ? [sourceCode.getText(a)] : [])));
    const scope = site.scope.type === AST_NODE_TYPES.Program ? site.scope.range : site.scope.body.range;
    for (const call of analysis.calls) {
      if (call.range[0] < site.node.range[1] || !contains(scope, call)) continue;
      const method = calleeName(call) ?? '';
      const object = calleeObject(call);
      if (!object || receiverKey(object) !== site.authorityKey) continue;
      const model = analysis.receivers.models.find((m) => m.id === site.library);
      if (!GENERIC_RELEASE_METHOD.test(method) && !(model?.authorityRelease.includes(method) ?? false)) continue;
      if (call.arguments.length === 0 || call.arguments.some((a) => readsName(a, handleNames, sourceCode))) continue;
      // `releaseLock(key, executionId)`: handed the holder's value too, the release can compare it.
      if (call.arguments.slice(1).some((a) => isNamedValue(a) && holderValues.has(sourceCode.getText(a)))) continue;
      if (call.arguments.some((a) => keyText(a, sourceCode) === resourceText)) out.push({ kind: 'authorityByKey', node: call, acquire: site });
    }
  }
}

/** Every name-only release of the file, in source order. Cheap when the file takes no lock. */
export function findNameOnlyReleases(analysis: FileAnalysis, sourceCode: SourceCode): ReleaseFindings {
  const redisLocks = new RedisLockKeys(analysis.calls, sourceCode);
  const releases: NameOnlyRelease[] = [];
  const tableColumns = new Map<string, Set<string>>();
  if (analysis.calls.length === 0) return { releases, tableColumns, redisLocks };
  redisReleases(analysis, redisLocks, sourceCode, releases);
  sqlReleases(analysis, sourceCode, tableColumns, releases);
  recordReleases(analysis, sourceCode, tableColumns, releases);
  etcdReleases(analysis, redisLocks, sourceCode, releases);
  authorityReleases(analysis, sourceCode, releases);
  summarisedReleases(analysis, sourceCode, releases);
  // A function named for forcing a lock free (`forceReleaseLock(key)`, `forceUnlock`) is the admin
  // tool that frees a stuck lock by name on purpose: there is no holder to name.
  const kept = releases.filter((r) => {
    const fn = enclosingFunction(r.node);
    return !(fn && FORCED_RELEASE_FUNCTION.test(functionName(fn) ?? ''));
  });
  kept.sort((a, b) => a.node.range[0] - b.node.range[0]);
  return { releases: kept, tableColumns, redisLocks };
}

const FORCED_RELEASE_FUNCTION = /^force(?:d)?(?:Release|Unlock|Free|Clear|Delete|Remove|Break)/;
