import pg from 'pg';
import { BadInputError, CheckStoppedError, errorMessage, sessionFailure } from '../errors.js';
import type { Database, QueryResult } from './database.js';

export interface SessionTimeouts {
  /** statement_timeout of the session. */
  statementMs: number;
  /** lock_timeout of the session. */
  lockMs: number;
}

/** Where and as whom to connect; the password never appears in a message. */
export interface ServerTarget {
  /** The connection URL. */
  url: string;
  /** host:port/database, for messages and reports. */
  description: string;
}

/**
 * A real PostgreSQL server reached through one `pg` client. Every session is opened with
 * statement_timeout and lock_timeout as startup parameters; besides, no query is awaited much
 * longer than the statement timeout, so a statement that turns the timeout off for the
 * statements after it (set_config('statement_timeout', '0', false)) still cannot hang a check.
 */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private sessionSetup = '';

  private constructor(
    private client: pg.Client,
    private readonly target: ServerTarget,
    readonly description: string,
    private readonly timeouts: SessionTimeouts,
  ) {}

  static async connect(target: ServerTarget, timeouts: SessionTimeouts, description = `PostgreSQL at ${target.description}`): Promise<PostgresDatabase> {
    const client = await openClient(target, timeouts);
    return new PostgresDatabase(client, target, description, timeouts);
  }

  async query(text: string, params: unknown[] = []): Promise<QueryResult> {
    const result = await this.bounded(this.client.query(text, params));
    return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? result.rows.length };
  }

  async exec(text: string): Promise<void> {
    await this.bounded(this.client.query(text));
  }

  async restart(): Promise<void> {
    await this.client.end().catch(() => {});
    this.client = await openClient(this.target, this.timeouts);
    if (this.sessionSetup) await this.exec(this.sessionSetup);
  }

  async newSession(): Promise<void> {
    await this.restart();
  }

  async setSessionSetup(sql: string): Promise<void> {
    this.sessionSetup = sql;
    await this.exec(sql);
  }

  async close(): Promise<void> {
    await this.client.end();
  }

  /** Session failures (timeouts, a terminated backend) end the check; other errors are the statement's own. */
  private async bounded<T>(work: Promise<T>): Promise<T> {
    // The server cancels at statement_timeout; this only catches a session that turned it off.
    const grace = this.timeouts.statementMs + 2_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CheckStoppedError(`a statement ran longer than the statement timeout (${this.timeouts.statementMs / 1000} s)`)),
        grace,
      );
    });
    work.catch(() => {});
    try {
      return await Promise.race([work, late]);
    } catch (error) {
      if (error instanceof CheckStoppedError) throw error;
      const failure = sessionFailure(error, this.timeouts);
      if (failure) throw new CheckStoppedError(failure);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

export async function openClient(target: ServerTarget, timeouts: SessionTimeouts): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: target.url,
    connectionTimeoutMillis: 5000,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: Math.max(60_000, timeouts.statementMs * 6),
    application_name: 'fencelint-check',
  });
  client.on('error', () => {}); // a dropped connection surfaces on the next query instead of crashing the process
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new BadInputError(`cannot connect to PostgreSQL at ${target.description}: ${errorMessage(error)}`);
  }
  return client;
}

/**
 * Checks that `url` is a PostgreSQL URL before anything connects (no name lookup for a string
 * that is not a URL at all) and returns it with its description.
 */
export function parseServerUrl(url: string): ServerTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadInputError(`--database-url is not a URL: "${url.length > 80 ? `${url.slice(0, 77)}...` : url}"; expected postgres://user:password@host:port/database`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new BadInputError(`--database-url must start with postgres:// or postgresql://, got "${parsed.protocol}//..."`);
  }
  if (!parsed.hostname && !parsed.searchParams.get('host')) {
    throw new BadInputError('--database-url names no host; expected postgres://user:password@host:port/database');
  }
  return { url, description: redact(url) };
}

/** The URL without its user and password, for messages and reports. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host || parsed.searchParams.get('host') || ''}${parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** The same server and credentials, another database (and optionally other credentials). */
export function withDatabase(url: string, database: string, credentials?: { user: string; password: string }): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  if (credentials) {
    parsed.username = encodeURIComponent(credentials.user);
    parsed.password = encodeURIComponent(credentials.password);
  }
  // A database named in the query string would win over the path.
  parsed.searchParams.delete('dbname');
  parsed.searchParams.delete('database');
  if (credentials) parsed.searchParams.delete('user');
  return parsed.toString();
}
