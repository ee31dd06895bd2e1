import type { ResourceAdapter, WriteRequest, WriteResult } from './adapter.js';
import type { Database } from './backend/database.js';
import { CheckStoppedError } from './errors.js';
import type { UnderstoodWrite } from './sql-understanding.js';
import { ident, keyColumnOf, tableRef } from './table-setup.js';

/**
 * The user's SQL write as a resource: parameters bound by role, `rowCount > 0` is accepted,
 * `rowCount = 0` is the explicit stale outcome the caller must check.
 */
export class SqlResource implements ResourceAdapter {
  constructor(
    private readonly db: Database,
    private readonly write_: UnderstoodWrite,
    /** Puts every table of the scratch schema back as it was after setup. */
    private readonly restoreTables: () => Promise<void>,
    /** The fixed value of each `other` parameter, by index (0 is `$1`). */
    private readonly fixedValues: ReadonlyMap<number, unknown> = new Map(),
  ) {}

  paramsFor(request: WriteRequest): unknown[] {
    return this.write_.roles.map((role, i) => {
      switch (role) {
        case 'value':
          return request.value;
        case 'key':
          return request.key;
        case 'token':
          return request.fenceToken;
        case 'operationId':
          return request.operationId ?? null;
        case 'other':
          return this.fixedValues.get(i) ?? null;
      }
    });
  }

  /** Set while the exploration runs inside one transaction: a failing write must not abort it. */
  inTransaction = false;

  async write(request: WriteRequest): Promise<WriteResult> {
    let rowCount: number;
    if (this.inTransaction) await this.db.exec('SAVEPOINT fencelint_write');
    try {
      rowCount = (await this.db.query(this.write_.text, this.paramsFor(request))).rowCount;
    } catch (error) {
      if (error instanceof CheckStoppedError) throw error;
      if (this.inTransaction) await this.db.exec('ROLLBACK TO SAVEPOINT fencelint_write');
      return { status: 'error', detail: (error as Error).message };
    }
    if (this.inTransaction) await this.db.exec('RELEASE SAVEPOINT fencelint_write');
    const row = await this.row(request.key);
    // The checker reads the value right after every write; that read is answered from this row.
    this.rowAfterWrite = { key: request.key, row };
    const token = row?.token;
    return { status: rowCount > 0 ? 'accepted' : 'stale', ...(token !== null && token !== undefined ? { highest: Number(token) } : {}) };
  }

  private rowAfterWrite: { key: string; row: Record<string, unknown> | undefined } | undefined;

  async read(key: string): Promise<string | null> {
    const cached = this.rowAfterWrite?.key === key ? this.rowAfterWrite : undefined;
    this.rowAfterWrite = undefined;
    const row = cached ? cached.row : await this.row(key);
    return row ? (row.value === null ? null : String(row.value)) : null;
  }

  /** Forget the row read after the last write (the state moved under it: rollback, restart, reset). */
  forgetCachedRow(): void {
    this.rowAfterWrite = undefined;
  }

  private async row(key: string): Promise<Record<string, unknown> | undefined> {
    const w = this.write_;
    const value = w.valueColumn ? `${ident(w.valueColumn)}::text` : `'(row)'::text`;
    const token = w.tokenColumn ? `, ${ident(w.tokenColumn)}::text AS token` : '';
    const keys = [keyColumnOf(w), ...w.extraKeyColumns].map((c) => `${ident(c)}::text = $1`).join(' AND ');
    const found = await this.db.query(`SELECT ${value} AS value${token} FROM ${tableRef(w)} WHERE ${keys}`, [key]);
    return found.rows[0];
  }

  /** Whether the key's row is there (for a DELETE subject, the observation). */
  async present(key: string): Promise<boolean> {
    this.forgetCachedRow();
    return (await this.row(key)) !== undefined;
  }

  /**
   * The newer holder's own write, for a DELETE subject: its token (and value) stored in the
   * key's row, putting the starting row back first when a delete removed it.
   */
  async put(key: string, value: string, token: number): Promise<void> {
    const w = this.write_;
    this.forgetCachedRow();
    if (!(await this.present(key))) await this.restoreTables();
    const params: unknown[] = [key];
    const sets: string[] = [];
    if (w.tokenColumn) sets.push(`${ident(w.tokenColumn)} = $${params.push(token)}`);
    if (w.valueColumn) sets.push(`${ident(w.valueColumn)} = $${params.push(value)}`);
    if (sets.length === 0) return;
    const keys = [keyColumnOf(w), ...w.extraKeyColumns].map((c) => `${ident(c)}::text = $1`).join(' AND ');
    await this.db.query(`UPDATE ${tableRef(w)} SET ${sets.join(', ')} WHERE ${keys}`, params);
  }

  async restart(): Promise<void> {
    this.forgetCachedRow();
    await this.db.restart();
  }

  async reset(): Promise<void> {
    this.forgetCachedRow();
    await this.restoreTables();
  }
}
