/**
 * How far a PostgreSQL advisory lock reaches. `pg_advisory_xact_lock` holds until its
 * transaction ends; `pg_advisory_lock` until its session unlocks it or ends. A write on the
 * same connection inside that span cannot land after the lock is gone: the lock ends only
 * when the transaction (or the session) does, and the write ends with it. A write through
 * another connection, or through the pool, is bound to nothing and still needs a fence.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, enclosingFunction, isFunctionNode, memberName, propertyKeyName, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { receiverKey } from '../modules/receivers.js';
import { BATCH_TRANSACTION_METHODS } from '../models/sinks.js';

export type AdvisoryScope = 'transaction' | 'session';

export interface AdvisoryLock {
  /** The exact function, lower-case: `pg_advisory_xact_lock`, `pg_try_advisory_lock_shared`. */
  fn: string;
  scope: AdvisoryScope;
  /** The connection it was taken on (`client`, `trx`, `this.db`), when it is a stable name. */
  connection?: string;
}

export type SqlNode = TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;

const ADVISORY_FUNCTION = /\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?(?=\s*\()/i;
const BEGIN = /^\s*(?:BEGIN|START\s+TRANSACTION)\b/i;
const TRANSACTION_END = /^\s*(?:COMMIT|ROLLBACK|END)\b/i;
/** Calls whose callback runs in one transaction on one connection: knex, Prisma, postgres.js, pg-promise, Sequelize, TypeORM, Kysely. */
const TRANSACTION_CALLBACK = /^(?:transaction|\$transaction|begin|tx|task|withTransaction|runInTransaction|serializable)$/;
/** Calls that open a transaction object without a callback: knex `await db.transaction()`, Sequelize `sequelize.transaction()`. */
const TRANSACTION_OPEN = /^(?:transaction|startTransaction|beginTransaction)$/;
/** Calls that hand out one dedicated connection: pg `pool.connect()`, mysql2 `getConnection()`, postgres.js `sql.reserve()`. */
const DEDICATED_OPEN = /^(?:connect|getConnection|reserve|acquire|acquireConnection)$/;
const DEDICATED_TYPE = /^(?:PoolClient|Client|ClientBase|PoolConnection|Connection|ReservedSql|QueryRunner|EntityManager)$/;
/**
 * Types that only a transaction has: Prisma's interactive `Prisma.TransactionClient`, knex's
 * `Knex.Transaction`, Sequelize's and Kysely's `Transaction`, postgres.js `TransactionSql`, Drizzle's
 * `PgTransaction`, Slonik's `DatabaseTransactionConnection`, and the project's aliases of them by
 * their usual names (`Tx`, `PrismaTx`, `DbTransaction`). A parameter of such a type is the
 * transaction its caller opened: an xact lock taken on it holds until that transaction ends.
 */
const TRANSACTION_TYPE = /^(?:(?:Pg|Prisma|Db|DB|Knex|Kysely|Drizzle|Sequelize|Database|Sql)?Transaction(?:Client|Sql|Connection)?|Tx|Trx|TxClient|PrismaTx|DbTx|PrismaTransactionClient)$/;
const POOL_TYPE = /^(?:Pool|PrismaClient|Knex|Sql|Sequelize|DataSource|DatabasePool|Kysely)$/;
const POOL_CREATION = /^(?:Pool|createPool|postgres|knex|PrismaClient|Sequelize|DataSource|createKysely|drizzle|neon)$/;
const DEDICATED_CREATION = /^(?:Client|createConnection)$/;
const POOL_NAME = /pool|prisma|knex|^(?:db|database|sql|pg|orm|sequelize|dataSource)$/i;
const DEDICATED_NAME = /client|conn|connection|session|^(?:tx|trx|t)$|transaction|manager|runner/i;

/** The advisory lock function a SQL text calls, with its scope. */
export function advisoryLockIn(text: string): Omit<AdvisoryLock, 'connection'> | undefined {
  const m = ADVISORY_FUNCTION.exec(text);
  if (!m) return undefined;
  const fn = m[0].toLowerCase();
  return { fn, scope: fn.includes('_xact_') ? 'transaction' : 'session' };
}

/** The SQL text a call or tagged template sends, cheaply, without parsing (first argument or template text). */
export function sqlTextOf(node: SqlNode): string | undefined {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) return node.quasi.quasis.map((q) => q.value.raw).join(' ');
  const first = node.arguments[0];
  if (!first) return undefined;
  const n = unwrap(first);
  if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') return n.value;
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.quasis.map((q) => q.value.raw).join(' ');
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    for (const p of n.properties) {
      if (p.type !== AST_NODE_TYPES.Property || !/^(?:text|sql)$/.test(propertyKeyName(p) ?? '')) continue;
      const v = unwrap(p.value);
      if (v.type === AST_NODE_TYPES.Literal && typeof v.value === 'string') return v.value;
      if (v.type === AST_NODE_TYPES.TemplateLiteral) return v.quasis.map((q) => q.value.raw).join(' ');
    }
  }
  return undefined;
}

/**
 * The connection a query or write runs on, as a receiver key: `client` for `client.query(...)`,
 * `tx` for ``tx`...` `` and `tx.account.update(...)`, `trx` for `trx('t').update(...)` and
 * `.transacting(trx)`, `t` for Sequelize's `{ transaction: t }`.
 */
export function connectionOf(node: SqlNode | TSESTree.NewExpression): string | undefined {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    // drizzle's `tx.execute(sql`...`)`: the template only builds the query; the call runs it.
    const runner = node.parent;
    if (runner?.type === AST_NODE_TYPES.CallExpression && runner.arguments[0] === node) return connectionOf(runner);
    const tag = unwrap(node.tag);
    // Prisma's `tx.$executeRaw`...``: the client is the object.
    return tag.type === AST_NODE_TYPES.MemberExpression && /^\$/.test(memberName(tag) ?? '') ? receiverKey(tag.object) : receiverKey(tag);
  }
  if (node.type === AST_NODE_TYPES.NewExpression) return undefined;
  for (const arg of node.arguments) {
    const object = arg.type === AST_NODE_TYPES.ObjectExpression ? arg : undefined;
    for (const p of object?.properties ?? []) {
      if (p.type === AST_NODE_TYPES.Property && /^(?:transaction|transacting)$/.test(propertyKeyName(p) ?? '')) return receiverKey(p.value);
    }
  }
  const enclosing = enclosingQueryOf(node);
  if (enclosing) return connectionOf(enclosing);
  let current: Node = node;
  for (let i = 0; i < 30 && current.type === AST_NODE_TYPES.CallExpression; i++) {
    const call: TSESTree.CallExpression = current;
    if (calleeName(call) === 'transacting' && call.arguments[0]) return receiverKey(call.arguments[0]);
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.Identifier) return callee.name;
    if (callee.type !== AST_NODE_TYPES.MemberExpression) return undefined;
    current = unwrap(callee.object);
  }
  return receiverKey(current);
}

/** Query-builder methods whose builder arguments become part of the query they build (a CTE, a subquery). */
const SUBQUERY_METHOD = /^(?:with|withRecursive|withMaterialized|withNotMaterialized|whereIn|whereNotIn|orWhereIn|orWhereNotIn|whereExists|whereNotExists|orWhereExists|from|union|unionAll|intersect|except)$/;

/**
 * The query a builder chain is embedded in (`trx.with('moved', db.from(t).update(...))`): the
 * statement runs as part of that query, on its connection, never on its own.
 */
function enclosingQueryOf(node: TSESTree.CallExpression): TSESTree.CallExpression | undefined {
  let top: Node = node;
  for (let i = 0; i < 30; i++) {
    const member: Node | undefined = top.parent;
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== top || member.parent?.type !== AST_NODE_TYPES.CallExpression || member.parent.callee !== member) break;
    top = member.parent;
  }
  const outer = top.parent;
  if (outer?.type !== AST_NODE_TYPES.CallExpression || outer.callee === top || !outer.arguments.includes(top as TSESTree.CallExpressionArgument)) return undefined;
  return unwrap(outer.callee).type === AST_NODE_TYPES.MemberExpression && SUBQUERY_METHOD.test(calleeName(outer) ?? '') ? outer : undefined;
}

/** Whether a write on `write` and a lock on `lock` use the same connection (`tx` and `tx.account`). */
function sameConnection(lock: string, write: string): boolean {
  return write === lock || write.startsWith(`${lock}.`);
}

function typeName(annotation: TSESTree.TypeNode | undefined): string | undefined {
  if (annotation?.type !== AST_NODE_TYPES.TSTypeReference) return undefined;
  const name = annotation.typeName;
  return name.type === AST_NODE_TYPES.Identifier ? name.name : name.type === AST_NODE_TYPES.TSQualifiedName ? name.right.name : undefined;
}

type ConnectionKind = 'transaction' | 'dedicated' | 'pool';

/** How many same-file transaction helpers a callback's connection may be followed through. */
const MAX_HELPER_DEPTH = 2;

/**
 * The function a same-file name refers to: `function inTx(fn) {...}`, `const inTx = async (fn) => ...`.
 */
function sameFileFunction(callee: Node, sourceCode: SourceCode): FunctionNode | undefined {
  const c = unwrap(callee);
  if (c.type !== AST_NODE_TYPES.Identifier) return undefined;
  const def = ASTUtils.findVariable(sourceCode.getScope(c), c.name)?.defs[0];
  if (def?.type === 'FunctionName' && isFunctionNode(def.node)) return def.node;
  if (def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init) {
    const init = unwrap(def.node.init);
    return isFunctionNode(init) ? init : undefined;
  }
  return undefined;
}

/**
 * Whether a same-file helper runs the callback it is given at `index` with a transaction as its
 * first argument: `async function inTx(fn) { const tx = await db.beginTransaction(); ... await fn(tx) }`,
 * or a dedicated connection it sent `BEGIN` on first (`const client = await pool.connect();
 * await client.query('BEGIN'); ... await fn(client)`).
 */
function helperHandsTransaction(helper: FunctionNode, index: number, sourceCode: SourceCode, depth: number): boolean {
  const param = helper.params[index];
  if (param?.type !== AST_NODE_TYPES.Identifier) return false;
  const calls: TSESTree.CallExpression[] = [];
  const queries: SqlNode[] = [];
  walk(helper.body, sourceCode.visitorKeys, (node) => {
    if (node.type === AST_NODE_TYPES.CallExpression || node.type === AST_NODE_TYPES.TaggedTemplateExpression) queries.push(node);
    if (node.type !== AST_NODE_TYPES.CallExpression) return;
    const callee = unwrap(node.callee);
    if (callee.type === AST_NODE_TYPES.Identifier && callee.name === param.name) calls.push(node);
  });
  return calls.some((call) => {
    const first = call.arguments[0];
    const key = first && first.type !== AST_NODE_TYPES.SpreadElement ? receiverKey(first) : undefined;
    if (key === undefined || key.includes('.')) return false;
    const kind = connectionKind(key, call, sourceCode, depth + 1);
    return kind === 'transaction' || (kind === 'dedicated' && begunBefore(key, call, queries));
  });
}

/** What the receiver `key` is at `at`: a transaction object, one dedicated connection, or a pool. */
function connectionKind(key: string, at: Node, sourceCode: SourceCode, depth = 0): ConnectionKind | undefined {
  const parts = key.split('.');
  const byName = (name: string): ConnectionKind | undefined => (POOL_NAME.test(name) ? 'pool' : DEDICATED_NAME.test(name) ? 'dedicated' : undefined);
  if (parts[0] === 'this' || parts.length > 1) return byName(parts[parts.length - 1]);
  const variable = ASTUtils.findVariable(sourceCode.getScope(at), parts[0]);
  const def = variable?.defs[0];
  if (def?.type === 'Parameter' && isFunctionNode(def.node)) {
    const fn = def.node;
    const holder = fn.parent;
    if (holder?.type === AST_NODE_TYPES.CallExpression && holder.arguments.includes(fn as TSESTree.CallExpressionArgument) && fn.params[0] === def.name) {
      if (TRANSACTION_CALLBACK.test(calleeName(holder) ?? '')) return 'transaction';
      // A same-file helper that opens the transaction and hands it to the callback.
      const helper = depth < MAX_HELPER_DEPTH ? sameFileFunction(holder.callee, sourceCode) : undefined;
      if (helper && helperHandsTransaction(helper, holder.arguments.indexOf(fn as TSESTree.CallExpressionArgument), sourceCode, depth)) return 'transaction';
    }
  }
  const annotation = def?.name.type === AST_NODE_TYPES.Identifier ? typeName(def.name.typeAnnotation?.typeAnnotation) : undefined;
  if (annotation && TRANSACTION_TYPE.test(annotation)) return 'transaction';
  if (annotation && DEDICATED_TYPE.test(annotation)) return 'dedicated';
  if (annotation && POOL_TYPE.test(annotation)) return 'pool';
  if (def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init) {
    const init = unwrap(def.node.init);
    if (init.type === AST_NODE_TYPES.CallExpression || init.type === AST_NODE_TYPES.NewExpression) {
      const name = calleeName(init) ?? '';
      const takesCallback = init.arguments.some((a) => isFunctionNode(a));
      if (init.type === AST_NODE_TYPES.CallExpression && TRANSACTION_OPEN.test(name) && !takesCallback) return 'transaction';
      if (init.type === AST_NODE_TYPES.CallExpression && DEDICATED_OPEN.test(name)) return 'dedicated';
      if (DEDICATED_CREATION.test(name)) return 'dedicated';
      if (POOL_CREATION.test(name)) return 'pool';
    }
  }
  return byName(parts[0]);
}

/** A `BEGIN` on the same connection earlier in the same function. */
function begunBefore(connection: string, at: Node, queries: readonly SqlNode[]): boolean {
  const fn = enclosingFunction(at);
  return queries.some((q) => q.range[1] <= at.range[0] && enclosingFunction(q) === fn && connectionOf(q) === connection && BEGIN.test(sqlTextOf(q) ?? ''));
}

/** How many functions a connection may be handed through, parameter to parameter. */
const MAX_HANDOVER_DEPTH = 3;

/** Same-file callers of a function, to follow a connection handed in as an argument. */
export type CallersOf = (fn: FunctionNode) => readonly TSESTree.CallExpression[];

/**
 * Whether the connection named `key` at `at` is the very binding the lock was taken on: the
 * same variable, or a parameter that every same-file caller fills with it (or with a parameter
 * that is, in turn, a few levels).
 */
function isLockBinding(lock: AdvisoryLock & { connection: string }, lockNode: Node, key: string, at: Node, sourceCode: SourceCode, callersOf: CallersOf | undefined, depth = 0): boolean {
  const lockRoot = lock.connection.split('.')[0];
  const root = key.split('.')[0];
  if (lockRoot === 'this' || root === 'this') return sameConnection(lock.connection, key) && enclosingFunction(at) === enclosingFunction(lockNode);
  const lockVariable = ASTUtils.findVariable(sourceCode.getScope(lockNode), lockRoot);
  const variable = ASTUtils.findVariable(sourceCode.getScope(at), root);
  if (!variable || !lockVariable) return false;
  if (variable === lockVariable) return sameConnection(lock.connection, key);
  // `async function expire(trx) { await trx('tasks').update(...) }` called as `expire(trx)`.
  const def = variable.defs[0];
  if (!callersOf || def?.type !== 'Parameter' || !isFunctionNode(def.node)) return false;
  // `client.featureFlag.upsert(...)` on a parameter `client` (with a default or not): the rest of the path stays.
  const rest = key.slice(root.length);
  const index = def.node.params.findIndex((p) => p.range[0] <= def.name.range[0] && def.name.range[1] <= p.range[1]);
  const property = index >= 0 ? destructuredKey(def.node.params[index], def.name) : undefined;
  const callers = index >= 0 && property !== null ? callersOf(def.node) : [];
  return callers.length > 0 && callers.every((call) => {
    const arg = argumentFilling(call.arguments[index], property ?? undefined);
    const argRoot = arg ? receiverKey(arg) : undefined;
    const argKey = argRoot === undefined ? undefined : argRoot + rest;
    if (argKey === undefined || argRoot === undefined) return false;
    if (sameConnection(lock.connection, argKey) && ASTUtils.findVariable(sourceCode.getScope(call), argRoot.split('.')[0]) === lockVariable) return true;
    // Handed on through another function's parameter (`makeSetFlags(tx)` calling `makeSetFlag(client)`): a few levels.
    return depth < MAX_HANDOVER_DEPTH && isLockBinding(lock, lockNode, argKey, call, sourceCode, callersOf, depth + 1);
  });
}

/**
 * Where a parameter binding sits in its parameter: undefined for the parameter itself (`trx`,
 * `trx = db`, `trx: Knex.Transaction`), the property it is destructured from for an options
 * object (`{ conn }`, `{ conn: db }`, `{ conn = pool }`), null for anything deeper.
 */
function destructuredKey(param: TSESTree.Parameter | undefined, name: Node): string | undefined | null {
  let p: Node | undefined = param;
  if (p?.type === AST_NODE_TYPES.TSParameterProperty) p = p.parameter;
  if (p?.type === AST_NODE_TYPES.AssignmentPattern) p = p.left;
  if (p === undefined || p === name || p.type === AST_NODE_TYPES.Identifier) return undefined;
  if (p.type !== AST_NODE_TYPES.ObjectPattern) return null;
  for (const prop of p.properties) {
    if (prop.type !== AST_NODE_TYPES.Property || prop.computed) continue;
    const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
    if (value === name) return propertyKeyName(prop) ?? null;
  }
  return null;
}

/** The expression a call fills a parameter with: the argument itself, or its `key` property when the parameter is destructured from it. */
function argumentFilling(arg: TSESTree.CallExpressionArgument | undefined, key: string | undefined): Node | undefined {
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return undefined;
  if (key === undefined) return arg;
  const object = unwrap(arg);
  if (object.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
  // A spread may carry a later value of the same key: then the property is not known.
  if (object.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement)) return undefined;
  const prop = object.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && !p.computed && propertyKeyName(p) === key);
  return prop?.value as Node | undefined;
}

/** The scope the lock gives a write on its own connection, or undefined when that connection is a pool or no transaction. */
function scopeOnOwnConnection(lock: AdvisoryLock & { connection: string }, lockNode: Node, queries: readonly SqlNode[], sourceCode: SourceCode): AdvisoryScope | undefined {
  const kind = connectionKind(lock.connection, lockNode, sourceCode);
  if (kind === 'pool') return undefined;
  if (lock.scope === 'transaction') return kind === 'transaction' || begunBefore(lock.connection, lockNode, queries) ? 'transaction' : undefined;
  return kind === 'transaction' || kind === 'dedicated' ? 'session' : undefined;
}

/**
 * The scope an advisory lock gives the connection it was taken on, or undefined when that
 * connection is a pool (or a client outside a transaction, for an xact lock): what a helper
 * that hands the connection on to a callback hands with it.
 */
export function heldOnOwnConnection(lock: AdvisoryLock, lockNode: Node, queries: readonly SqlNode[], sourceCode: SourceCode): AdvisoryScope | undefined {
  return lock.connection ? scopeOnOwnConnection({ ...lock, connection: lock.connection }, lockNode, queries, sourceCode) : undefined;
}

/**
 * Whether a write runs where the advisory lock taken at `lockNode` holds it: on the lock's own
 * connection, inside its transaction (xact locks) or its session (session locks). Undefined when
 * the write can outlive the lock.
 */
export function boundToAdvisoryLock(
  lock: AdvisoryLock,
  lockNode: Node,
  write: SqlNode | TSESTree.NewExpression,
  queries: readonly SqlNode[],
  sourceCode: SourceCode,
  callersOf?: CallersOf,
): AdvisoryScope | undefined {
  if (!lock.connection) return undefined;
  const held = { ...lock, connection: lock.connection };
  const connection = connectionOf(write);
  if (!connection || !isLockBinding(held, lockNode, connection, write, sourceCode, callersOf)) return undefined;
  return scopeOnOwnConnection(held, lockNode, queries, sourceCode);
}

/**
 * Whether a write in a same-file helper, reached from the section by the calls `chain` (the call
 * made in the section first), runs on the lock's own connection: the write goes through a
 * parameter of the helper that each call on the way fills with the one before it, and the first
 * with the connection the lock was taken on (`sendEstimate` locking `tx` and calling
 * `rebuild(tx, id)`, whose `tx.estimate.update(...)` commits in that transaction). The helper's
 * other callers, in or out of a section, do not change what this chain hands it.
 */
export function chainBoundToAdvisoryLock(
  lock: AdvisoryLock,
  lockNode: Node,
  chain: readonly TSESTree.CallExpression[],
  write: SqlNode | TSESTree.NewExpression,
  queries: readonly SqlNode[],
  sourceCode: SourceCode,
): AdvisoryScope | undefined {
  if (!lock.connection || chain.length === 0) return undefined;
  let key = connectionOf(write);
  let at: Node = write;
  for (let i = chain.length - 1; i >= 0 && key !== undefined; i--) {
    const root = key.split('.')[0];
    const def = ASTUtils.findVariable(sourceCode.getScope(at), root)?.defs[0];
    if (def?.type !== 'Parameter' || !isFunctionNode(def.node)) return undefined;
    const index = def.node.params.findIndex((p) => p.range[0] <= def.name.range[0] && def.name.range[1] <= p.range[1]);
    const property = index >= 0 ? destructuredKey(def.node.params[index], def.name) : null;
    if (property === null) return undefined;
    const arg = argumentFilling(chain[i].arguments[index], property);
    const argRoot = arg ? receiverKey(arg) : undefined;
    key = argRoot === undefined ? undefined : argRoot + key.slice(root.length);
    at = chain[i];
  }
  if (key === undefined) return undefined;
  const held = { ...lock, connection: lock.connection };
  return isLockBinding(held, lockNode, key, at, sourceCode, undefined) ? scopeOnOwnConnection(held, lockNode, queries, sourceCode) : undefined;
}

/**
 * Whether a call to a function of another module runs on the lock's connection: it is handed
 * that connection (`tasks.expire(trx, ...)`), or is a method of an instance built on it, so its
 * writes go through it.
 */
export function callBoundToAdvisoryLock(
  lock: AdvisoryLock,
  lockNode: Node,
  call: TSESTree.CallExpression | TSESTree.NewExpression,
  queries: readonly SqlNode[],
  sourceCode: SourceCode,
  callersOf?: CallersOf,
): AdvisoryScope | undefined {
  if (!lock.connection) return undefined;
  const held = { ...lock, connection: lock.connection };
  // A method of an instance built on the connection (`new GroupRepository(tx).rename(...)`, or
  // `const repo = new GroupRepository(tx)` first): the repository writes through what it was given.
  // The lock's own binding, or a parameter every same-file caller fills with it (`{ db: tx }`).
  const handsLock = (args: readonly TSESTree.CallExpressionArgument[], at: Node) => args.some((arg) => {
    const key = arg.type !== AST_NODE_TYPES.SpreadElement ? receiverKey(arg) : undefined;
    return key !== undefined && isLockBinding(held, lockNode, key, at, sourceCode, callersOf);
  });
  const receiver = call.type === AST_NODE_TYPES.CallExpression && unwrap(call.callee).type === AST_NODE_TYPES.MemberExpression ? (unwrap(call.callee) as TSESTree.MemberExpression).object : undefined;
  const constructions = receiver ? constructionsOf(receiver, sourceCode, callersOf) : undefined;
  const handedIn = handsLock(call.arguments, call) || (constructions !== undefined && constructions.every((c) => handsLock(c.arguments, c)));
  return handedIn ? scopeOnOwnConnection(held, lockNode, queries, sourceCode) : undefined;
}

/**
 * The `new C(...)` calls an instance comes from: inline, a `const` bound to one, or a parameter
 * (also one destructured from an options object) that every same-file caller fills with one.
 * Undefined when any of them is something else.
 */
function constructionsOf(node: Node, sourceCode: SourceCode, callersOf: CallersOf | undefined, depth = 0): TSESTree.NewExpression[] | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.NewExpression) return [n];
  if (n.type !== AST_NODE_TYPES.Identifier || depth > MAX_HANDOVER_DEPTH) return undefined;
  const variable = ASTUtils.findVariable(sourceCode.getScope(n), n.name);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.node.type === AST_NODE_TYPES.VariableDeclarator) {
    const declarator = def.node;
    if (!declarator.init || declarator.parent.type !== AST_NODE_TYPES.VariableDeclaration || declarator.parent.kind !== 'const') return undefined;
    const init = unwrap(declarator.init);
    return init.type === AST_NODE_TYPES.NewExpression ? [init] : undefined;
  }
  if (!callersOf || def?.type !== 'Parameter' || !isFunctionNode(def.node)) return undefined;
  const fn = def.node;
  const index = fn.params.findIndex((p) => p.range[0] <= def.name.range[0] && def.name.range[1] <= p.range[1]);
  const property = index >= 0 ? destructuredKey(fn.params[index], def.name) : null;
  const callers = property !== null ? callersOf(fn) : [];
  if (callers.length === 0) return undefined;
  const out: TSESTree.NewExpression[] = [];
  for (const caller of callers) {
    const arg = argumentFilling(caller.arguments[index], property ?? undefined);
    const found = arg ? constructionsOf(arg, sourceCode, callersOf, depth + 1) : undefined;
    if (!found) return undefined;
    out.push(...found);
  }
  return out;
}

/** Wrappers that leave a statement what it is: a type assertion, a non-null assertion. */
const STATEMENT_WRAPPER = new Set<string>([AST_NODE_TYPES.TSAsExpression, AST_NODE_TYPES.TSNonNullExpression, AST_NODE_TYPES.TSSatisfiesExpression, AST_NODE_TYPES.TSTypeAssertion]);

/**
 * The element of an array literal a statement is, with its index: the statement itself, or the
 * builder chain it starts (`db.update(t).set(v).where(c)`), under type assertions.
 */
function arrayElementOf(node: Node): { array: TSESTree.ArrayExpression; index: number } | undefined {
  let top: Node = node;
  for (let i = 0; i < 30; i++) {
    const parent: Node | undefined = top.parent;
    if (parent && STATEMENT_WRAPPER.has(parent.type)) top = parent;
    else if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === top && parent.parent?.type === AST_NODE_TYPES.CallExpression && parent.parent.callee === parent) top = parent.parent;
    else break;
  }
  const array = top.parent;
  return array?.type === AST_NODE_TYPES.ArrayExpression ? { array, index: array.elements.indexOf(top as TSESTree.Expression) } : undefined;
}

/**
 * Whether an array literal is the batch a batch transaction runs: its argument
 * (`prisma.$transaction([...])`), what its callback returns (`sql.transaction((tx) => [...])`), or
 * a `const` handed to it (`const steps = [...]; await db.batch(steps)`).
 */
function isBatchOfTransaction(array: TSESTree.ArrayExpression, sourceCode: SourceCode): boolean {
  const runs = (call: Node | undefined, arg: Node): boolean =>
    call?.type === AST_NODE_TYPES.CallExpression && call.arguments[0] === arg && unwrap(call.callee).type === AST_NODE_TYPES.MemberExpression && BATCH_TRANSACTION_METHODS.has(calleeName(call) ?? '');
  let holder: Node = array;
  while (holder.parent && STATEMENT_WRAPPER.has(holder.parent.type)) holder = holder.parent;
  const parent = holder.parent;
  if (runs(parent, holder)) return true;
  if (parent?.type === AST_NODE_TYPES.ArrowFunctionExpression && parent.body === holder) return runs(parent.parent, parent);
  if (parent?.type !== AST_NODE_TYPES.VariableDeclarator || parent.init !== holder || parent.id.type !== AST_NODE_TYPES.Identifier || parent.parent?.kind !== 'const') return false;
  const variable = ASTUtils.findVariable(sourceCode.getScope(parent), parent.id.name);
  return !!variable?.references.some((ref) => ref.identifier !== parent.id && runs(ref.identifier.parent, ref.identifier));
}

/**
 * Whether `write` runs after the statement `lock` in one batch transaction: both are elements of
 * the array a batch transaction runs (Prisma `$transaction([lock, write])`, Drizzle
 * `db.batch([...])`, Neon `sql.transaction([...])`), which sends every element, in order, in one
 * transaction. An xact lock taken by an element is held until that transaction ends, so the
 * elements after it cannot land after the lock is gone. The lock is the statement itself, or a
 * call to a helper that returns it unrun.
 */
export function runsLaterInBatch(lock: Node, write: Node, sourceCode: SourceCode): boolean {
  const lockAt = arrayElementOf(lock);
  if (!lockAt || lockAt.index < 0) return false;
  const writeAt = arrayElementOf(write);
  return !!writeAt && writeAt.array === lockAt.array && writeAt.index > lockAt.index && isBatchOfTransaction(lockAt.array, sourceCode);
}

/**
 * The function that hands `statement` back unrun, for its caller to send (`return
 * db.shelf.update(...)` as an element of a batch): not an `async` one, which sends what it
 * returns before its caller gets it.
 */
export function returnedUnrunBy(statement: Node): FunctionNode | undefined {
  let top: Node = statement;
  while (top.parent && STATEMENT_WRAPPER.has(top.parent.type)) top = top.parent;
  const parent = top.parent;
  const fn = parent?.type === AST_NODE_TYPES.ReturnStatement ? enclosingFunction(parent) : parent && isFunctionNode(parent) && parent.body === top ? parent : undefined;
  return fn && !fn.async ? fn : undefined;
}

/** How a query ends the transaction an xact lock lives in, on the same connection: `COMMIT` (or `END`), `ROLLBACK`. */
export function endsTransaction(query: SqlNode, connection: string | undefined): 'commit' | 'rollback' | undefined {
  if (connection === undefined || connectionOf(query) !== connection) return undefined;
  const m = TRANSACTION_END.exec(sqlTextOf(query) ?? '');
  return m ? (/^\s*ROLLBACK/i.test(m[0]) ? 'rollback' : 'commit') : undefined;
}
