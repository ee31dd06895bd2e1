/** Public shapes of the SQL understanding. Offsets are UTF-16 indices into `SqlAnalysis.text`. */

export type SqlDialect = 'postgres' | 'mysql';

export interface SqlRange {
  start: number;
  end: number;
}

/** What an expression is made of: the parameters, columns and functions it reads. */
export interface SqlValue {
  /** Every `$n` referenced, in order of first appearance. */
  params: number[];
  /** Lower-case column names read (unqualified; an unresolved `EXCLUDED.x` stays `excluded.x`). */
  columns: string[];
  /** Lower-case names of the functions called (`now`, `clock_timestamp`, `extract`, `current_timestamp`). */
  functions: string[];
  /** The expression as written in `SqlAnalysis.text` (best effort). */
  text: string;
}

/** `column op value`, normalized so the stored column is on the left (`$2 > t.tok` becomes `tok < $2`). */
export interface SqlComparison {
  column: string;
  /** Also `IN`, `NOT IN`, `= ANY`, `<> ALL` (value: the list or array). */
  op: '<' | '<=' | '=' | '<>' | '>' | '>=' | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM' | 'IS NULL' | 'IS NOT NULL' | 'IN' | 'NOT IN' | string;
  value: SqlValue;
  /**
   * The table the compared column is stored in, when the statement says: its qualifier names a
   * table (`s.updated_at` with `FROM accounts s`), or the column is unqualified and its query
   * reads one table only. Lower case, without schema.
   */
  relation?: string;
  /**
   * An amount added to the column before it is compared (`last_run + interval '5 minutes' <= now()`):
   * the comparison holds of `column + offset`. It reads no column of the row.
   */
  offset?: SqlValue;
}

export interface SqlAssignment {
  column: string;
  value: SqlValue;
  /**
   * The value is the column's own stored value moved by an amount that reads no column of the row
   * (`n = n + $1`, `n = n - 1`, `n = COALESCE(n, 0) + $2`): a counter's step. Assignments of SET
   * lists only (UPDATE, DO UPDATE SET, MERGE's UPDATE).
   */
  relative?: boolean;
}

export interface SqlStatementEditPoints {
  /** The write's own WHERE condition (UPDATE/DELETE WHERE, or ON CONFLICT DO UPDATE ... WHERE), without the keyword. */
  whereRange?: SqlRange;
  /** End of the last assignment of the SET list (UPDATE SET, or ON CONFLICT DO UPDATE SET). */
  setListEnd?: number;
  /** Where ` WHERE ...` goes when the write has no WHERE: before RETURNING, or at the end of the write. */
  whereInsertAt?: number;
}

export interface SqlStatementInfo {
  kind: 'update' | 'insert' | 'delete' | 'select' | 'merge' | 'other';
  /** INSERT ... ON CONFLICT ... DO UPDATE. */
  upsert: boolean;
  /** Target relation (writes) or first FROM relation (select), lower-case, without schema. */
  table?: string;
  /** Alias of the target relation (`UPDATE t AS s` gives `s`). */
  alias?: string;
  /** Comparisons in the write's own condition, including CTEs, FROM subqueries and EXISTS it uses. */
  conditions: SqlComparison[];
  /**
   * UPDATE SET; INSERT columns <- values; for an upsert the DO UPDATE SET list (EXCLUDED.x resolved
   * to the inserted value), since that is what changes an existing row; MERGE actions.
   */
  assignments: SqlAssignment[];
  /** RETURNING items as written (column names, or expression text). */
  returning: string[];
  /** SELECT list items: the output name, or the column name. */
  selectedColumns: string[];
  /** RETURNING items (writes) or SELECT list items (selects): the output name (as in `returning` / `selectedColumns`) and the value it carries. */
  outputs: SqlAssignment[];
  /** SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE. */
  forUpdate: boolean;
  /** Lower-case names of every function called anywhere in the statement. */
  functionCalls: string[];
  /** Every `$n` referenced anywhere in the statement. */
  params: number[];
  /**
   * Comparisons in `CASE WHEN` conditions of the assigned values (UPDATE SET, DO UPDATE SET, MERGE
   * UPDATE): `SET v = CASE WHEN fence_token < $2 THEN $1 ELSE v END` guards `v` without a WHERE.
   */
  assignmentGuards: SqlComparison[];
  /** INSERT only: the inserted columns and values (for an upsert, `assignments` is the DO UPDATE SET list). */
  insertedValues?: SqlAssignment[];
  /** Upsert only: the conflict target's columns (`ON CONFLICT ("postId", model)`), lower-case: the row it picks. */
  conflictColumns?: string[];
  /** Where the statement is in `SqlAnalysis.text` (without the trailing `;`). */
  range: SqlRange;
  /** Offsets for suggestions; only set for UPDATE, DELETE and upserts. */
  edit: SqlStatementEditPoints;
}

export interface SqlAnalysis {
  /**
   * The SQL as parsed: for 'mysql', with `?`/`:name` as `$n` and backticks as double quotes; for
   * 'postgres', with pg-promise variables (`${name}`, `$<name>`...) as `$n`.
   */
  text: string;
  /** The SQL as given. Equal to `text` unless placeholders were rewritten. */
  source: string;
  dialect: SqlDialect;
  /** Top-level statements in order, then the data-modifying statements nested in their CTEs. */
  statements: SqlStatementInfo[];
  /** Named placeholders (mysql `:name`, pg-promise `${name}`) -> n of the `$n` they became. */
  paramNames: Record<string, number>;
  /** Number of positional `?` placeholders in the source (mysql); 0 for postgres. */
  positionalParams: number;
  /** Offset in `text` -> offset in `source`; undefined inside a rewritten token. */
  toSourceOffset(offset: number): number | undefined;
}

/** One text change; `offset` is in `SqlAnalysis.text`. */
export interface SqlTextEdit {
  offset: number;
  deleteCount: number;
  insert: string;
  /**
   * For positional `?` placeholders (mysql): where each inserted placeholder sits among all `?` of
   * the edited text, 0-based and ascending. Splice the token into the values array at each index,
   * in ascending order, after applying all edits.
   */
  valueIndexes?: number[];
}

export interface FenceEditOptions {
  /** Token column, e.g. `fence_token`. */
  column: string;
  /** Text standing for the current token: `$4`, `?`, or `${lease.fenceToken}` in a tagged template. */
  tokenPlaceholder: string;
  /** Add `<column> < <placeholder>` to the condition. */
  compare: boolean;
  /** Add `<column> = <placeholder>` to the SET list. */
  store: boolean;
  /** Line break for inserted lines (default `\n`); pass `\r\n` for a template in a CRLF file. */
  newline?: string;
}
