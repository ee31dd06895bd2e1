import pg from 'pg';
import { BadInputError, errorMessage } from '../errors.js';
import type { Database, QueryResult } from './database.js';

/** A real PostgreSQL server reached through one `pg` client. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private sessionSetup = '';

  private constructor(
    private client: pg.Client,
    private readonly url: string,
    readonly description: string,
  ) {}

  static async connect(url: string): Promise<PostgresDatabase> {
    const description = `PostgreSQL at ${redact(url)}`;
    const client = await openClient(url, description);
    return new PostgresDatabase(client, url, description);
  }

  async query(text: string, params: unknown[] = []): Promise<QueryResult> {
    const result = await this.client.query(text, params);
    return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? result.rows.length };
  }

  async exec(text: string): Promise<void> {
    await this.client.query(text);
  }

  async restart(): Promise<void> {
    await this.client.end();
    this.client = await openClient(this.url, this.description);
    if (this.sessionSetup) await this.client.query(this.sessionSetup);
  }

  async newSession(): Promise<void> {
    await this.restart();
  }

  async setSessionSetup(sql: string): Promise<void> {
    this.sessionSetup = sql;
    await this.client.query(sql);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

async function openClient(url: string, description: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {}); // a dropped connection surfaces on the next query instead of crashing the process
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new BadInputError(`cannot connect to ${description}: ${errorMessage(error)}`);
  }
  return client;
}

/** The URL without its password, for messages and reports. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}
