import { constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../budget.js';
import { CheckStoppedError } from '../errors.js';
import type { Database, QueryResult } from './database.js';
import { PgliteThread, type WasmModule } from './pglite-thread.js';

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

/**
 * One check's PGlite: a copy of the template in a temporary directory, served by a worker thread
 * (`PgliteThread`). Made in two steps, `scratch()` then `open()`, so that its cleanup can be
 * registered before anything exists: `close()` at any moment (while the template is built, while
 * PGlite boots, during a statement that never returns) stops the thread and removes what was made.
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly description = `PGlite ${pgliteVersion}`;
  private sessionSetup = '';
  private thread: PgliteThread | undefined;
  /** Directories this check made: its data directory, and a template being built. */
  private readonly made = new Set<string>();
  private closed = false;
  private dataDirectory: string | undefined;

  private constructor(private readonly statementTimeoutMs: number) {}

  /** Nothing is created yet; `open()` does. */
  static scratch(options: { statementTimeoutMs?: number } = {}): PgliteDatabase {
    return new PgliteDatabase(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
  }

  /** scratch() and open() in one; on failure nothing is left. */
  static async openScratch(options: { statementTimeoutMs?: number } = {}): Promise<PgliteDatabase> {
    const db = PgliteDatabase.scratch(options);
    try {
      await db.open();
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  get dataDir(): string {
    return this.dataDirectory ?? '(not created yet)';
  }

  async open(): Promise<void> {
    const template = await this.ensureTemplate();
    const dataDir = this.make(() => mkdtempSync(join(tmpdir(), 'fencelint-check-')));
    this.dataDirectory = dataDir;
    // A clone where the file system supports it (btrfs, xfs), a plain copy elsewhere.
    cpSync(template, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
    await this.boot(dataDir);
  }

  async query(text: string, params: unknown[] = []): Promise<QueryResult> {
    return (await this.statement({ op: 'query', text, params })) as QueryResult;
  }

  async exec(text: string): Promise<void> {
    await this.statement({ op: 'exec', text });
  }

  async restart(): Promise<void> {
    await this.running().call({ op: 'close' });
    await this.running().call({ op: 'open', dataDir: this.dataDirectory! });
    if (this.sessionSetup) await this.exec(this.sessionSetup);
  }

  async newSession(): Promise<void> {
    await this.exec('DISCARD ALL');
    if (this.sessionSetup) await this.exec(this.sessionSetup);
  }

  async setSessionSetup(sql: string): Promise<void> {
    this.sessionSetup = sql;
    await this.exec(sql);
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.thread?.close();
    } finally {
      for (const dir of this.made) rmSync(dir, { recursive: true, force: true });
      this.made.clear();
    }
  }

  /** The checker's statements and the user's alike: one running past the statement timeout stops PGlite. */
  private statement(request: { op: 'query'; text: string; params: unknown[] } | { op: 'exec'; text: string }): Promise<unknown> {
    const ms = this.statementTimeoutMs;
    return this.running().call(request, {
      ms,
      error: () => new CheckStoppedError(`a statement ran longer than the statement timeout (${ms / 1000} s)`),
    });
  }

  private running(): PgliteThread {
    if (!this.thread) throw new CheckStoppedError('PGlite is not open');
    return this.thread;
  }

  private async boot(dataDir: string): Promise<void> {
    if (this.closed) throw new CheckStoppedError('PGlite was closed while opening');
    this.thread = new PgliteThread();
    await this.thread.call({ op: 'open', dataDir, wasmModule: await compiledPglite() });
  }

  /** The initialised template, built in this check's thread when it is missing. */
  private async ensureTemplate(): Promise<string> {
    const template = templateDirectory();
    if (existsSync(join(template, 'PG_VERSION'))) return template;
    mkdirSync(join(template, '..'), { recursive: true });
    // Build beside the final place and rename, so a concurrent check never copies a half-made template.
    const building = this.make(() => mkdtempSync(`${template}-building-`));
    await this.boot(building);
    await this.query('SELECT 1');
    await this.thread!.close();
    this.thread = undefined;
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another check won the race
    }
    this.made.delete(building);
    return template;
  }

  private make(create: () => string): string {
    if (this.closed) throw new CheckStoppedError('PGlite was closed while opening');
    const dir = create();
    this.made.add(dir);
    return dir;
  }
}

let compiled: Promise<WasmModule> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process and handed to every thread (a module is
 * shared with a worker, not copied), so a second check in one process does not compile it again.
 */
function compiledPglite(): Promise<WasmModule> {
  compiled ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    // Node's global; the ES2023 lib does not declare it.
    const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;
    return wasm.compile(readFileSync(join(dirname(entry), 'pglite.wasm')));
  })();
  return compiled;
}
