import type { AuthorityAdapter, Clock, LeaseHandle } from './adapter.js';
import type { Database } from './backend/database.js';

/**
 * The checker's own lock authority: a table in the scratch schema holding, per key, a durable
 * monotonic counter and the live lease. acquire is one `UPDATE ... RETURNING token`, release
 * names the lease it releases, so it is the reference a user's authority is compared with.
 * Tokens start at 41, as in the article.
 */
export const AUTHORITY_TABLE = 'fencelint_authority';
const FIRST_TOKEN = 41;

export class DurableAuthority implements AuthorityAdapter {
  /** Leases granted per owner, to name a second lease of the same owner `lease-A-2`. */
  private readonly granted = new Map<string, number>();
  /** The first token issued after a reset: 41, or 9 and 99 to cross a digit boundary (9 -> 10). */
  private firstToken = FIRST_TOKEN;

  /** The table, qualified with the check's schema so that a statement moving search_path cannot misdirect it. */
  private readonly table: string;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    schema?: string,
  ) {
    this.table = schema ? `${schema}.${AUTHORITY_TABLE}` : AUTHORITY_TABLE;
  }

  async install(): Promise<void> {
    await this.db.exec(
      `CREATE TABLE ${this.table} (resource_key text PRIMARY KEY, token bigint NOT NULL, lease_id text, owner_id text, expires_at bigint)`,
    );
  }

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<LeaseHandle | null> {
    const now = this.clock.now();
    const count = (this.granted.get(ownerId) ?? 0) + 1;
    const leaseId = `lease-${ownerId}${count === 1 ? '' : `-${count}`}`;
    // One statement: the first acquire creates the counter at 41; later ones take the next token
    // only when no lease is live. Check and increment are one atomic step.
    const granted = await this.db.query(
      `INSERT INTO ${this.table} AS a (resource_key, token, lease_id, owner_id, expires_at) VALUES ($1, $6, $2, $3, $4)
       ON CONFLICT (resource_key) DO UPDATE SET token = a.token + 1, lease_id = $2, owner_id = $3, expires_at = $4
        WHERE a.lease_id IS NULL OR a.expires_at <= $5
       RETURNING token`,
      [key, leaseId, ownerId, now + ttlMs, now, this.firstToken],
    );
    if (granted.rows.length === 0) return null;
    this.granted.set(ownerId, count);
    return { key, ownerId, leaseId, fenceToken: Number(granted.rows[0].token) };
  }

  async release(handle: LeaseHandle): Promise<boolean> {
    const released = await this.db.query(
      `UPDATE ${this.table} SET lease_id = NULL, owner_id = NULL, expires_at = NULL WHERE resource_key = $1 AND lease_id = $2`,
      [handle.key, handle.leaseId],
    );
    return released.rowCount > 0;
  }

  async holder(key: string): Promise<{ leaseId: string; fenceToken: number } | null> {
    const live = await this.db.query(
      `SELECT lease_id, token FROM ${this.table} WHERE resource_key = $1 AND lease_id IS NOT NULL AND expires_at > $2`,
      [key, this.clock.now()],
    );
    const row = live.rows[0];
    return row ? { leaseId: String(row.lease_id), fenceToken: Number(row.token) } : null;
  }

  /** Reopen the database that holds the table: the counter is durable, so it survives. */
  async restart(): Promise<void> {
    await this.db.restart();
  }

  /** The in-process part of the state (lease naming), for backtracking with savepoints. */
  snapshot(): Map<string, number> {
    return new Map(this.granted);
  }

  restore(granted: Map<string, number>): void {
    this.granted.clear();
    for (const [k, v] of granted) this.granted.set(k, v);
  }

  /** From the next reset on, issue tokens from `first`; reset() goes back to 41. */
  startAt(first: number): void {
    this.firstToken = first;
  }

  async reset(): Promise<void> {
    this.granted.clear();
    this.firstToken = FIRST_TOKEN;
    await this.db.exec(`DELETE FROM ${this.table}`);
  }
}
