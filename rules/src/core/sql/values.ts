/**
 * Expressions of the libpg-query AST as SqlValues, and the comparisons of a condition, with
 * column references resolved through the names in scope: CTE and FROM-subquery output columns
 * (`c.tok` where `c AS (SELECT $2::bigint AS tok)` is `$2`) and `EXCLUDED.col` of an upsert.
 */
import type { CommonTableExpr, Node, SelectStmt, WithClause } from 'libpg-query';
import type { TokenView } from './tokens.js';
import type { SqlComparison, SqlValue } from './types.js';

/** A libpg-query node as plain JSON: `{ Tag: body }`. */
export type Json = any;

export interface TextContext {
  view: TokenView;
  toIndex(byte: number): number;
}

type Columns = Map<string, SqlValue>;

interface CteEntry {
  node: CommonTableExpr;
  /** Scope the CTE body sees (earlier siblings and the outer scope). */
  scope: Scope;
  columns?: Columns;
  conditions?: SqlComparison[];
  busy?: boolean;
}

export class Scope {
  readonly ctes = new Map<string, CteEntry>();
  /** Range names visible here -> their output columns (undefined for tables: columns unknown). */
  readonly sources = new Map<string, Columns | undefined>();
  /** Range names that are plain tables -> the table's name. */
  readonly tables = new Map<string, string>();
  excluded?: Columns;

  constructor(
    readonly ctx: TextContext,
    readonly parent?: Scope,
  ) {}

  child(): Scope {
    return new Scope(this.ctx, this);
  }

  findCte(name: string): CteEntry | undefined {
    return this.ctes.get(name) ?? this.parent?.findCte(name);
  }

  /** This scope and its ancestors, innermost first. */
  private *chain(): Generator<Scope> {
    yield this;
    if (this.parent) yield* this.parent.chain();
  }

  /** Registers a WITH clause; each CTE sees the ones before it. */
  addWith(withClause: WithClause | undefined): void {
    for (const item of withClause?.ctes ?? []) {
      const cte: CommonTableExpr | undefined = (item as Json).CommonTableExpr;
      if (!cte?.ctename) continue;
      const entry: CteEntry = { node: cte, scope: this.child() };
      if (withClause?.recursive) this.ctes.set(cte.ctename.toLowerCase(), entry);
      else {
        // Non-recursive: a CTE body sees only the CTEs before it.
        for (const [k, v] of this.ctes) entry.scope.ctes.set(k, v);
        this.ctes.set(cte.ctename.toLowerCase(), entry);
      }
    }
  }

  /**
   * Registers FROM / USING items, and appends the conditions that filter them (joins, CTE and
   * subquery WHERE clauses) to `conditions`.
   */
  addFrom(items: Node[] | undefined, conditions: SqlComparison[]): void {
    for (const item of items ?? []) this.addFromItem(item as Json, conditions);
  }

  private addFromItem(item: Json, conditions: SqlComparison[]): void {
    if (item.RangeVar) {
      const rv = item.RangeVar;
      const name = String(rv.relname).toLowerCase();
      const alias = (rv.alias?.aliasname ?? rv.relname).toLowerCase();
      const cte = rv.schemaname ? undefined : this.findCte(name);
      if (!cte) {
        this.sources.set(alias, undefined);
        this.tables.set(alias, name);
        return;
      }
      const resolved = resolveCte(cte);
      this.sources.set(alias, renameColumns(resolved.columns, rv.alias?.colnames));
      conditions.push(...resolved.conditions);
    } else if (item.RangeSubselect) {
      const sub = item.RangeSubselect;
      const select: SelectStmt | undefined = sub.subquery?.SelectStmt;
      const alias = sub.alias?.aliasname?.toLowerCase();
      if (!select) return;
      const inner = this.child();
      const columns = selectOutput(select, inner, conditions);
      if (alias) this.sources.set(alias, renameColumns(columns, sub.alias?.colnames));
    } else if (item.JoinExpr) {
      const join = item.JoinExpr;
      this.addFromItem(join.larg, conditions);
      this.addFromItem(join.rarg, conditions);
      if (join.quals) collectComparisons(join.quals, this, false, conditions);
    } else if (item.RangeFunction) {
      const rf = item.RangeFunction;
      const alias = rf.alias?.aliasname?.toLowerCase();
      if (!alias) return;
      // `unnest($1::int[]) AS u(id)`: every output column carries the call's parameters.
      const value = valueOf(rf.functions ?? [], this);
      const columns: Columns = new Map();
      for (const c of rf.alias?.colnames ?? []) columns.set(String(c.String?.sval).toLowerCase(), value);
      columns.set(alias, value);
      this.sources.set(alias, columns);
    }
  }

  /** The table a column reference is stored in (see `SqlComparison.relation`). */
  relationOf(fields: string[]): string | undefined {
    if (fields.length >= 2) {
      const qualifier = fields[fields.length - 2];
      for (const s of this.chain()) if (s.sources.has(qualifier)) return s.tables.get(qualifier);
      return undefined;
    }
    return this.sources.size === 1 ? [...this.tables.values()][0] : undefined;
  }

  resolveColumn(fields: string[]): SqlValue | undefined {
    const col = fields[fields.length - 1];
    if (fields.length >= 2) {
      const qualifier = fields[fields.length - 2];
      for (const s of this.chain()) {
        if (qualifier === 'excluded' && s.excluded) return s.excluded.get(col);
        if (s.sources.has(qualifier)) return s.sources.get(qualifier)?.get(col);
      }
      return undefined;
    }
    // Unqualified: a valid statement names it in exactly one source, so a CTE/subquery match is it.
    for (const s of this.chain()) {
      for (const columns of s.sources.values()) {
        const found = columns?.get(col);
        if (found) return found;
      }
    }
    return undefined;
  }
}

function resolveCte(cte: CteEntry): { columns: Columns; conditions: SqlComparison[] } {
  if (cte.columns && cte.conditions) return { columns: cte.columns, conditions: cte.conditions };
  if (cte.busy) return { columns: new Map(), conditions: [] }; // recursive reference
  cte.busy = true;
  const query: Json = cte.node.ctequery;
  const conditions: SqlComparison[] = [];
  let columns: Columns = new Map();
  if (query?.SelectStmt) columns = selectOutput(query.SelectStmt, cte.scope.child(), conditions);
  else {
    // Data-modifying CTE: its RETURNING list is its output; its own WHERE guards another table.
    const body = query?.UpdateStmt ?? query?.InsertStmt ?? query?.DeleteStmt ?? query?.MergeStmt;
    if (body) {
      const inner = cte.scope.child();
      inner.addWith(body.withClause);
      if (body.relation) inner.sources.set((body.relation.alias?.aliasname ?? body.relation.relname).toLowerCase(), undefined);
      columns = targetColumns(body.returningClause?.exprs, inner);
    }
  }
  cte.columns = renameColumns(columns, cte.node.aliascolnames);
  cte.conditions = conditions;
  cte.busy = false;
  return { columns: cte.columns, conditions };
}

/** Output columns of a SELECT (or VALUES, or set operation); its filters go to `conditions`. */
export function selectOutput(select: SelectStmt, scope: Scope, conditions: SqlComparison[]): Columns {
  if (select.larg && select.rarg) {
    const left = selectOutput(select.larg, scope.child(), conditions);
    const right = selectOutput(select.rarg, scope.child(), conditions);
    const names = [...left.keys()];
    const rightValues = [...right.values()];
    const merged: Columns = new Map();
    names.forEach((name, i) => merged.set(name, mergeValues(left.get(name)!, rightValues[i])));
    return merged;
  }
  scope.addWith(select.withClause);
  scope.addFrom(select.fromClause, conditions);
  if (select.whereClause) collectComparisons(select.whereClause, scope, false, conditions);
  if (select.valuesLists) {
    const columns: Columns = new Map();
    for (const row of select.valuesLists) {
      ((row as Json).List?.items ?? []).forEach((item: Node, i: number) => {
        const name = `column${i + 1}`;
        const value = valueOf(item, scope);
        const before = columns.get(name);
        columns.set(name, before ? mergeValues(before, value) : value);
      });
    }
    return columns;
  }
  return targetColumns(select.targetList, scope);
}

/** Named items of a SELECT list or RETURNING list. */
function targetColumns(targets: Node[] | undefined, scope: Scope): Columns {
  const columns: Columns = new Map();
  let position = 0;
  for (const t of targets ?? []) {
    const rt = (t as Json).ResTarget;
    position++;
    if (!rt?.val) continue;
    const name = rt.name ?? outputName(rt.val) ?? `?column${position}?`;
    columns.set(String(name).toLowerCase(), valueOf(rt.val, scope));
  }
  return columns;
}

/** The name PostgreSQL gives an unnamed output expression (column or function name). */
export function outputName(val: Json): string | undefined {
  if (val.ColumnRef) {
    const last = val.ColumnRef.fields?.at(-1);
    return last?.String?.sval;
  }
  if (val.FuncCall) return val.FuncCall.funcname?.at(-1)?.String?.sval;
  if (val.TypeCast) return outputName(val.TypeCast.arg) ?? val.TypeCast.typeName?.names?.at(-1)?.String?.sval;
  return undefined;
}

function renameColumns(columns: Columns, colnames: Node[] | undefined): Columns {
  if (!colnames?.length) return columns;
  const renamed: Columns = new Map();
  const values = [...columns.values()];
  colnames.forEach((c, i) => {
    const name = String((c as Json).String?.sval).toLowerCase();
    if (values[i]) renamed.set(name, values[i]);
  });
  // Columns past the alias list keep their own names.
  [...columns.keys()].slice(colnames.length).forEach((k) => renamed.set(k, columns.get(k)!));
  return renamed;
}

export function mergeValues(a: SqlValue, b: SqlValue | undefined): SqlValue {
  if (!b) return a;
  const merged: SqlValue = {
    params: union(a.params, b.params),
    columns: union(a.columns, b.columns),
    functions: union(a.functions, b.functions),
    text: '',
  };
  Object.defineProperty(merged, 'text', { enumerable: true, get: () => a.text });
  return merged;
}

function union<T>(a: T[], b: T[]): T[] {
  return [...new Set([...a, ...b])];
}

export const EMPTY_VALUE: SqlValue = Object.freeze({ params: [], columns: [], functions: [], text: '' }) as SqlValue;

/** The parameters, columns and functions an expression (or list of them) reads. */
export function valueOf(node: Node | Node[], scope: Scope): SqlValue {
  const acc = { params: new Set<number>(), columns: new Set<string>(), functions: new Set<string>(), min: Infinity, max: -Infinity };
  walkValue(node as Json, scope, acc);
  return makeValue([...acc.params], [...acc.columns], [...acc.functions], scope.ctx, acc.min, acc.max);
}

/** A value whose `text` is cut from the statement on first read (it needs the token scan). */
function makeValue(params: number[], columns: string[], functions: string[], ctx: TextContext, min: number, max: number): SqlValue {
  const value: SqlValue = { params, columns, functions, text: '' };
  let text: string | undefined;
  Object.defineProperty(value, 'text', {
    enumerable: true,
    get() {
      if (text === undefined) {
        const range = min <= max ? ctx.view.expressionRange(ctx.toIndex(min), ctx.toIndex(max)) : undefined;
        text = range ? ctx.view.text.slice(range.start, range.end) : '';
      }
      return text;
    },
  });
  return value;
}

interface Acc {
  params: Set<number>;
  columns: Set<string>;
  functions: Set<string>;
  min: number;
  max: number;
}

function walkValue(node: Json, scope: Scope, acc: Acc): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) walkValue(n, scope, acc);
    return;
  }
  for (const key in node) {
    const body = node[key];
    if (key === 'location') {
      if (typeof body === 'number' && body >= 0) {
        acc.min = Math.min(acc.min, body);
        acc.max = Math.max(acc.max, body);
      }
      continue;
    }
    switch (key) {
      case 'ParamRef':
        if (typeof body.number === 'number') acc.params.add(body.number);
        break;
      case 'ColumnRef': {
        const fields = columnFields(body);
        const resolved = fields && scope.resolveColumn(fields);
        if (resolved) {
          resolved.params.forEach((p) => acc.params.add(p));
          resolved.columns.forEach((c) => acc.columns.add(c));
          resolved.functions.forEach((f) => acc.functions.add(f));
        } else if (fields) {
          const qualifier = fields.length >= 2 ? fields[fields.length - 2] : undefined;
          acc.columns.add(qualifier === 'excluded' ? `excluded.${fields.at(-1)}` : fields.at(-1)!);
        }
        break;
      }
      case 'FuncCall':
        acc.functions.add(functionName(body));
        break;
      case 'SQLValueFunction':
      case 'MinMaxExpr':
      case 'CoalesceExpr':
        acc.functions.add(builtinName(key, body));
        break;
      case 'SubLink':
        if (body.testexpr) walkValue(body.testexpr, scope, acc);
        if (typeof body.location === 'number') {
          acc.min = Math.min(acc.min, body.location);
          acc.max = Math.max(acc.max, body.location);
        }
        if (body.subselect?.SelectStmt) walkSelect(body.subselect.SelectStmt, scope.child(), acc);
        continue;
    }
    walkValue(body, scope, acc);
  }
}

/** A subquery read as a value: everything it reads, with its own FROM names in scope. */
function walkSelect(select: SelectStmt, scope: Scope, acc: Acc): void {
  if (select.larg && select.rarg) {
    walkSelect(select.larg, scope.child(), acc);
    walkSelect(select.rarg, scope.child(), acc);
    return;
  }
  scope.addWith(select.withClause);
  scope.addFrom(select.fromClause, []);
  const { withClause, fromClause, ...rest } = select;
  void withClause;
  walkValue(rest, scope, acc);
  // FROM items may hold parameters too (`FROM unnest($1::int[])`), but not their locations' text.
  for (const item of fromClause ?? []) {
    const v = valueOf(item, scope);
    v.params.forEach((p) => acc.params.add(p));
    v.functions.forEach((f) => acc.functions.add(f));
  }
}

/** Names for calls the parser gives their own nodes: `now` is a FuncCall, these are not. */
export function builtinName(tag: string, body: Json): string {
  if (tag === 'SQLValueFunction') return String(body.op).replace(/^SVFOP_/, '').toLowerCase(); // current_timestamp
  if (tag === 'MinMaxExpr') return body.op === 'IS_LEAST' ? 'least' : 'greatest';
  return 'coalesce';
}

export function functionName(call: Json): string {
  return String(call.funcname?.at(-1)?.String?.sval ?? '').toLowerCase();
}

/** Lower-case field names of a column reference, or undefined for `*`. */
export function columnFields(ref: Json): string[] | undefined {
  const fields: string[] = [];
  for (const f of ref.fields ?? []) {
    if (!f.String) return undefined;
    fields.push(String(f.String.sval).toLowerCase());
  }
  return fields.length ? fields : undefined;
}

const COMPARISONS = new Set(['<', '<=', '=', '<>', '!=', '>', '>=']);
const FLIPPED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=', '<>': '<>' };
const NEGATED: Record<string, string> = {
  '<': '>=',
  '<=': '>',
  '>': '<=',
  '>=': '<',
  '=': '<>',
  '<>': '=',
  'IS DISTINCT FROM': 'IS NOT DISTINCT FROM',
  'IS NOT DISTINCT FROM': 'IS DISTINCT FROM',
  'IS NULL': 'IS NOT NULL',
  'IS NOT NULL': 'IS NULL',
  IN: 'NOT IN',
  'NOT IN': 'IN',
};

/**
 * Appends the comparisons of a boolean condition: through AND/OR/NOT (NOT flips the operator),
 * EXISTS and other subqueries, as `column op value` with the stored column on the left.
 */
export function collectComparisons(node: Json, scope: Scope, negated: boolean, out: SqlComparison[]): void {
  if (!node || typeof node !== 'object') return;
  if (node.BoolExpr) {
    const not = node.BoolExpr.boolop === 'NOT_EXPR';
    for (const arg of node.BoolExpr.args ?? []) collectComparisons(arg, scope, not ? !negated : negated, out);
    return;
  }
  if (node.SubLink) {
    const link = node.SubLink;
    if (link.testexpr) collectComparisons(link.testexpr, scope, false, out);
    const select = link.subselect?.SelectStmt;
    if (select) conditionsOfSelect(select, scope.child(), link.subLinkType === 'EXISTS_SUBLINK' && negated, out);
    return;
  }
  if (node.NullTest) {
    const column = storedColumn(node.NullTest.arg, scope);
    if (column) {
      const op = node.NullTest.nulltesttype === 'IS_NOT_NULL' ? 'IS NOT NULL' : 'IS NULL';
      out.push({ column, op: negated ? NEGATED[op] : op, value: EMPTY_VALUE });
    }
    return;
  }
  if (node.A_Expr) {
    const e = node.A_Expr;
    let op: string | undefined;
    if (e.kind === 'AEXPR_OP') {
      op = e.name?.at(-1)?.String?.sval;
      if (op === '!=') op = '<>';
    } else if (e.kind === 'AEXPR_DISTINCT') op = 'IS DISTINCT FROM';
    else if (e.kind === 'AEXPR_NOT_DISTINCT') op = 'IS NOT DISTINCT FROM';
    else if (e.kind === 'AEXPR_BETWEEN' || e.kind === 'AEXPR_BETWEEN_SYM') {
      // `col BETWEEN lo AND hi` is `col >= lo AND col <= hi`.
      const column = storedColumn(e.lexpr, scope);
      const [lo, hi] = e.rexpr?.List?.items ?? [];
      if (column && lo && hi && !negated) {
        out.push({ column, op: '>=', value: valueOf(lo, scope) }, { column, op: '<=', value: valueOf(hi, scope) });
      }
      collectNestedConditions(e.rexpr, scope, out);
      return;
    } else if (e.kind === 'AEXPR_IN' || e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') {
      // `col IN (...)`, `col = ANY($1)`: only with the column on the left.
      const name = e.name?.at(-1)?.String?.sval;
      const listOp = e.kind === 'AEXPR_IN' ? (name === '=' ? 'IN' : 'NOT IN') : `${name} ${e.kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL'}`;
      const column = storedColumn(e.lexpr, scope);
      if (column && e.rexpr) out.push({ column, op: negated ? (NEGATED[listOp] ?? `NOT ${listOp}`) : listOp, value: valueOf(e.rexpr, scope) });
      collectNestedConditions(e.rexpr, scope, out);
      return;
    }
    // Subqueries on either side may hold conditions of their own.
    for (const side of [e.lexpr, e.rexpr]) if (side) collectNestedConditions(side, scope, out);
    if (!op || !(COMPARISONS.has(op) || op.startsWith('IS ')) || !e.lexpr || !e.rexpr) return;
    let column = storedColumn(e.lexpr, scope);
    let columnNode = e.lexpr;
    let valueNode = e.rexpr;
    if (!column) {
      column = storedColumn(e.rexpr, scope);
      columnNode = e.rexpr;
      valueNode = e.lexpr;
      if (!column) {
        offsetComparison(e.lexpr, e.rexpr, op, negated, scope, out);
        return;
      }
      op = FLIPPED[op] ?? op;
    }
    const relation = relationOfColumn(columnNode, scope);
    out.push({ column, op: negated ? (NEGATED[op] ?? op) : op, value: valueOf(valueNode, scope), ...(relation ? { relation } : {}) });
  }
}

/**
 * An ordering with an amount added to the stored column (`last_run + interval '5 minutes' <= now()`,
 * `CAST(t.value AS BIGINT) + $3 <= $4`): recorded on the column with the amount as `offset`, the
 * amount reading no column of the row.
 */
function offsetComparison(left: Json, right: Json, op: string, negated: boolean, scope: Scope, out: SqlComparison[]): void {
  if (op !== '<' && op !== '<=' && op !== '>' && op !== '>=') return;
  for (const [sum, other, flip] of [[left, right, false], [right, left, true]] as const) {
    const add = sum?.A_Expr;
    if (!add || add.kind !== 'AEXPR_OP' || add.name?.at(-1)?.String?.sval !== '+' || !add.lexpr || !add.rexpr) continue;
    for (const [columnNode, amountNode] of [[add.lexpr, add.rexpr], [add.rexpr, add.lexpr]]) {
      const column = storedColumn(columnNode, scope);
      const amount = column ? valueOf(amountNode, scope) : undefined;
      if (!column || !amount || amount.columns.length > 0) continue;
      const o = flip ? (FLIPPED[op] ?? op) : op;
      const relation = relationOfColumn(columnNode, scope);
      out.push({ column, op: negated ? (NEGATED[o] ?? o) : o, value: valueOf(other, scope), offset: amount, ...(relation ? { relation } : {}) });
      return;
    }
  }
}

/** Conditions inside subqueries nested in an expression (`tok < (SELECT ... WHERE ...)`). */
function collectNestedConditions(node: Json, scope: Scope, out: SqlComparison[]): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((n) => collectNestedConditions(n, scope, out));
    return;
  }
  if (node.SubLink?.subselect?.SelectStmt) {
    conditionsOfSelect(node.SubLink.subselect.SelectStmt, scope.child(), false, out);
    return;
  }
  for (const key in node) if (typeof node[key] === 'object') collectNestedConditions(node[key], scope, out);
}

/** WHERE, joins and filtered sources of a SELECT, flipped when it sits under NOT EXISTS. */
export function conditionsOfSelect(select: SelectStmt, scope: Scope, negated: boolean, out: SqlComparison[]): void {
  if (select.larg && select.rarg) {
    conditionsOfSelect(select.larg, scope.child(), negated, out);
    conditionsOfSelect(select.rarg, scope.child(), negated, out);
    return;
  }
  const found: SqlComparison[] = [];
  scope.addWith(select.withClause);
  scope.addFrom(select.fromClause, found);
  if (select.whereClause) collectComparisons(select.whereClause, scope, false, found);
  for (const c of found) out.push(negated ? { ...c, op: NEGATED[c.op] ?? c.op } : c);
}

/**
 * The stored column an expression reads, seen through casts and COALESCE(col, default); a
 * reference that resolves to a parameter (CTE output, EXCLUDED) is a value, not a column.
 */
/** The table a compared column reference is stored in, read as `storedColumn` reads the reference. */
function relationOfColumn(node: Json, scope: Scope): string | undefined {
  while (node?.TypeCast || node?.CoalesceExpr) node = node.TypeCast ? node.TypeCast.arg : node.CoalesceExpr.args?.[0];
  const fields = node?.ColumnRef ? columnFields(node.ColumnRef) : undefined;
  return fields ? scope.relationOf(fields) : undefined;
}

function storedColumn(node: Json, scope: Scope): string | undefined {
  while (node) {
    if (node.TypeCast) node = node.TypeCast.arg;
    else if (node.CoalesceExpr) node = node.CoalesceExpr.args?.[0];
    else break;
  }
  if (!node?.ColumnRef) return undefined;
  const fields = columnFields(node.ColumnRef);
  if (!fields) return undefined;
  const resolved = scope.resolveColumn(fields);
  if (!resolved) {
    const qualifier = fields.length >= 2 ? fields[fields.length - 2] : undefined;
    if (qualifier === 'excluded') return undefined;
    return fields.at(-1);
  }
  // A subquery column that is just a stored column (`FROM (SELECT fence_token FROM t) s`).
  if (resolved.params.length === 0 && resolved.functions.length === 0 && resolved.columns.length === 1) {
    return resolved.columns[0].startsWith('excluded.') ? undefined : resolved.columns[0];
  }
  return undefined;
}
