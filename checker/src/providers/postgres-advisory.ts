import { withDeadline } from './deadline.js';
import { libraryVersion } from './library-version.js';
import { PgSession } from './pg-session.js';
import type { LockClient, LockProvider, ProviderLease, ProviderSpec } from './provider.js';

/**
 * PostgreSQL session advisory locks (`pg_try_advisory_lock`). They have no TTL and no token: the
 * lock lives exactly as long as the session, ends silently when the connection does, and a
 * holder that lost it has nothing the resource could compare. Reported as such.
 */
export class PostgresAdvisoryProvider implements LockProvider {
  readonly library = libraryVersion('pg');
  readonly tokenSource = null;
  readonly ttlMs = 400;
  readonly expiryLatencyMs = 0;
  readonly renewsItself = true; // the session holds it; nothing to renew
  readonly endpoint: { host: string; port: number };
  private admin: PgSession | undefined;

  constructor(readonly spec: ProviderSpec) {
    const url = new URL(spec.address);
    this.endpoint = { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
  }

  get label(): string {
    return this.spec.label ?? this.spec.id;
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    const session = new PgSession(this.spec.address, this.spec.operationTimeoutMs, via);
    await this.timed(session.query('SELECT 1'), 'connect');
    return new AdvisoryClient(this, session);
  }

  /** An operator ends the holder's session: the only way to take an advisory lock away. */
  async revoke(lease: ProviderLease): Promise<void> {
    const pid = Number(lease.leaseId.split(':backend-')[1]);
    await this.timed(this.adminSession().query('SELECT pg_terminate_backend($1)', [pid]), 'pg_terminate_backend');
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
    this.admin ??= new PgSession(this.spec.address, this.spec.operationTimeoutMs);
    return this.admin;
  }
}

class AdvisoryClient implements LockClient {
  constructor(
    private readonly provider: PostgresAdvisoryProvider,
    private readonly session: PgSession,
  ) {}

  async acquire(key: string, _ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    const result = await this.provider.timed(
      this.session.query<{ locked: boolean; pid: number }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked, pg_backend_pid() AS pid',
        [key],
      ),
      'pg_try_advisory_lock',
    );
    const row = result.rows[0];
    if (!row.locked) return null;
    return { key, ownerId, leaseId: `${ownerId}:backend-${row.pid}`, fenceToken: null, ttlMs: Number.POSITIVE_INFINITY };
  }

  async release(lease: ProviderLease): Promise<boolean> {
    // In a new session (the old one ended) this unlocks nothing and PostgreSQL says false.
    const result = await this.provider.timed(
      this.session.query<{ unlocked: boolean }>('SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS unlocked', [lease.key]),
      'pg_advisory_unlock',
    );
    return result.rows[0].unlocked;
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}
