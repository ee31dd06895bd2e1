/**
 * `analyzeSql`: parse SQL with PostgreSQL's own parser and describe each statement: what it
 * writes, under which condition, with which values, plus the offsets a suggestion needs.
 */
import { byteToIndex, isSqlParserLoaded, parseSql } from './parser.js';
import { blankMysqlIntervals, blankMysqlWriteLimit, normalizeMysql, normalizePostgres, type NormalizedSql } from './normalize.js';
import { TokenView } from './tokens.js';
import {
  Scope,
  builtinName,
  collectComparisons,
  columnFields,
  conditionsOfSelect,
  functionName,
  outputName,
  selectOutput,
  valueOf,
  type Json,
  type TextContext,
} from './values.js';
import type { SqlAnalysis, SqlAssignment, SqlComparison, SqlDialect, SqlRange, SqlStatementEditPoints, SqlStatementInfo } from './types.js';

/** Extra per-analysis facts for planFenceEdit, kept out of the public shape. */
export interface AnalysisInternals {
  view: TokenView;
  normalized: NormalizedSql;
}
export const internals = new WeakMap<SqlAnalysis, AnalysisInternals>();

/** Facts about a statement that only planFenceEdit needs. */
export interface StatementInternals {
  /** Range names besides the target (FROM, USING): a new condition must qualify the column. */
  joined: boolean;
}
export const statementInternals = new WeakMap<SqlStatementInfo, StatementInternals>();

const CACHE_SIZE = 400;
/** Longer texts are analyzed every time rather than pinned in memory by the cache. */
const CACHE_MAX_TEXT = 100_000;
/** Beyond this, SQL is generated data, not a statement someone wrote: not analyzed. */
const MAX_TEXT = 4_000_000;
const cache = new Map<string, SqlAnalysis | null>();

/**
 * Parses `text` and describes its statements. Returns undefined when the parser is not loaded
 * or the text is not valid PostgreSQL (after MySQL normalization for 'mysql'); never throws.
 * Results are cached by text and shared: do not mutate them.
 */
export function analyzeSql(text: string, dialect: SqlDialect = 'postgres'): SqlAnalysis | undefined {
  if (!isSqlParserLoaded() || typeof text !== 'string' || text.length > MAX_TEXT) return undefined;
  const key = `${dialect}\u0000${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit ?? undefined;
  }
  let result: SqlAnalysis | undefined;
  try {
    result = analyzeUncached(text, dialect);
  } catch {
    result = undefined; // e.g. a statement nested too deeply for the walk
  }
  if (text.length > CACHE_MAX_TEXT) return result;
  cache.set(key, result ?? null);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return result;
}

function analyzeUncached(source: string, dialect: SqlDialect): SqlAnalysis | undefined {
  if (source.trim() === '') return undefined;
  const normalized = dialect === 'mysql' ? normalizeMysql(source) : normalizePostgres(source);
  const text = normalized.text;
  let parsedText = text;
  let parsed = parseSql(text);
  if (!parsed && dialect === 'mysql') {
    // MySQL's `INTERVAL 15 SECOND` and `UPDATE/DELETE ... ORDER BY ... LIMIT n`: parse without
    // them, offsets unchanged.
    const intervals = blankMysqlIntervals(text);
    if (intervals) {
      parsedText = intervals;
      parsed = parseSql(intervals);
    }
    const blanked = parsed ? undefined : blankMysqlWriteLimit(parsedText);
    if (blanked) {
      parsedText = blanked;
      parsed = parseSql(blanked);
    }
  }
  if (!parsed?.stmts?.length) return undefined;
  const view = new TokenView(parsedText);
  const ctx: TextContext = { view, toIndex: byteToIndex(parsedText) };
  const statements: SqlStatementInfo[] = [];
  const nested: SqlStatementInfo[] = [];
  for (const raw of parsed.stmts) {
    const start = ctx.toIndex(raw.stmt_location ?? 0);
    const end = raw.stmt_len ? ctx.toIndex((raw.stmt_location ?? 0) + raw.stmt_len) : text.length;
    const range = trimRange(text, start, end);
    const scope = new Scope(ctx);
    statements.push(describe(raw.stmt as Json, scope, () => range, ctx));
    collectNestedWrites(raw.stmt as Json, scope, ctx, range.end, nested);
  }
  const analysis: SqlAnalysis = {
    text,
    source,
    dialect,
    statements: [...statements, ...nested],
    paramNames: normalized.paramNames,
    positionalParams: normalized.positionalOffsets.length,
    toSourceOffset: normalized.toSourceOffset,
  };
  internals.set(analysis, { view, normalized });
  return analysis;
}

function trimRange(text: string, start: number, end: number): SqlRange {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /[\s;]/.test(text[end - 1])) end--;
  return { start, end };
}

const BODY_KEYS = ['UpdateStmt', 'InsertStmt', 'DeleteStmt', 'MergeStmt', 'SelectStmt'] as const;

/** Data-modifying statements inside WITH clauses, described as statements of their own. */
function collectNestedWrites(stmt: Json, scope: Scope, ctx: TextContext, limit: number, out: SqlStatementInfo[]): void {
  const body = BODY_KEYS.map((k) => stmt?.[k]).find(Boolean);
  for (const item of body?.withClause?.ctes ?? []) {
    const cte = item.CommonTableExpr;
    const query = cte?.ctequery;
    if (!query || query.SelectStmt) continue;
    const entry = scope.findCte(String(cte.ctename).toLowerCase());
    const inner = (entry?.scope ?? scope).child();
    let range: SqlRange | undefined;
    const nameAt: number = cte.location ?? 0;
    const rangeOf = (): SqlRange => (range ??= cteBodyRange(ctx, ctx.toIndex(nameAt), limit));
    out.push(describe(query, inner, rangeOf, ctx));
    collectNestedWrites(query, inner, ctx, limit, out);
  }
}

/** The text inside `name [(cols)] AS [NOT] [MATERIALIZED] ( ... )`. */
function cteBodyRange(ctx: TextContext, nameAt: number, limit: number): SqlRange {
  const { view } = ctx;
  const t = view.tokens;
  let k = view.indexAt(nameAt) + 1;
  if (t[k]?.text === '(') k = view.matching(k) + 1;
  while (k < t.length && t[k].text !== '(') k++;
  const close = view.matching(k);
  return { start: t[k + 1]?.start ?? limit, end: t[close - 1]?.end ?? limit };
}

function describe(stmt: Json, scope: Scope, rangeOf: () => SqlRange, ctx: TextContext): SqlStatementInfo {
  const info = {
    kind: 'other',
    upsert: false,
    conditions: [] as SqlComparison[],
    assignments: [] as SqlAssignment[],
    assignmentGuards: [] as SqlComparison[],
    returning: [] as string[],
    selectedColumns: [] as string[],
    outputs: [] as SqlAssignment[],
    forUpdate: false,
    ...callsAndParams(stmt),
  } as SqlStatementInfo;
  defineLazy(info, 'range', rangeOf);
  statementInternals.set(info, { joined: Boolean(stmt.UpdateStmt?.fromClause?.length || stmt.DeleteStmt?.usingClause?.length) });

  if (stmt.UpdateStmt) {
    const u = stmt.UpdateStmt;
    info.kind = 'update';
    setTarget(info, u.relation, scope);
    scope.addWith(u.withClause);
    scope.addFrom(u.fromClause, info.conditions);
    info.assignments = setList(u.targetList, scope, info, info.assignmentGuards);
    if (u.whereClause) collectComparisons(u.whereClause, scope, false, info.conditions);
    info.returning = returningNames(u.returningClause, scope);
    info.outputs = outputValues(u.returningClause?.exprs, scope, (t) => outputLabel(t, scope));
    lazyEditPoints(info, ctx, u.relation?.location, 'update', !u.whereClause?.CurrentOfExpr);
  } else if (stmt.DeleteStmt) {
    const d = stmt.DeleteStmt;
    info.kind = 'delete';
    setTarget(info, d.relation, scope);
    scope.addWith(d.withClause);
    scope.addFrom(d.usingClause, info.conditions);
    if (d.whereClause) collectComparisons(d.whereClause, scope, false, info.conditions);
    info.returning = returningNames(d.returningClause, scope);
    info.outputs = outputValues(d.returningClause?.exprs, scope, (t) => outputLabel(t, scope));
    lazyEditPoints(info, ctx, d.relation?.location, 'delete', !d.whereClause?.CurrentOfExpr);
  } else if (stmt.InsertStmt) {
    describeInsert(stmt.InsertStmt, info, scope, ctx);
  } else if (stmt.MergeStmt) {
    describeMerge(stmt.MergeStmt, info, scope);
    info.edit = {};
  } else if (stmt.SelectStmt) {
    const s = stmt.SelectStmt;
    info.kind = 'select';
    info.table = firstTable(s);
    info.forUpdate = Boolean(s.lockingClause?.length) || Boolean(s.larg?.lockingClause?.length);
    const selectLabel = (t: Json) => {
      const rt = t.ResTarget;
      return String(rt?.name ?? (rt?.val ? (outputName(rt.val) ?? '?column?') : '?column?')).toLowerCase();
    };
    info.selectedColumns = (s.targetList ?? []).map(selectLabel);
    info.outputs = outputValues(s.targetList, scope, selectLabel);
    conditionsOfSelect(s, scope, false, info.conditions);
    info.edit = {};
  } else {
    info.edit = {};
  }
  return info;
}

function describeInsert(ins: Json, info: SqlStatementInfo, scope: Scope, ctx: TextContext): void {
  info.kind = 'insert';
  setTarget(info, ins.relation, scope);
  scope.addWith(ins.withClause);
  const columns: string[] = (ins.cols ?? []).map((c: Json) => String(c.ResTarget?.name).toLowerCase());
  const inserted: SqlAssignment[] = [];
  const select = ins.selectStmt?.SelectStmt;
  if (select) {
    // VALUES rows and INSERT ... SELECT alike: output columns by position; a SELECT's WHERE guards the insert.
    const output = [...selectOutput(select, scope.child(), info.conditions).values()];
    columns.forEach((column, i) => {
      if (output[i]) inserted.push({ column, value: output[i] });
    });
  }
  info.insertedValues = inserted;
  info.assignments = inserted;
  const conflict = ins.onConflictClause;
  if (conflict?.action === 'ONCONFLICT_UPDATE') {
    info.upsert = true;
    info.conflictColumns = (conflict.infer?.indexElems ?? []).map((e: Json) => e.IndexElem?.name).filter((name: unknown): name is string => typeof name === 'string').map((name: string) => name.toLowerCase());
    const upsertScope = scope.child();
    upsertScope.excluded = new Map(inserted.map((a) => [a.column, a.value]));
    info.assignments = setList(conflict.targetList, upsertScope, info, info.assignmentGuards);
    if (conflict.whereClause) collectComparisons(conflict.whereClause, upsertScope, false, info.conditions);
  }
  info.returning = returningNames(ins.returningClause, scope);
  info.outputs = outputValues(ins.returningClause?.exprs, scope, (t) => outputLabel(t, scope));
  if (info.upsert) lazyEditPoints(info, ctx, ins.relation?.location, 'upsert', true);
  else info.edit = {};
}

function describeMerge(m: Json, info: SqlStatementInfo, scope: Scope): void {
  info.kind = 'merge';
  setTarget(info, m.relation, scope);
  scope.addWith(m.withClause);
  if (m.sourceRelation) scope.addFrom([m.sourceRelation], info.conditions);
  if (m.joinCondition) collectComparisons(m.joinCondition, scope, false, info.conditions);
  for (const item of m.mergeWhenClauses ?? []) {
    const when = item.MergeWhenClause;
    if (!when) continue;
    if (when.condition && when.matchKind === 'MERGE_WHEN_MATCHED') collectComparisons(when.condition, scope, false, info.conditions);
    if (when.commandType === 'CMD_UPDATE') info.assignments.push(...setList(when.targetList, scope, info, info.assignmentGuards));
    if (when.commandType === 'CMD_INSERT') {
      (when.targetList ?? []).forEach((t: Json, i: number) => {
        const value = when.values?.[i];
        if (t.ResTarget?.name && value) info.assignments.push({ column: String(t.ResTarget.name).toLowerCase(), value: valueOf(value, scope) });
      });
    }
  }
  info.returning = returningNames(m.returningClause, scope);
  info.outputs = outputValues(m.returningClause?.exprs, scope, (t) => outputLabel(t, scope));
}

function setTarget(info: SqlStatementInfo, relation: Json, scope: Scope): void {
  if (!relation?.relname) return;
  info.table = String(relation.relname).toLowerCase();
  if (relation.alias?.aliasname) info.alias = String(relation.alias.aliasname).toLowerCase();
  scope.sources.set(info.alias ?? info.table, undefined);
  scope.tables.set(info.alias ?? info.table, info.table);
}

function firstTable(select: Json): string | undefined {
  let item = select.fromClause?.[0] ?? select.larg?.fromClause?.[0];
  while (item?.JoinExpr) item = item.JoinExpr.larg;
  return item?.RangeVar?.relname ? String(item.RangeVar.relname).toLowerCase() : undefined;
}

/**
 * `SET a = x, (b, c) = ($1, $2)` as one assignment per column; comparisons in `CASE WHEN`
 * conditions of the values go to `guards`.
 */
function setList(targets: Json[] | undefined, scope: Scope, target: Pick<SqlStatementInfo, 'table' | 'alias'>, guards?: SqlComparison[]): SqlAssignment[] {
  const assignments: SqlAssignment[] = [];
  for (const t of targets ?? []) {
    const rt = t.ResTarget;
    if (!rt?.name || !rt.val) continue;
    let val = rt.val;
    if (val.MultiAssignRef) {
      const ref = val.MultiAssignRef;
      val = ref.source?.RowExpr?.args?.[ref.colno - 1] ?? ref.source;
    }
    const column = String(rt.name).toLowerCase();
    const assignment: SqlAssignment = { column, value: valueOf(val, scope) };
    if (stepsItself(val, column, scope, target)) assignment.relative = true;
    assignments.push(assignment);
    if (guards) collectCaseGuards(val, scope, guards);
  }
  return assignments;
}

/**
 * `n = n + $1`, `n = n - 1`, `n = COALESCE(n, 0) + $2`, `n = $1 + t.n`: the column's own stored
 * value moved by an amount that reads no column of the row, as a counter is changed.
 */
function stepsItself(val: Json, column: string, scope: Scope, target: Pick<SqlStatementInfo, 'table' | 'alias'>): boolean {
  const expr = unwrapCast(val)?.A_Expr;
  if (!expr || expr.kind !== 'AEXPR_OP' || !expr.lexpr || !expr.rexpr) return false;
  const op = expr.name?.at(-1)?.String?.sval;
  if (op !== '+' && op !== '-') return false;
  const own = (n: Json): boolean => {
    let inner = unwrapCast(n);
    // `COALESCE(n, 0)`: the stored value, or a start for a row that has none yet.
    if (inner?.CoalesceExpr) inner = unwrapCast(inner.CoalesceExpr.args?.[0]);
    const fields = inner?.ColumnRef ? columnFields(inner.ColumnRef) : undefined;
    if (!fields || fields.at(-1) !== column) return false;
    return fields.length === 1 || fields.at(-2) === target.table || fields.at(-2) === target.alias;
  };
  const amount = (n: Json): boolean => valueOf(n, scope).columns.length === 0;
  return (own(expr.lexpr) && amount(expr.rexpr)) || (op === '+' && own(expr.rexpr) && amount(expr.lexpr));
}

function unwrapCast(node: Json): Json {
  let n = node;
  while (n?.TypeCast?.arg) n = n.TypeCast.arg;
  return n;
}

/** Comparisons in the WHEN conditions of searched CASE expressions (not inside subqueries). */
function collectCaseGuards(node: Json, scope: Scope, out: SqlComparison[]): void {
  if (node === null || typeof node !== 'object' || node.SubLink) return;
  if (Array.isArray(node)) {
    for (const n of node) collectCaseGuards(n, scope, out);
    return;
  }
  if (node.CaseExpr && !node.CaseExpr.arg) {
    for (const when of node.CaseExpr.args ?? []) if (when.CaseWhen?.expr) collectComparisons(when.CaseWhen.expr, scope, false, out);
  }
  for (const key in node) if (typeof node[key] === 'object') collectCaseGuards(node[key], scope, out);
}

function returningNames(clause: Json, scope: Scope): string[] {
  return (clause?.exprs ?? []).map((t: Json) => outputLabel(t, scope));
}

/** Output items (RETURNING or the SELECT list) with the value each carries. */
function outputValues(targets: Json[] | undefined, scope: Scope, label: (t: Json) => string): SqlAssignment[] {
  return (targets ?? []).flatMap((t: Json) => (t.ResTarget?.val ? [{ column: label(t), value: valueOf(t.ResTarget.val, scope) }] : []));
}

function outputLabel(t: Json, scope: Scope): string {
  const rt = t.ResTarget;
  if (rt?.name) return String(rt.name).toLowerCase();
  if (rt?.val?.ColumnRef) {
    const fields = columnFields(rt.val.ColumnRef);
    return fields ? fields[fields.length - 1] : '*';
  }
  return rt?.val ? valueOf(rt.val, scope).text : '';
}

/** Every function called and every parameter referenced in a statement, anywhere in it. */
function callsAndParams(stmt: Json): { functionCalls: string[]; params: number[] } {
  const functions = new Set<string>();
  const params = new Set<number>();
  const visit = (node: Json): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (node.FuncCall) functions.add(functionName(node.FuncCall));
    else if (node.SQLValueFunction) functions.add(builtinName('SQLValueFunction', node.SQLValueFunction));
    else if (node.MinMaxExpr) functions.add(builtinName('MinMaxExpr', node.MinMaxExpr));
    else if (node.CoalesceExpr) functions.add('coalesce');
    else if (node.ParamRef && typeof node.ParamRef.number === 'number') params.add(node.ParamRef.number);
    for (const key in node) if (typeof node[key] === 'object') visit(node[key]);
  };
  visit(stmt);
  return { functionCalls: [...functions], params: [...params].sort((a, b) => a - b) };
}

/** Edit points are found on first read: only suggestions need them, and they need the token scan. */
function lazyEditPoints(info: SqlStatementInfo, ctx: TextContext, relationAt: number | undefined, mode: 'update' | 'delete' | 'upsert', whereEditable: boolean): void {
  defineLazy(info, 'edit', () => editPoints(ctx, info, relationAt, mode, whereEditable));
}

function defineLazy<T extends object, K extends keyof T>(obj: T, key: K, compute: () => T[K]): void {
  let value: T[K] | undefined;
  let done = false;
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (!done) {
        value = compute();
        done = true;
      }
      return value;
    },
    set(v: T[K]) {
      value = v;
      done = true;
    },
  });
}

/**
 * Finds the clauses of a write from its target relation onward, at the write's own bracket depth:
 * SET list end, WHERE condition range, and where a WHERE would go (before RETURNING).
 */
function editPoints(ctx: TextContext, info: SqlStatementInfo, relationAt: number | undefined, mode: 'update' | 'delete' | 'upsert', whereEditable: boolean): SqlStatementEditPoints {
  if (relationAt === undefined) return {};
  const { view } = ctx;
  const t = view.tokens;
  const end = info.range.end;
  const at: Record<string, number> = {};
  let depth = 0;
  let last = -1;
  let afterDoUpdate = mode !== 'upsert';
  for (let k = view.indexAt(ctx.toIndex(relationAt)); k < t.length && t[k].start < end; k++) {
    const tok = t[k];
    if (tok.text === '(' || tok.text === '[') depth++;
    else if (tok.text === ')' || tok.text === ']') {
      if (--depth < 0) break;
    } else if (depth === 0 && tok.text === ';') break;
    last = k;
    if (depth !== 0 || !tok.keyword) continue;
    if (mode === 'upsert' && tok.text === 'DO' && t[k + 1]?.text === 'UPDATE') afterDoUpdate = true;
    if (!afterDoUpdate) continue;
    if (tok.text === 'SET' && at.SET === undefined) at.SET = k;
    else if ((tok.text === 'FROM' || tok.text === 'USING') && at.FROM === undefined && at.WHERE === undefined) at.FROM = k;
    else if (tok.text === 'WHERE' && at.WHERE === undefined && (mode === 'delete' || at.SET !== undefined)) at.WHERE = k;
    else if (tok.text === 'RETURNING' && at.RETURNING === undefined) at.RETURNING = k;
  }
  if (last < 0) return {};
  const bodyEnd = at.RETURNING !== undefined ? at.RETURNING - 1 : last;
  const points: SqlStatementEditPoints = {};
  if (at.SET !== undefined) {
    const setEnd = Math.min(...[at.FROM, at.WHERE, at.RETURNING].filter((v): v is number => v !== undefined).map((v) => v - 1), last);
    points.setListEnd = t[setEnd].end;
  }
  if (!whereEditable) return points;
  if (at.WHERE !== undefined) points.whereRange = { start: t[at.WHERE + 1].start, end: t[bodyEnd].end };
  else points.whereInsertAt = t[bodyEnd].end;
  return points;
}

