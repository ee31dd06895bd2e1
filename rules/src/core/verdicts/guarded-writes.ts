/**
 * The writes a check can guard, in every store the analysis knows: SQL, knex, object APIs
 * (Prisma, MongoDB, Sequelize, TypeORM, Kysely, Drizzle, DynamoDB), Mongoose `doc.save()` and
 * Redis SETs; with what each targets, what it stores, and whether its own condition already
 * compares the token. Also the client a query runs on, for the FOR UPDATE exception.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, receiverPath, staticString, unwrap, type Node } from '../ast.js';
import type { FileAnalysis } from '../file-analysis.js';
import { judgeKnexWrite, readKnexWrite } from '../sinks/knex-writes.js';
import { KEY_VALUE_WRITE_METHOD, RECORD_READ_METHOD, RECORD_SAVE_METHOD, REDIS_WATCH_METHOD } from '../models/record-reads.js';
import { judgeObjectWrite, readObjectWrite } from '../sinks/object-writes.js';
import { keyText, type RedisLockKeys } from '../locks/redis-locks.js';
import { isProtectedWrite, judgeWrite, readSqlCall } from '../sinks/sql-writes.js';
import { isLockTable } from '../models/lock-tables.js';

export type WriteSink = 'sql' | 'knex' | 'object' | 'redis' | 'call';

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
  /**
   * An update of a lock table's row (a lease refreshed or taken over): not a protected write, but
   * the second step of a lease taken by hand after a check of that row's fields in JavaScript.
   */
  leaseRow?: boolean;
}


/**
 * The client a query runs on: `client` for `client.query(...)`, `trx` for `trx('t').where().update()`,
 * `tx` for postgres.js `tx\`...\``.
 */
export function receiverOf(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression): string | undefined {
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
export function inTransaction(node: Node, receiver: string | undefined, analysis: FileAnalysis): boolean {
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
export function readWrite(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys): GuardedWrite | undefined {
  const isToken = (n: Node) => analysis.tracer.isToken(n);
  const receiver = receiverOf(node);
  if (node.type === AST_NODE_TYPES.CallExpression) {
    const knex = readKnexWrite(node, analysis.receivers);
    if (knex) {
      return {
        node, sink: 'knex', target: knex.table, receiver, stores: knex.values?.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property && p.key.type === AST_NODE_TYPES.Identifier ? [p.key.name] : [])) ?? [],
        carriesComparison: (field) => judgeKnexWrite(knex, { isTokenValue: isToken, knownColumn: field }).tokenCompared,
      };
    }
    const first = node.arguments[0];
    const object = first && unwrap(first).type === AST_NODE_TYPES.NewExpression ? readObjectWrite(unwrap(first) as TSESTree.NewExpression, analysis.receivers) : readObjectWrite(node, analysis.receivers);
    if (object) {
      const path = calleeObject(node);
      return {
        node, sink: 'object', target: path ? receiverPath(path).join('.') : undefined, receiver, stores: objectKeys(object.node.arguments.filter((a) => unwrap(a) !== object.filter)),
        carriesComparison: (field) => judgeObjectWrite(object, { isTokenValue: isToken, knownColumn: field }).tokenCompared,
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
        // WATCH, then MULTI ... EXEC: EXEC fails when a watched key changed, so the write compares in itself.
        const watched = receiverPath(callee).includes('multi()') && watchedBefore(node, analysis);
        return { node, sink: 'redis', target: keyText(first, sourceCode), receiver, stores: [], carriesComparison: () => watched };
      }
    }
  }
  const call = readSqlCall(node, sourceCode, undefined, analysis.receivers.catalog);
  if (!call) return undefined;
  let statements = call.source.analysis.statements.filter(isProtectedWrite);
  let leaseRow = false;
  if (statements.length === 0) {
    statements = call.source.analysis.statements.filter((s) => s.kind === 'update' && isLockTable(s.table));
    leaseRow = statements.length > 0;
  }
  if (statements.length === 0) return undefined;
  return {
    node, sink: 'sql', target: statements[0].table, receiver, stores: statements.flatMap((s) => s.assignments.map((a) => a.column)), leaseRow,
    carriesComparison: (field) =>
      statements.every((s) => judgeWrite(s, call, { isTokenValue: isToken }, sourceCode).tokenCompared || (field !== undefined && s.conditions.some((c) => (c.column.split('.').pop() ?? c.column) === field && c.value.params.length + c.value.columns.length + c.value.functions.length > 0))),
  };
}

/** A Redis `watch(...)` earlier in the same function. */
function watchedBefore(node: Node, analysis: FileAnalysis): boolean {
  const fn = enclosingFunction(node);
  return analysis.calls.some((c) => c.range[1] <= node.range[0] && REDIS_WATCH_METHOD.test(calleeName(c) ?? '') && enclosingFunction(c) === fn);
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
export function objectKeys(nodes: readonly Node[], depth = 0): string[] {
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


/** The `const`/`let` declarator of an identifier in an enclosing block, found without the scope manager. */
export function readsDefinition(id: TSESTree.Identifier): TSESTree.VariableDeclarator | undefined {
  for (let scope: Node | undefined = id.parent; scope; scope = scope.parent) {
    if (scope.type !== AST_NODE_TYPES.BlockStatement && scope.type !== AST_NODE_TYPES.Program) continue;
    for (const statement of scope.body) {
      if (statement.type !== AST_NODE_TYPES.VariableDeclaration) continue;
      for (const d of statement.declarations) if (d.id.type === AST_NODE_TYPES.Identifier && d.id.name === id.name) return d;
    }
  }
  return undefined;
}

