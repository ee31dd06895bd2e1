/**
 * The checker's view of a SQL write, taken from the analysis core's SQL understanding
 * (`eslint-plugin-fencelint/core`): which table, and which column holds the key, the value,
 * the fence token and the operationId. The checker never parses SQL itself.
 */
import { BadInputError } from './errors.js';

export type SqlDialect = 'postgres' | 'mysql';
/**
 * What each `$n` is to the fence: the value written, the key of the row, the fence token, an
 * operation id, or `other`: outside the fence (a timestamp, an author), bound to one fixed value
 * of its type in every write.
 */
export type Role = 'value' | 'key' | 'token' | 'operationId' | 'other';
export const ROLES: readonly Role[] = ['value', 'key', 'token', 'operationId', 'other'];

// The subset of the core's contract (notes: core-api, rules/src/core/sql/types.ts) this module reads.
interface CoreValue {
  params: number[];
  columns: string[];
}
interface CoreStatement {
  kind: string;
  upsert: boolean;
  table?: string;
  conditions: { column: string; op: string; value: CoreValue }[];
  assignments: { column: string; value: CoreValue }[];
  /** INSERT column <- value pairs (for an upsert, `assignments` holds the DO UPDATE SET list). */
  insertedValues?: { column: string; value: CoreValue }[];
  params: number[];
  range: { start: number; end: number };
}
interface CoreAnalysis {
  text: string;
  /** The SQL as given (before `?` became `$n`). */
  source: string;
  statements: CoreStatement[];
}
interface SqlCore {
  loadSqlParser(): Promise<void>;
  analyzeSql(text: string, dialect?: SqlDialect): CoreAnalysis | undefined;
}

let core: Promise<SqlCore> | undefined;

async function loadCore(): Promise<SqlCore> {
  core ??= (async () => {
    const specifier = 'eslint-plugin-fencelint/core';
    let mod: Partial<SqlCore>;
    try {
      mod = (await import(specifier)) as Partial<SqlCore>;
    } catch (error) {
      throw new Error(`the SQL understanding (${specifier}) is not available: ${(error as Error).message}`);
    }
    if (typeof mod.analyzeSql !== 'function' || typeof mod.loadSqlParser !== 'function') {
      throw new Error(`${specifier} does not export analyzeSql/loadSqlParser`);
    }
    await mod.loadSqlParser();
    return mod as SqlCore;
  })();
  return core;
}

export interface StatementOverrides {
  table?: string;
  keyColumn?: string;
  valueColumn?: string;
  tokenColumn?: string;
  operationIdColumn?: string;
}

export interface UnderstoodWrite {
  /** The statement with `$n` placeholders, as it will be executed. */
  text: string;
  kind: string;
  upsert: boolean;
  table: string;
  /** The schema the checker created the table in (set by table-setup.ts). */
  schema?: string;
  /**
   * The column that tells rows apart. Undefined when the statement names no key (e.g. it has no
   * WHERE): then it is the table's primary key, or a column the checker adds (table-setup.ts).
   */
  keyColumn?: string;
  /** Undefined for a DELETE: it writes no value. */
  valueColumn?: string;
  tokenColumn?: string;
  /** Further key columns, when several `key` parameters match a composite key (all get the same key). */
  extraKeyColumns: string[];
  /**
   * Other tables the statement writes in its CTEs, such as a fence table updated in a CTE that the
   * main UPDATE joins: each gets the starting row too, or an empty CTE would refuse every write.
   */
  auxTables: { table: string; keyColumn?: string; tokenColumn?: string }[];
  operationIdColumn?: string;
  /** Role of each `$n`, index 0 is `$1`. */
  roles: Role[];
  /** True when the token is compared in the write's own condition. */
  tokenCompared: boolean;
  /** True when the token is stored by the write. */
  tokenStored: boolean;
}

export function parseRoles(spec: string): Role[] {
  const roles = spec.split(',').map((r) => r.trim()).filter((r) => r !== '');
  if (roles.length === 0) throw new BadInputError('--roles is empty; expected e.g. --roles value,key,token');
  // A role may repeat: with `?` placeholders each occurrence is its own parameter (value,token,key,token).
  const seen = new Set<string>();
  for (const role of roles) {
    const canonical = ROLES.find((r) => r.toLowerCase() === role.toLowerCase());
    if (!canonical) {
      throw new BadInputError(`unknown role "${role}" in --roles; each $n is one of: ${ROLES.join(', ')}`);
    }
    seen.add(canonical);
  }
  return roles.map((role) => ROLES.find((r) => r.toLowerCase() === role.toLowerCase())!);
}

/** Understand `sql` as one write whose parameters have `roles`; BadInputError when it cannot be checked. */
export async function understandWrite(
  sql: string,
  roles: Role[],
  dialect: SqlDialect = 'postgres',
  overrides: StatementOverrides = {},
): Promise<UnderstoodWrite> {
  let sqlCore: SqlCore;
  try {
    sqlCore = await loadCore();
  } catch (error) {
    throw new BadInputError((error as Error).message);
  }
  const analysis = sqlCore.analyzeSql(sql, dialect);
  if (!analysis) throw new BadInputError(`cannot parse the statement as ${dialect} SQL: ${oneLine(sql)}`);
  // Data-modifying CTEs are listed too, inside the range of their statement: only top-level ones count.
  const topLevel = analysis.statements.filter(
    (s) => !analysis.statements.some((o) => o !== s && o.range.start <= s.range.start && s.range.end <= o.range.end && o.range.end - o.range.start > s.range.end - s.range.start),
  );
  if (topLevel.length !== 1) throw new BadInputError(`give exactly one statement (found ${topLevel.length})`);
  const stmt = topLevel[0];
  if (!['update', 'insert', 'delete', 'merge'].includes(stmt.kind)) {
    throw new BadInputError(`the statement is not a write (UPDATE, INSERT, DELETE or MERGE): ${oneLine(sql)}`);
  }
  if (dialect === 'mysql' && /\$\d/.test(analysis.source.replace(/'(?:[^']|'')*'/g, "''"))) {
    throw new BadInputError('--dialect mysql reads ? placeholders, but the statement uses $n ones; leave out --dialect mysql for $n');
  }

  const allParams = new Set<number>(analysis.statements.flatMap((s) => s.params));
  const maxParam = Math.max(0, ...allParams);
  if (maxParam !== roles.length) {
    throw new BadInputError(
      `the statement uses ${maxParam} parameter(s) ($1..$${maxParam}) but --roles names ${roles.length} (${roles.join(',')})`,
    );
  }
  const paramsOf = (role: Role): number[] => roles.flatMap((r, i) => (r === role ? [i + 1] : []));
  const nested = analysis.statements.filter((s) => s !== stmt);
  validateRoles(roles, stmt, dialect);
  const reads = (value: CoreValue, role: Role): boolean => paramsOf(role).some((n) => value.params.includes(n));
  const written = [...stmt.assignments, ...(stmt.insertedValues ?? [])];
  const columnFor = (role: Role): string | undefined =>
    written.find((a) => reads(a.value, role))?.column ?? stmt.conditions.find((c) => reads(c.value, role))?.column;
  const table = overrides.table ?? stmt.table;
  if (!table) throw new BadInputError('cannot tell which table the statement writes');
  const keyColumnOf = (s: CoreStatement): string | undefined =>
    s.conditions.find((c) => c.op === '=' && reads(c.value, 'key'))?.column ??
    [...s.assignments, ...(s.insertedValues ?? [])].find((a) => reads(a.value, 'key'))?.column;
  const tokenColumnOf = (s: CoreStatement): string | undefined =>
    [...s.assignments, ...(s.insertedValues ?? [])].find((a) => reads(a.value, 'token'))?.column ??
    s.conditions.find((c) => reads(c.value, 'token'))?.column;
  // Only an UPDATE needs a row to be there; an INSERT in a CTE (an operation journal) makes its own.
  const auxTables = nested
    .filter((s) => s.kind === 'update' && s.table && s.table !== (overrides.table ?? stmt.table))
    .map((s) => ({ table: s.table!, keyColumn: keyColumnOf(s), tokenColumn: tokenColumnOf(s) }));
  // Joined to a fence table's CTE on its key (`WHERE t.resource_key = fence.resource_key`): that is the key.
  const joinedKey = stmt.conditions.find(
    (c) => c.op === '=' && c.value.params.length === 0 && auxTables.some((a) => a.keyColumn && c.value.columns.some((col) => col === a.keyColumn || col.endsWith(`.${a.keyColumn}`))),
  )?.column;
  const keyColumn = overrides.keyColumn ?? keyColumnOf(stmt) ?? joinedKey;
  const extraKeyColumns = [
    ...new Set(
      paramsOf('key')
        .map((n) => stmt.conditions.find((c) => c.op === '=' && c.value.params.includes(n))?.column)
        .filter((c): c is string => c !== undefined && c !== keyColumn),
    ),
  ];
  const valueColumn = overrides.valueColumn ?? written.find((a) => reads(a.value, 'value'))?.column;
  if (!valueColumn && stmt.kind !== 'delete') {
    throw new BadInputError('cannot tell which column receives the value (the "value" parameter is never assigned); pass --value-column');
  }
  const tokenColumn = overrides.tokenColumn ?? columnFor('token');
  const tokenCompared = stmt.conditions.some((c) => reads(c.value, 'token') && c.column === tokenColumn);
  const tokenStored = stmt.assignments.some((a) => reads(a.value, 'token'));
  return {
    text: analysis.text,
    kind: stmt.kind,
    upsert: stmt.upsert,
    table,
    keyColumn,
    valueColumn,
    tokenColumn,
    extraKeyColumns,
    auxTables,
    operationIdColumn: overrides.operationIdColumn ?? columnFor('operationId'),
    roles,
    tokenCompared,
    tokenStored,
  };
}

/**
 * Each role once, except `key` (a composite key: each one matched with = on its own column) and `other`;
 * `value` wherever the statement writes one (not in a DELETE). With `?` placeholders a role
 * repeats as often as its placeholder does.
 */
function validateRoles(roles: Role[], stmt: CoreStatement, dialect: SqlDialect): void {
  if (stmt.kind === 'delete') {
    if (roles.includes('value')) throw new BadInputError('a DELETE writes no value: give the roles key and token (e.g. --roles key,token)');
  } else if (!roles.includes('value')) {
    throw new BadInputError('--roles must name the "value" parameter (and usually "key" and "token")');
  }
  if (!roles.includes('key') && stmt.kind === 'delete') {
    throw new BadInputError('--roles must name the "key" parameter of the DELETE (e.g. --roles key,token)');
  }
  if (dialect === 'mysql') return;
  for (const role of ROLES) {
    const count = roles.filter((r) => r === role).length;
    if (count > 1 && role !== 'key' && role !== 'other') {
      throw new BadInputError(
        `--roles names "${role}" ${count} times; each $n is its own parameter, and only "key" (a composite key) and "other" may repeat`,
      );
    }
  }
  const keys = roles.flatMap((r, i) => (r === 'key' ? [i + 1] : []));
  if (keys.length > 1) {
    const columns = keys.map((n) => stmt.conditions.find((c) => c.op === '=' && c.value.params.includes(n))?.column);
    const bad = keys.find((_, i) => columns[i] === undefined || columns.indexOf(columns[i]) !== i);
    if (bad !== undefined) {
      throw new BadInputError(
        `--roles names several keys, but $${bad} is not matched with = on a column of its own; several keys are for a composite key (WHERE a = $2 AND b = $3)`,
      );
    }
  }
}

function oneLine(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
