import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { redact } from '../backend/postgres.js';
import { PgliteDatabase } from '../backend/pglite.js';
import { withDeadline } from './deadline.js';

export type FenceMode = 'fenced' | 'unfenced';

export interface WriteOutcome {
  accepted: boolean;
  /** The token the accepted write overwrote, read by the same statement; a stale write overwrote a token >= its own. */
  overwrittenToken: number | null;
}

const TABLE: Record<FenceMode, string> = { fenced: 'fenced_resource', unfenced: 'unfenced_resource' };

// The two statements the holders write through. Both store the token and report the one they
// overwrote (`overwritten_token = fence_token` assigns the old row's value), so a stale write is
// seen by what it replaced, not by the condition under test. Only the first compares.
const WRITE: Record<FenceMode, string> = {
  fenced:
    'UPDATE fenced_resource SET value = $1, fence_token = $2, overwritten_token = fence_token WHERE resource_key = $3 AND fence_token < $2 RETURNING overwritten_token',
  unfenced:
    'UPDATE unfenced_resource SET value = $1, fence_token = $2, overwritten_token = fence_token WHERE resource_key = $3 RETURNING overwritten_token',
};

interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * The protected resource of the conformance runs: two PostgreSQL tables, one written through a
 * fenced statement and one through the same statement without the comparison. On a server it
 * lives in a database created for the run and dropped afterwards (never the user's database);
 * without one, in an embedded PGlite.
 */
export class ProviderResource {
  private constructor(
    private readonly db: Queryable,
    readonly description: string,
    /** The scratch database's URL on a server (the PostgreSQL providers keep their table there too); undefined for PGlite. */
    readonly serverUrl: string | undefined,
    private readonly closeAll: () => Promise<void>,
    private readonly timeoutMs: number,
  ) {}

  static async open(options: { databaseUrl?: string; poolSize?: number; timeoutMs: number }): Promise<ProviderResource> {
    let resource: ProviderResource;
    if (options.databaseUrl) {
      const scratch = await ScratchDatabase.create(options.databaseUrl, options.timeoutMs);
      const pool = new pg.Pool({ connectionString: scratch.url, max: options.poolSize ?? 10, connectionTimeoutMillis: options.timeoutMs });
      pool.on('error', () => {}); // an idle client lost in a server restart is replaced on the next query
      resource = new ProviderResource(pool, `PostgreSQL at ${redact(options.databaseUrl)} (scratch database ${scratch.name})`, scratch.url, async () => {
        await pool.end().catch(() => {});
        await scratch.drop();
      }, options.timeoutMs);
    } else {
      const db = await PgliteDatabase.openScratch();
      resource = new ProviderResource(db, `${db.description} (embedded)`, undefined, () => db.close(), options.timeoutMs);
    }
    for (const table of Object.values(TABLE)) {
      await resource.db.query(
        `CREATE TABLE ${table} (resource_key text PRIMARY KEY, value bigint NOT NULL, fence_token bigint NOT NULL, overwritten_token bigint)`,
      );
    }
    return resource;
  }

  /** Both rows back to value 0, token 0. */
  async seed(key: string): Promise<void> {
    for (const table of Object.values(TABLE)) {
      await this.run(
        `INSERT INTO ${table} (resource_key, value, fence_token) VALUES ($1, 0, 0) ON CONFLICT (resource_key) DO UPDATE SET value = 0, fence_token = 0, overwritten_token = NULL`,
        [key],
      );
    }
  }

  async write(mode: FenceMode, key: string, value: number, token: number): Promise<WriteOutcome> {
    const result = await this.run(WRITE[mode], [value, token, key]);
    const row = result.rows[0];
    return row ? { accepted: true, overwrittenToken: row.overwritten_token === null ? null : Number(row.overwritten_token) } : { accepted: false, overwrittenToken: null };
  }

  async read(mode: FenceMode, key: string): Promise<{ value: number; token: number }> {
    const result = await this.run(`SELECT value, fence_token FROM ${TABLE[mode]} WHERE resource_key = $1`, [key]);
    const row = result.rows[0];
    return { value: Number(row?.value ?? 0), token: Number(row?.fence_token ?? 0) };
  }

  close(): Promise<void> {
    return this.closeAll();
  }

  private run(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
    return withDeadline(this.db.query(text, params), this.timeoutMs + 1000, 'the PostgreSQL resource');
  }
}

/** A database created for one run on the user's server and dropped at the end; the user's own databases are never opened for writing. */
export class ScratchDatabase {
  private constructor(
    private readonly adminUrl: string,
    readonly name: string,
    readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  static async create(serverUrl: string, timeoutMs: number): Promise<ScratchDatabase> {
    const name = `fencelint_providers_${randomBytes(6).toString('hex')}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`, timeoutMs);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return new ScratchDatabase(serverUrl, name, url.toString(), timeoutMs);
  }

  async drop(): Promise<void> {
    await adminQuery(this.adminUrl, `DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`, this.timeoutMs).catch(() => {});
  }
}

async function adminQuery(url: string, sql: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs + 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}
