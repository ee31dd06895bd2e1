import { PGlite } from '@electric-sql/pglite';
import { constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Database, QueryResult } from './database.js';

const pgliteVersion = ((): string => {
  // The package does not export its package.json; walk up from its entry point.
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
})();

/**
 * Initialising a fresh PGlite cluster costs seconds; opening an initialised data directory
 * costs a fraction of that. So one initialised directory is kept per PGlite version as a
 * template and copied for every check.
 */
/** Kept in $FENCELINT_CHECKER_CACHE, else in the system's temporary directory. */
export function templateDirectory(): string {
  const cache = process.env.FENCELINT_CHECKER_CACHE || join(tmpdir(), 'fencelint-checker');
  return join(cache, `pglite-${pgliteVersion}-template`);
}

export async function ensureTemplate(): Promise<string> {
  const template = templateDirectory();
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  mkdirSync(join(template, '..'), { recursive: true });
  // Build beside the final place and rename, so a concurrent check never copies a half-made template.
  const building = mkdtempSync(`${template}-building-`);
  const db = await PGlite.create(building);
  await db.query('SELECT 1');
  await db.close();
  try {
    renameSync(building, template);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another check won the race
  }
  return template;
}

export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly description = `PGlite ${pgliteVersion}`;
  private sessionSetup = '';

  private constructor(
    private db: PGlite,
    readonly dataDir: string,
    private readonly ownsDir: boolean,
  ) {}

  /** Open a copy of the template in a new temporary directory (removed by close()). */
  static async openScratch(): Promise<PgliteDatabase> {
    const template = await ensureTemplate();
    const dataDir = mkdtempSync(join(tmpdir(), 'fencelint-check-'));
    // A clone where the file system supports it (btrfs, xfs), a plain copy elsewhere.
    cpSync(template, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
    try {
      return new PgliteDatabase(await PGlite.create(dataDir), dataDir, true);
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  async query(text: string, params: unknown[] = []): Promise<QueryResult> {
    const result = await this.db.query<Record<string, unknown>>(text, params);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  async exec(text: string): Promise<void> {
    await this.db.exec(text);
  }

  async restart(): Promise<void> {
    await this.db.close();
    this.db = await PGlite.create(this.dataDir);
    if (this.sessionSetup) await this.db.exec(this.sessionSetup);
  }

  async newSession(): Promise<void> {
    await this.db.exec('DISCARD ALL');
    if (this.sessionSetup) await this.db.exec(this.sessionSetup);
  }

  async setSessionSetup(sql: string): Promise<void> {
    this.sessionSetup = sql;
    await this.db.exec(sql);
  }

  async close(): Promise<void> {
    try {
      if (!this.db.closed) await this.db.close();
    } finally {
      if (this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}
