import { randomUUID } from 'node:crypto';
import { withDeadline } from './deadline.js';
import { libraryVersion } from './library-version.js';
import { PgSession } from './pg-session.js';
import type { LockClient, LockProvider, ProviderLease, ProviderSpec } from './provider.js';

/**
 * The authority the docs recommend: a row per resource key holding a durable counter and the
 * live lease. Taking the lease and the next token is one statement (the docs'
 * `UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token`, with
 * the lease's own columns), so two holders never get the same token and a committed token
 * survives any restart. Time is the server's clock.
 */
export class PostgresCounterProvider implements LockProvider {
  readonly library = libraryVersion('pg');
  readonly tokenSource = 'UPDATE fence_authority SET token = token + 1 ... RETURNING token';
  readonly ttlMs = 400;
  readonly expiryLatencyMs = 50;
  readonly renewsItself = false;
  readonly endpoint: { host: string; port: number };
  private admin: PgSession | undefined;

  constructor(readonly spec: ProviderSpec) {
    const url = new URL(spec.address);
    this.endpoint = { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
  }

  get label(): string {
    return this.spec.label ?? this.spec.id;
  }

  session(via?: { host: string; port: number }): PgSession {
    return new PgSession(this.spec.address, this.spec.operationTimeoutMs, via);
  }

  /** Creates the table; run once in the scratch database before the first client. */
  async install(): Promise<void> {
    await this.adminSession().query(
      'CREATE TABLE IF NOT EXISTS fence_authority (resource_key text PRIMARY KEY, token bigint NOT NULL DEFAULT 0, lease_id text, expires_at timestamptz)',
    );
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    const session = this.session(via);
    await this.timed(session.query('SELECT 1'), 'connect');
    return new CounterClient(this, session);
  }

  async revoke(lease: ProviderLease): Promise<void> {
    await this.timed(
      this.adminSession().query('UPDATE fence_authority SET expires_at = clock_timestamp() WHERE resource_key = $1 AND lease_id = $2', [
        lease.key,
        lease.leaseId,
      ]),
      'end the lease',
    );
  }

  async describeServer(): Promise<string> {
    const result = await this.timed(this.adminSession().query<{ v: string }>("SELECT current_setting('server_version') AS v"), 'version');
    return `PostgreSQL ${result.rows[0].v}`;
  }

  async close(): Promise<void> {
    await this.admin?.close();
    this.admin = undefined;
  }

  timed<T>(work: Promise<T>, what: string): Promise<T> {
    return withDeadline(work, this.spec.operationTimeoutMs + 500, `${this.label}: ${what}`);
  }

  private adminSession(): PgSession {
    this.admin ??= this.session();
    return this.admin;
  }
}

class CounterClient implements LockClient {
  constructor(
    private readonly provider: PostgresCounterProvider,
    private readonly session: PgSession,
  ) {}

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    const leaseId = `${ownerId}:${randomUUID()}`;
    await this.provider.timed(
      this.session.query('INSERT INTO fence_authority (resource_key) VALUES ($1) ON CONFLICT DO NOTHING', [key]),
      'create the counter',
    );
    const granted = await this.provider.timed(
      this.session.query<{ token: string }>(
        `UPDATE fence_authority SET token = token + 1, lease_id = $2, expires_at = clock_timestamp() + make_interval(secs => $3::float8 / 1000)
          WHERE resource_key = $1 AND (lease_id IS NULL OR expires_at <= clock_timestamp())
          RETURNING token`,
        [key, leaseId, ttlMs],
      ),
      'UPDATE ... token + 1 RETURNING token',
    );
    if (granted.rows.length === 0) return null;
    return { key, ownerId, leaseId, fenceToken: Number(granted.rows[0].token), ttlMs };
  }

  async extend(lease: ProviderLease): Promise<boolean> {
    const extended = await this.provider.timed(
      this.session.query(
        `UPDATE fence_authority SET expires_at = clock_timestamp() + make_interval(secs => $3::float8 / 1000)
          WHERE resource_key = $1 AND lease_id = $2 AND expires_at > clock_timestamp()`,
        [lease.key, lease.leaseId, lease.ttlMs],
      ),
      'extend',
    );
    return (extended.rowCount ?? 0) > 0;
  }

  async release(lease: ProviderLease): Promise<boolean> {
    const released = await this.provider.timed(
      this.session.query('UPDATE fence_authority SET lease_id = NULL, expires_at = NULL WHERE resource_key = $1 AND lease_id = $2', [
        lease.key,
        lease.leaseId,
      ]),
      'release by lease id',
    );
    return (released.rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}
