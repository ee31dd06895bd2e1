/**
 * Stored-token reads: a statement that fetches the token, generation or version a record holds
 * (`SELECT fence_token`, `findUnique`, a Drizzle/Kysely/knex select, Redis `GET` of a token key,
 * `loadFenceToken(id)`), followed through to the comparisons application code makes with it.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, receiverPath, unwrap, type Node } from '../ast.js';
import type { Check } from './check-then-write.js';
import type { FileAnalysis } from '../file-analysis.js';
import { inTransaction, receiverOf, type WriteSink } from './guarded-writes.js';
import { comparisonsOfValue, guardsOf } from './guards.js';
import { DYNAMO_READ_COMMAND, DYNAMO_V2_READ_METHOD, KEY_VALUE_READ_METHOD, RECORD_READ_METHOD, TOKEN_KEY_TEXT, TOKEN_READER_NAME, VERSION_FIELD } from '../models/record-reads.js';
import { isHandleTokenName, isStrongTokenName, isTokenColumnName } from '../models/token-names.js';
import { camel } from '../sinks/object-writes.js';
import { keyText, type RedisLockKeys } from '../locks/redis-locks.js';
import { readSqlCall } from '../sinks/sql-writes.js';

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

/** Stored-token reads and their comparisons: SQL SELECT, record finds, key-value GETs of token keys. */
export function storedTokenChecks(analysis: FileAnalysis, sourceCode: SourceCode, locks: RedisLockKeys, out: Check[]): void {
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
      if (object && DYNAMO_V2_READ_METHOD.test(method) && first && first.type !== AST_NODE_TYPES.SpreadElement && unwrap(first).type === AST_NODE_TYPES.ObjectExpression && /\bTableName\b/.test(sourceCode.getText(first))) {
        readSink = 'object';
      } else if (object && RECORD_READ_METHOD.test(method)) {
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
      const call = readSqlCall(node, sourceCode, undefined, analysis.receivers.catalog);
      const select = call?.source.analysis.statements.find((s) => s.kind === 'select');
      if (!call || !select || call.source.analysis.statements.some((s) => s.kind !== 'select')) continue;
      readSink = 'sql';
      readTarget = select.table;
      selected = select.selectedColumns;
      // FOR UPDATE holds the row only until the transaction ends: without one, the lock is gone at once.
      if (select.forUpdate && inTransaction(node, receiverOf(node), analysis)) forUpdateReceiver = receiverOf(node) ?? '';
    }
    for (const { comparison, field, other } of comparisonsOfValue(node, sourceCode)) {
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
          // Any stored field ordered against the lease's token is the stored token (`cart.pricedAt >= lease.fenceToken`).
          else if (ordering && analysis.tracer.isToken(other)) needsStore = false;
          else if (!isHandleTokenName(compared) || !ordering) continue;
        }
      }
      for (const guard of guardsOf(comparison, sourceCode)) {
        out.push({ kind: 'storedToken', node: comparison, regions: guard.regions, field: compared, readTarget, readSink, forUpdateReceiver, needsStore });
      }
    }
  }
}

