import pg from 'pg';
import { redact } from '../backend/postgres.js';

/**
 * One PostgreSQL session with client-side deadlines. After the connection breaks (a server
 * restart, a terminated backend) the next query opens a new session, as a pooled client would;
 * `generation` tells the sessions apart, which matters for advisory locks.
 */
export class PgSession {
  private client: pg.Client | undefined;
  private broken = false;
  generation = 0;

  constructor(
    readonly url: string,
    private readonly timeoutMs: number,
    private readonly via?: { host: string; port: number },
  ) {}

  get description(): string {
    return `PostgreSQL at ${redact(this.url)}`;
  }

  async query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    const client = await this.connected();
    try {
      return await client.query<R>({ text, values: params, query_timeout: this.timeoutMs } as pg.QueryConfig);
    } catch (error) {
      if (isConnectionError(error)) this.drop();
      throw error;
    }
  }

  private async connected(): Promise<pg.Client> {
    if (this.client && !this.broken) return this.client;
    this.drop();
    const client = new pg.Client({ connectionString: through(this.url, this.via), connectionTimeoutMillis: this.timeoutMs });
    client.on('error', () => {
      this.broken = true; // the next query reconnects
    });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.broken = false;
    this.generation += 1;
    return client;
  }

  private drop(): void {
    const old = this.client;
    this.client = undefined;
    old?.end().catch(() => {});
  }

  async close(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    await old?.end().catch(() => {});
  }
}

/** The same URL with another host and port (pg lets the connection string win over host/port options). */
export function through(url: string, via?: { host: string; port: number }): string {
  if (!via) return url;
  const parsed = new URL(url);
  parsed.hostname = via.host;
  parsed.port = String(via.port);
  return parsed.toString();
}

function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (e.code && /^(08|57P0)/.test(e.code)) return true; // connection exception, admin shutdown / crash
  return /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE|Query read timeout|not queryable/i.test(e.message ?? '');
}
