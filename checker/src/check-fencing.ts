import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdapterContext, AuthorityAdapter, CheckerModule, ResourceAdapter } from './adapter.js';
import type { Database } from './backend/database.js';
import { PgliteDatabase } from './backend/pglite.js';
import { PostgresDatabase } from './backend/postgres.js';
import { ManualClock } from './clock.js';
import { AUTHORITY_TABLE, DurableAuthority } from './durable-authority.js';
import { BadInputError, errorMessage } from './errors.js';
import { explore, type ExploreProgress, type ExploreResult } from './explore.js';
import { loadCheckerModule } from './module-loader.js';
import { counterExampleOf, renderText, verdictOf, type CheckReport } from './report.js';
import { runScenario, SCENARIOS, type ScenarioResult } from './scenarios.js';
import { ScratchSchema } from './scratch-schema.js';
import { SqlResource } from './sql-resource.js';
import { parseRoles, understandWrite, type Role, type SqlDialect, type UnderstoodWrite } from './sql-understanding.js';
import type { Subject } from './subject.js';
import { captureInitialState, createTable, findMigrations, ident, seedRow, type TableSource } from './table-setup.js';
import { RESOURCE_KEY } from './world.js';

export interface CheckOptions {
  /** The SQL write to check (`$n` placeholders, or `?` with dialect 'mysql'). */
  sql?: string;
  /** Role of each parameter in order: `['value', 'key', 'token']` or `'value,key,token'`. */
  roles?: Role[] | string;
  dialect?: SqlDialect;
  tokenColumn?: string;
  keyColumn?: string;
  valueColumn?: string;
  /** DDL creating the table (run inside the scratch schema). */
  schemaSql?: string;
  /** A file holding that DDL. */
  schemaFile?: string;
  /** Look for plain SQL migrations (migrations/, db/migrations/, ...) under this folder (default: cwd); false: do not. */
  migrationsRoot?: string | false;
  /** A module path (or the module itself) exporting createResource / createAuthority. */
  module?: string | CheckerModule;
  /** A real PostgreSQL server; PGlite when absent. */
  databaseUrl?: string;
  /** Worker counts to explore (default [2, 3]); [] skips the exploration. */
  exploreWorkers?: number[];
  maxExpires?: number;
  maxRestarts?: number;
  onProgress?(progress: ExploreProgress): void;
  cwd?: string;
}

/**
 * Replay the stale-write scenarios and the bounded exploration against the subject.
 * Resolves with the report (verdict 'holds' or 'broken'); rejects with BadInputError when the
 * input cannot be checked. Whatever happens, the scratch schema and PGlite's copy are removed.
 */
export async function checkFencing(options: CheckOptions): Promise<CheckReport> {
  const started = performance.now();
  if ((options.sql === undefined) === (options.module === undefined)) {
    throw new BadInputError('give either a SQL statement (--sql) or a module (--module)');
  }
  const schemaSql = options.schemaFile !== undefined ? readSchemaFile(options.schemaFile) : options.schemaSql;
  // Understand the statement before opening anything: bad SQL costs no database start.
  const write =
    options.sql !== undefined
      ? await understandWrite(
          options.sql,
          typeof options.roles === 'string' ? parseRoles(options.roles) : (options.roles ?? requireRoles()),
          options.dialect,
          { tokenColumn: options.tokenColumn, keyColumn: options.keyColumn, valueColumn: options.valueColumn },
        )
      : undefined;
  const userModule =
    typeof options.module === 'string' ? await loadCheckerModule(options.module, options.cwd) : options.module;

  const db: Database = options.databaseUrl ? await PostgresDatabase.connect(options.databaseUrl) : await PgliteDatabase.openScratch();
  const workDir = mkdtempSync(join(tmpdir(), 'fencelint-work-'));
  let scratch: ScratchSchema | undefined;
  const disposers: (() => Promise<void>)[] = [];
  try {
    scratch = await ScratchSchema.create(db);
    const clock = new ManualClock();
    const context: AdapterContext = { clock, key: RESOURCE_KEY, workDir };
    let subject: Subject;
    let tableSource: TableSource | undefined;
    if (write) {
      const migrations =
        schemaSql === undefined && options.migrationsRoot !== false ? findMigrations(options.migrationsRoot ?? options.cwd ?? process.cwd()) : undefined;
      ({ subject, tableSource } = await sqlSubject(db, scratch, write, clock, schemaSql, migrations));
    } else {
      subject = await moduleSubject(db, userModule!, { ...context, clock }, disposers);
    }
    const scenarios: ScenarioResult[] = [];
    for (const scenario of SCENARIOS) scenarios.push(await guard(() => runScenario(scenario, subject)));
    const exploration: ExploreResult[] = [];
    for (const workers of options.exploreWorkers ?? [2, 3]) {
      exploration.push(
        await guard(() =>
          explore(subject, { workers, maxExpires: options.maxExpires, maxRestarts: options.maxRestarts, onProgress: options.onProgress }),
        ),
      );
    }
    const counterExample = counterExampleOf(scenarios, exploration);
    return {
      verdict: verdictOf(scenarios, exploration),
      subject: write
        ? {
            kind: 'sql',
            text: write.text,
            roles: write.roles,
            table: write.table,
            tableSource,
            ...(write.tokenColumn ? { tokenColumn: write.tokenColumn } : {}),
            authority: subject.authorityDescription,
          }
        : {
            kind: 'module',
            text: typeof options.module === 'string' ? options.module : '(module object)',
            authority: subject.authorityDescription,
          },
      backend: db.description,
      scenarios,
      exploration,
      ...(counterExample ? { counterExample } : {}),
      elapsedMs: performance.now() - started,
    };
  } finally {
    for (const dispose of disposers.reverse()) await dispose().catch(() => {});
    try {
      await scratch?.drop();
    } finally {
      await db.close().catch(() => {});
      rmSync(workDir, { recursive: true, force: true });
    }
  }
}

/** Like checkFencing, but rejects with the timeline in the message when the fence is broken. */
export async function assertFenced(options: CheckOptions): Promise<CheckReport> {
  const report = await checkFencing(options);
  if (report.verdict !== 'holds') {
    throw new FenceBrokenError(renderText(report), report);
  }
  return report;
}

export class FenceBrokenError extends Error {
  override readonly name = 'FenceBrokenError';
  constructor(
    message: string,
    readonly report: CheckReport,
  ) {
    super(message);
  }
}

function requireRoles(): never {
  throw new BadInputError('--roles is required with --sql, e.g. --roles value,key,token');
}

function readSchemaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read --schema file: ${errorMessage(error)}`);
  }
}

/** An error thrown by the subject mid-check (not a verdict) is bad input: the check cannot go on. */
async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`the check stopped: ${errorMessage(error)}`);
  }
}

async function sqlSubject(
  db: Database,
  scratch: ScratchSchema,
  write: UnderstoodWrite,
  clock: ManualClock,
  schemaSql: string | undefined,
  migrations: { dir: string; sql: string } | undefined,
): Promise<{ subject: Subject; tableSource: TableSource }> {
  const tableSource = await createTable(scratch, write, schemaSql, migrations);
  await seedRow(db, write, RESOURCE_KEY);
  await scratch.assertStaysInside(write.text, sampleParams(write));
  const restoreTables = await captureInitialState(scratch, []);
  const authority = new DurableAuthority(db, clock);
  await authority.install();
  const resource = new SqlResource(db, write, restoreTables);
  const dump = await dumpQuery(db, scratch.name);
  return {
    tableSource,
    subject: {
      description: write.text,
      clock,
      resource,
      authority,
      authorityDescription: 'built-in durable authority (table fencelint_authority, UPDATE ... RETURNING token)',
      operationIds: write.roles.includes('operationId'),
      // The statement runs on its own: it reads neither the lease table nor the checker's clock.
      writesIndependentOfLeases: true,
      async restart(mode) {
        // Inside the exploration's transaction every step counts as committed, and PostgreSQL keeps
        // committed state across a restart (scenario 3 restarts it for real): nothing to do then.
        resource.forgetCachedRow();
        if (resource.inTransaction) return;
        await (mode === 'process' ? db.restart() : db.newSession());
      },
      restartIsNoopInExploration: true,
      async reset() {
        await resource.reset();
        await authority.reset();
      },
      checkpoints: {
        async begin() {
          await db.exec('BEGIN');
          resource.inTransaction = true;
        },
        async save(depth) {
          const name = `fencelint_depth_${depth}`;
          await db.exec(`SAVEPOINT ${name}`);
          const granted = authority.snapshot();
          return async () => {
            await db.exec(`ROLLBACK TO SAVEPOINT ${name}`);
            resource.forgetCachedRow();
            authority.restore(granted);
          };
        },
        async end() {
          resource.inTransaction = false;
          await db.exec('ROLLBACK');
        },
      },
      async digest() {
        return String((await db.query(dump, [clock.now()])).rows[0]?.state ?? '');
      },
    },
  };
}

/**
 * One query returning the SQL subject's whole state as text: every table of the scratch schema,
 * and the authority with an expired lease shown as no lease and expiry relative to now (an
 * expired lease and a released one behave alike, so equal states compare equal). $1 is now.
 */
async function dumpQuery(db: Database, schema: string): Promise<string> {
  const tables = await db.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY 1`,
    [schema],
  );
  const parts = tables.rows
    .map((r) => String(r.relname))
    .filter((t) => t !== AUTHORITY_TABLE)
    .map((t) => `coalesce((SELECT json_agg(x ORDER BY x::text)::text FROM ${ident(t)} x), '[]')`);
  parts.push(
    `coalesce((SELECT json_agg(json_build_array(resource_key, token, CASE WHEN expires_at > $1::bigint THEN lease_id || '@' || (expires_at - $1::bigint) END) ORDER BY resource_key)::text FROM ${AUTHORITY_TABLE}), '[]')`,
  );
  return `SELECT ${parts.join(` || '|' || `)} AS state`;
}

function sampleParams(write: UnderstoodWrite): unknown[] {
  return write.roles.map((role) => (role === 'token' ? 1 : role === 'key' ? RESOURCE_KEY : `sample-${role}`));
}

async function moduleSubject(
  db: Database,
  mod: CheckerModule,
  context: AdapterContext & { clock: ManualClock },
  disposers: (() => Promise<void>)[],
): Promise<Subject> {
  const create = async <T>(what: string, factory: () => T | Promise<T>): Promise<T> => {
    try {
      return await factory();
    } catch (error) {
      throw new BadInputError(`the module's ${what} threw: ${errorMessage(error)}`);
    }
  };
  let resource: ResourceAdapter = await create('createResource', () => mod.createResource(context));
  disposers.push(async () => resource.close?.());
  let authority: AuthorityAdapter;
  let authorityDescription: string;
  let builtIn: DurableAuthority | undefined;
  if (mod.createAuthority) {
    authority = await create('createAuthority', () => mod.createAuthority!(context));
    disposers.push(async () => authority.close?.());
    authorityDescription = "the module's authority";
  } else {
    builtIn = new DurableAuthority(db, context.clock);
    await builtIn.install();
    authority = builtIn;
    authorityDescription = 'built-in durable authority (table fencelint_authority, UPDATE ... RETURNING token)';
  }
  const subject: Subject = {
    description: 'module',
    clock: context.clock,
    get resource() {
      return resource;
    },
    get authority() {
      return authority;
    },
    authorityDescription,
    operationIds: mod.operationIds === true,
    writesIndependentOfLeases: mod.resourceIndependentOfAuthority === true,
    async restart(mode) {
      await resource.restart?.();
      if (builtIn) await (mode === 'process' ? db.restart() : db.newSession());
      else await authority.restart();
    },
    async reset() {
      if (resource.reset) await resource.reset();
      else {
        await resource.close?.();
        resource = await create('createResource', () => mod.createResource(context));
      }
      if (builtIn) await builtIn.reset();
      else if (authority.reset) await authority.reset();
      else {
        await authority.close?.();
        authority = await create('createAuthority', () => mod.createAuthority!(context));
      }
    },
  };
  return subject;
}
