import type { ResourceAdapter, WriteRequest, WriteResult } from './adapter.js';
import type { Database } from './backend/database.js';
import type { UnderstoodWrite } from './sql-understanding.js';
import { ident, seedRow } from './table-setup.js';

/**
 * The user's SQL write as a resource: parameters bound by role, `rowCount > 0` is accepted,
 * `rowCount = 0` is the explicit stale outcome the caller must check.
 */
export class SqlResource implements ResourceAdapter {
  constructor(
    private readonly db: Database,
    private readonly write_: UnderstoodWrite,
    private readonly key: string,
  ) {}

  paramsFor(request: WriteRequest): unknown[] {
    return this.write_.roles.map((role) => {
      switch (role) {
        case 'value':
          return request.value;
        case 'key':
          return request.key;
        case 'token':
          return request.fenceToken;
        case 'operationId':
          return request.operationId ?? null;
      }
    });
  }

  async write(request: WriteRequest): Promise<WriteResult> {
    let rowCount: number;
    try {
      rowCount = (await this.db.query(this.write_.text, this.paramsFor(request))).rowCount;
    } catch (error) {
      return { status: 'error', detail: (error as Error).message };
    }
    return { status: rowCount > 0 ? 'accepted' : 'stale', highest: await this.storedToken(request.key) };
  }

  async read(key: string): Promise<string | null> {
    const row = await this.row(key);
    return row ? (row.value === null ? null : String(row.value)) : null;
  }

  private async storedToken(key: string): Promise<number | undefined> {
    if (!this.write_.tokenColumn) return undefined;
    const row = await this.row(key);
    return row && row.token !== null && row.token !== undefined ? Number(row.token) : undefined;
  }

  private async row(key: string): Promise<Record<string, unknown> | undefined> {
    const w = this.write_;
    const token = w.tokenColumn ? `, ${ident(w.tokenColumn)} AS token` : '';
    const found = await this.db.query(
      `SELECT ${ident(w.valueColumn)}::text AS value${token} FROM ${ident(w.table)} WHERE ${ident(w.keyColumn)} = $1`,
      [key],
    );
    return found.rows[0];
  }

  async restart(): Promise<void> {
    await this.db.restart();
  }

  async reset(): Promise<void> {
    await this.db.exec(`DELETE FROM ${ident(this.write_.table)}`);
    await seedRow(this.db, this.write_, this.key);
  }
}
