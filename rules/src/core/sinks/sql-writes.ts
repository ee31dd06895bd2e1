/**
 * SQL write sinks: recognises calls and tagged templates that send SQL (pg, mysql2,
 * postgres.js, pg-promise, Prisma raw, TypeORM/Sequelize raw queries, knex.raw: the SQL
 * methods and tags of the sinks catalog), binds each `$n` to the JS value it carries, and
 * decides whether each write is fenced.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, propertyKeyName, unwrap, type Node } from '../ast.js';
import { isLockTable } from '../models/lock-tables.js';
import { isTokenColumnName } from '../models/token-names.js';
import type { SinkModel } from '../models/sinks.js';
import { BUILTIN_CATALOG, ownSqlModel, type Catalog } from '../models/catalog.js';
import { sinkModelOfKind, type ReceiverTable } from '../modules/receivers.js';
import { readSqlSource, type SqlSource } from '../sql/index.js';
import type { SqlComparison, SqlStatementInfo, SqlValue } from '../sql/types.js';
import { optimisticSqlCheck } from './optimistic-checks.js';
import { isSetOnceSqlClaim } from './set-once-claims.js';
import { isTransitionSqlClaim } from './state-transitions.js';
import { isCooldownSqlClaim } from './cooldown-claims.js';
import { bareColumn, isCompareAndSetColumnByName, isMonotonicColumn, isTokenColumnByName, sameColumn, sameValueExpression, type FenceJudgeOptions } from './fence-judgement.js';

export interface SqlCall {
  /** Where findings are reported: the call or the tagged template. */
  node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  source: SqlSource;
  /** The method or tag the SQL was sent through (`query`, `execute`, `sql`, `$executeRaw`). */
  method?: string;
  /** The client library, when the receiver (or tag) resolves to one of the catalog. */
  client?: SinkModel;
  /** JS value bound to `$n`. */
  param(n: number): Node | undefined;
  /** The values array literal, when params come from one (for the suggestion). */
  valuesArray?: TSESTree.ArrayExpression;
  /** Where a values array could be added when the call has none. */
  valuesMissingAfter?: Node;
}

function resolveConstArray(node: Node, sourceCode: SourceCode): TSESTree.ArrayExpression | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.ArrayExpression) return n;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const scope = sourceCode.getScope(n);
    let s: typeof scope | null = scope;
    while (s) {
      const variable = s.set.get(n.name);
      if (variable) {
        const def = variable.defs[0];
        if (def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && def.parent?.kind === 'const') {
          const init = unwrap(def.node.init);
          return init.type === AST_NODE_TYPES.ArrayExpression ? init : undefined;
        }
        return undefined;
      }
      s = s.upper;
    }
  }
  return undefined;
}

function elementAt(array: TSESTree.ArrayExpression | undefined, index: number): Node | undefined {
  const element = array?.elements[index];
  return element && element.type !== AST_NODE_TYPES.SpreadElement ? element : undefined;
}

function readWithFallback(node: Node, sourceCode: SourceCode): SqlSource | undefined {
  return readSqlSource(node, sourceCode, 'postgres') ?? readSqlSource(node, sourceCode, 'mysql');
}

/** The client a call or tag runs on: `pool` for `pool.query`, `sql` for postgres.js, `prisma` for `prisma.$executeRaw`. */
function clientOf(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, receivers: ReceiverTable | undefined): SinkModel | undefined {
  if (!receivers) return undefined;
  const head = unwrap(node.type === AST_NODE_TYPES.TaggedTemplateExpression ? node.tag : node.callee);
  const target = head.type === AST_NODE_TYPES.MemberExpression ? head.object : node.type === AST_NODE_TYPES.TaggedTemplateExpression ? head : undefined;
  const resolved = target ? sinkModelOfKind(receivers.kindOf(target)) : undefined;
  if (resolved) return resolved;
  // A user's own wrapper or tag, named in the settings, whatever its receiver.
  const name = head.type === AST_NODE_TYPES.MemberExpression ? calleeNameOfTag(head) : head.type === AST_NODE_TYPES.Identifier ? head.name : undefined;
  return name ? ownSqlModel(receivers.catalog, name) : undefined;
}

/**
 * The SQL a call or tagged template sends, with its parameter bindings; undefined if it sends
 * none we can read. With `receivers`, the client library is resolved too (for result shapes).
 */
export function readSqlCall(node: Node, sourceCode: SourceCode, receivers?: ReceiverTable, catalog: Catalog = receivers?.catalog ?? BUILTIN_CATALOG): SqlCall | undefined {
  const call = readSqlCallText(node, sourceCode, catalog) ?? forwardedSqlCall(node, sourceCode, receivers);
  if (call && receivers && !call.client) call.client = clientOf(call.node, receivers);
  return call;
}

/**
 * A call of a project query wrapper (`db.run('write', 'UPDATE ...', [a, b])`, see
 * `FunctionSummary.runsSqlParam`): the argument the wrapper runs as SQL is the statement, the
 * one it binds its values.
 */
function forwardedSqlCall(node: Node, sourceCode: SourceCode, receivers: ReceiverTable | undefined): SqlCall | undefined {
  if (node.type !== AST_NODE_TYPES.CallExpression || !receivers?.forwardedSql) return undefined;
  // Only a call with a statement written out can be one; the module graph is asked no more often.
  if (!node.arguments.some((a) => a.type === AST_NODE_TYPES.Literal || a.type === AST_NODE_TYPES.TemplateLiteral)) return undefined;
  const forwarded = receivers.forwardedSql(node);
  const textNode = forwarded && node.arguments[forwarded.text];
  if (!forwarded || !textNode || textNode.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const source = readWithFallback(textNode, sourceCode);
  if (!source) return undefined;
  const valuesNode = forwarded.values !== undefined ? node.arguments[forwarded.values] : undefined;
  const values = valuesNode && valuesNode.type !== AST_NODE_TYPES.SpreadElement ? resolveConstArray(valuesNode, sourceCode) : undefined;
  return { node, source, method: calleeName(node) ?? 'query', param: (n) => source.paramNode(n) ?? elementAt(values, n - 1), valuesArray: values };
}

function readSqlCallText(node: Node, sourceCode: SourceCode, catalog: Catalog): SqlCall | undefined {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const tag = unwrap(node.tag);
    const name = tag.type === AST_NODE_TYPES.Identifier ? tag.name : calleeNameOfTag(tag);
    if (!name || !catalog.sqlTagNames.has(name)) return undefined;
    // A fragment nested in another sql`` is part of that statement, not a statement itself.
    if (node.parent?.type === AST_NODE_TYPES.TemplateLiteral && node.parent.parent?.type === AST_NODE_TYPES.TaggedTemplateExpression) return undefined;
    const source = readSqlSource(node, sourceCode, 'postgres');
    if (!source) return undefined;
    return { node, source, method: name, param: (n) => source.paramNode(n) };
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const method = calleeName(node);
  if (!method || !catalog.sqlMethodNames.has(method)) return undefined;
  const first = node.arguments[0];
  if (!first || first.type === AST_NODE_TYPES.SpreadElement) return undefined;

  // pg's config object: query({ text, values }) / mysql2's { sql, values }.
  const firstNode = unwrap(first);
  if (firstNode.type === AST_NODE_TYPES.ObjectExpression) {
    let textNode: Node | undefined;
    let values: TSESTree.ArrayExpression | undefined;
    for (const p of firstNode.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const key = propertyKeyName(p);
      if (key === 'text' || key === 'sql') textNode = p.value;
      if (key === 'values') values = resolveConstArray(p.value, sourceCode);
    }
    if (!textNode) return undefined;
    const source = readWithFallback(textNode, sourceCode);
    if (!source) return undefined;
    values ??= node.arguments[1] ? resolveConstArray(node.arguments[1], sourceCode) : undefined;
    return { node, source, method, param: (n) => source.paramNode(n) ?? elementAt(values, n - 1), valuesArray: values };
  }

  const source = readWithFallback(first, sourceCode);
  if (!source) return undefined;
  if (method === '$executeRawUnsafe' || method === '$queryRawUnsafe') {
    return { node, source, method, param: (n) => source.paramNode(n) ?? argumentAt(node, n) };
  }
  const second = node.arguments[1];
  let values = second && second.type !== AST_NODE_TYPES.SpreadElement ? resolveConstArray(second, sourceCode) : undefined;
  // Sequelize: query(sql, { bind: [...] }) / { replacements: [...] }.
  if (!values && second && second.type === AST_NODE_TYPES.ObjectExpression) {
    for (const p of second.properties) {
      if (p.type === AST_NODE_TYPES.Property && /^(?:bind|replacements|values|params)$/.test(propertyKeyName(p) ?? '')) values = resolveConstArray(p.value, sourceCode);
    }
  }
  const named = second && second.type === AST_NODE_TYPES.ObjectExpression ? second : undefined;
  return {
    node,
    source,
    method,
    param: (n) => source.paramNode(n) ?? elementAt(values, n - 1) ?? namedValue(named, source, n),
    valuesArray: values,
    valuesMissingAfter: second ? undefined : first,
  };
}

function namedValue(object: TSESTree.ObjectExpression | undefined, source: SqlSource, n: number): Node | undefined {
  if (!object) return undefined;
  const name = Object.entries(source.analysis.paramNames ?? {}).find(([, index]) => index === n)?.[0];
  if (!name) return undefined;
  for (const p of object.properties) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) return p.value;
  return undefined;
}

function argumentAt(call: TSESTree.CallExpression, index: number): Node | undefined {
  const arg = call.arguments[index];
  return arg && arg.type !== AST_NODE_TYPES.SpreadElement ? arg : undefined;
}

function calleeNameOfTag(tag: Node): string | undefined {
  if (tag.type === AST_NODE_TYPES.MemberExpression && !tag.computed && tag.property.type === AST_NODE_TYPES.Identifier) return tag.property.name;
  return undefined;
}

/** Tables that issue tokens: `UPDATE fence_authority SET token = token + 1 RETURNING token`. */
const AUTHORITY_TABLE = /(?:fenc|authorit|sequence|counter|generation|epoch|tokens?$)/;

export interface WriteVerdict {
  statement: SqlStatementInfo;
  /** The write's condition compares a token (or the current holder) at the resource. */
  tokenCompared: boolean;
  /** The compared token column is also assigned, so later stale writes keep failing. */
  tokenStored: boolean;
  /** The token column the comparison uses, when there is one. */
  column?: string;
  /** The comparison that compares the token (for suggestions that store the compared value). */
  comparison?: SqlComparison;
  /** A set-once claim (`... WHERE col IS NULL`) rather than a token: no fence whose refusal must be read. */
  tokenless?: boolean;
}

/** How a SQL write is judged; see `fence-judgement.ts`. */
export type VerdictOptions = FenceJudgeOptions;

/** Writes that can land late: UPDATE, DELETE, upserts and MERGE; not plain INSERTs, lock tables or token counters. */
export function isProtectedWrite(statement: SqlStatementInfo): boolean {
  const { kind, table } = statement;
  if (!(kind === 'update' || kind === 'delete' || kind === 'merge' || (kind === 'insert' && statement.upsert))) return false;
  // Lock tables hold the locks themselves: writes there are acquires, renewals and releases.
  if (isLockTable(table)) return false;
  // Issuing a token: the statement increments a token column in place (not a write that bumps
  // a quantity and stores the token it was given: `SET qty = qty + $1, fence_token = $2`).
  const increments = statement.assignments.filter((a) => a.value.columns.includes(a.column) && /\+/.test(a.value.text));
  if (increments.length > 0 && ((table && AUTHORITY_TABLE.test(table)) || increments.some((a) => isTokenColumnName(a.column)))) return false;
  if (onlyMonotoneAssignments(statement)) return false;
  return counterOutputs(statement).length === 0;
}

/**
 * `SET last_seen = GREATEST(last_seen, $1)`: when every assignment keeps the larger (or the
 * smaller) of the stored value and the new one, a late write cannot move anything backwards.
 */
function onlyMonotoneAssignments(statement: SqlStatementInfo): boolean {
  if (statement.kind !== 'update' && !(statement.kind === 'insert' && statement.upsert)) return false;
  if (statement.assignments.length === 0) return false;
  return statement.assignments.every((a) => /^\s*(?:greatest|least)\s*\(/i.test(a.value.text) && a.value.columns.some((c) => sameColumn(c, a.column)));
}

/**
 * The outputs through which a statement hands out a durable counter, whatever it is called:
 * `UPDATE t SET n = n + 1 ... RETURNING n` (the statement does nothing else but stamp a time),
 * and `SELECT nextval('seq')`. Their values are fence tokens.
 */
export function counterOutputs(statement: SqlStatementInfo): string[] {
  if (statement.kind === 'select') {
    return statement.outputs.filter((o) => o.value.functions.includes('nextval') && o.value.columns.length === 0).map((o) => o.column);
  }
  if (statement.kind !== 'update' && !(statement.kind === 'insert' && statement.upsert)) return [];
  const bumped = statement.assignments.filter((a) => a.value.columns.some((c) => sameColumn(c, a.column)) && /\+\s*\d+\s*$/.test(a.value.text));
  if (bumped.length === 0) return [];
  const onlyStamps = statement.assignments.every((a) => bumped.includes(a) || (a.value.params.length === 0 && a.value.columns.length === 0 && a.value.functions.length > 0));
  if (!onlyStamps) return [];
  return statement.outputs
    .filter((o) => o.value.functions.includes('nextval') || bumped.some((a) => sameColumn(o.column, a.column) || o.value.columns.some((c) => sameColumn(c, a.column))))
    .map((o) => o.column);
}

const COMPARING = new Set(['<', '<=', '=', 'IS NOT DISTINCT FROM']);

/**
 * Same `$n` set, or the same column reference (`incoming.tok`), on both sides. Positional `?`
 * placeholders number each use apart, so two single placeholders filled with the same expression
 * (`[level, id, level]`) are one value too.
 */
function sameSqlValue(a: SqlValue, b: SqlValue, call?: SqlCall): boolean {
  if (a.params.length > 0 || b.params.length > 0) {
    if (a.params.length === b.params.length && a.params.every((n) => b.params.includes(n))) return true;
    if (!call || a.params.length !== 1 || b.params.length !== 1 || a.text.trim() !== `$${a.params[0]}` || b.text.trim() !== `$${b.params[0]}`) return false;
    const x = call.param(a.params[0]);
    const y = call.param(b.params[0]);
    return x !== undefined && y !== undefined && sameValueExpression(x, y);
  }
  return a.columns.length > 0 && a.text.trim() === b.text.trim();
}

/** `version = version + 1`: the assignment bumps the column in place. */
function incrementsItself(statement: SqlStatementInfo, column: string): boolean {
  return statement.assignments.some((a) => sameColumn(a.column, column) && a.value.columns.some((c) => sameColumn(c, column)) && /\+\s*\d+\s*$/.test(a.value.text));
}

/** Whether a comparison of the write's condition checks a fence token (see `fence-judgement.ts`). */
function comparesToken(c: SqlComparison, statement: SqlStatementInfo, call: SqlCall, options: VerdictOptions, sourceCode: SourceCode): boolean {
  if (isSetOnceSqlClaim(c, statement) || isTransitionSqlClaim(c, statement) || isCooldownSqlClaim(c, statement, (n) => call.param(n), sourceCode)) return true;
  if (!COMPARING.has(c.op)) return false;
  if (c.value.params.length === 0 && c.value.columns.length === 0) return false;
  const column = bareColumn(c.column);
  const values = c.value.params.map((n) => call.param(n)).filter((v): v is Node => v !== undefined);
  if (values.some((v) => options.isTokenValue(v))) return true;
  const known = !values.some((v) => options.isNonTokenValue?.(v));
  if (known && isMonotonicColumn(column)) {
    const ordered = c.op === '<' || c.op === '<=';
    if (ordered && statement.assignments.some((a) => sameColumn(a.column, column) && sameSqlValue(a.value, c.value, call))) return true;
    if (!ordered && incrementsItself(statement, column)) return true;
  }
  if (isTokenColumnByName(column, options)) return true;
  if (c.op === '=' && isCompareAndSetColumnByName(column)) return true;
  return optimisticSqlCheck(c, statement, (n) => call.param(n), options);
}

function raisesPlainValue(c: SqlComparison, statement: SqlStatementInfo, call: SqlCall, options: VerdictOptions): boolean {
  if (c.op !== '<' && c.op !== '<=') return false;
  const column = bareColumn(c.column);
  if (!isMonotonicColumn(column) || isTokenColumnByName(column, options) || isCompareAndSetColumnByName(column)) return false;
  const values = c.value.params.map((n) => call.param(n));
  if (values.length === 0 || values.some((v) => v === undefined || options.isTokenValue(v))) return false;
  if (optimisticSqlCheck(c, statement, (n) => call.param(n), options)) return false;
  return statement.assignments.some((a) => sameColumn(a.column, column) && sameSqlValue(a.value, c.value, call));
}

export function judgeWrite(statement: SqlStatementInfo, call: SqlCall, options: VerdictOptions, sourceCode: SourceCode): WriteVerdict {
  // `SET value = CASE WHEN t.fence_token < EXCLUDED.fence_token THEN ... END` guards the assignment itself.
  const comparison = [...statement.conditions, ...(statement.assignmentGuards ?? [])].find((c) => comparesToken(c, statement, call, options, sourceCode));
  if (!comparison) return { statement, tokenCompared: false, tokenStored: false };
  if (isSetOnceSqlClaim(comparison, statement) || isTransitionSqlClaim(comparison, statement) || isCooldownSqlClaim(comparison, statement, (n) => call.param(n), sourceCode)) return { statement, tokenCompared: true, tokenStored: true, tokenless: true };
  const column = bareColumn(comparison.column);
  // A plain value, no token, stored only where the stored one is below it: the write only raises
  // the column, and a refused one leaves the larger value there, so there is no refusal to read.
  if (raisesPlainValue(comparison, statement, call, options)) return { statement, tokenCompared: true, tokenStored: true, tokenless: true, column, comparison };
  // An optimistic check stores its own stamp: it needs no token stored.
  const needsStore = (comparison.op === '<' || comparison.op === '<=') && statement.kind !== 'delete' && !optimisticSqlCheck(comparison, statement, (n) => call.param(n), options);
  const stored = !needsStore || statement.assignments.some((a) => sameColumn(a.column, column));
  return { statement, tokenCompared: true, tokenStored: stored, column, comparison };
}
