import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdapterContext, AuthorityAdapter, CheckerModule, ResourceAdapter } from './adapter.js';
import type { Database } from './backend/database.js';
import { PgliteDatabase } from './backend/pglite.js';
import { parseServerUrl, type SessionTimeouts } from './backend/postgres.js';
import { ScratchDatabase } from './backend/scratch-database.js';
import { Budget, DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './budget.js';
import { describeUserTable } from './catalog-copy.js';
import { ManualClock } from './clock.js';
import { AUTHORITY_TABLE, DurableAuthority } from './durable-authority.js';
import { BadInputError, CheckStoppedError, errorMessage } from './errors.js';
import { explore, type ExploreProgress, type ExploreResult } from './explore.js';
import { fixedValuesOf } from './fixed-values.js';
import { loadCheckerModule } from './module-loader.js';
import { counterExampleOf, renderText, verdictOf, type CheckReport } from './report.js';
import { runScenario, scenariosFor, type ScenarioResult } from './scenarios.js';
import { ScratchSchema } from './scratch-schema.js';
import { SqlResource } from './sql-resource.js';
import { parseRoles, understandWrite, type Role, type SqlDialect, type UnderstoodWrite } from './sql-understanding.js';
import type { Subject } from './subject.js';
import { captureInitialState, createTable, findMigrations, ident, seedRow, type TableSource, type UserTableReader } from './table-setup.js';
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
  /** DDL creating the table (run inside the check's own database, never the user's). */
  schemaSql?: string;
  /** A file holding that DDL. */
  schemaFile?: string;
  /** Look for plain SQL migrations (migrations/, db/migrations/, ...) under this folder (default: cwd); false: do not. */
  migrationsRoot?: string | false;
  /** A module path (or the module itself) exporting createResource / createAuthority. */
  module?: string | CheckerModule;
  /** A real PostgreSQL server (each check runs in a database it creates and drops); PGlite when absent. */
  databaseUrl?: string;
  /** Worker counts to explore (default [2, 3]); [] skips the exploration. */
  exploreWorkers?: number[];
  maxExpires?: number;
  maxRestarts?: number;
  onProgress?(progress: ExploreProgress): void;
  cwd?: string;
  /** Overall deadline of the check in ms (default 120 000): then it ends with BadInputError naming the step. */
  timeoutMs?: number;
  /** statement_timeout of every session (default 10 000 ms). */
  statementTimeoutMs?: number;
  /** lock_timeout of every session (default 5 000 ms). */
  lockTimeoutMs?: number;
  /** Aborting it ends the check (cleaning up first) with an InterruptedError; its reason names the cause. */
  signal?: AbortSignal;
}

/**
 * Replay the stale-write scenarios and the bounded exploration against the subject.
 * Resolves with the report (verdict 'holds' or 'broken'); rejects with BadInputError when the
 * input cannot be checked, the deadline passes or the signal aborts. Whatever happens, the
 * scratch database (or PGlite's copy) and the work directory are removed before it settles.
 */
export async function checkFencing(options: CheckOptions): Promise<CheckReport> {
  const budget = new Budget(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal);
  const cleanup = new Cleanup();
  let outcome: { report: CheckReport } | { error: unknown };
  try {
    outcome = { report: await budget.settle(runCheck(options, budget, cleanup)) };
  } catch (error) {
    outcome = { error: error instanceof CheckStoppedError ? new CheckStoppedError(`${error.message}, during ${budget.step}`) : error };
  }
  budget.dispose();
  const leftBehind = await cleanup.run();
  if (leftBehind.length > 0) {
    const message = leftBehind.join('; ');
    if ('report' in outcome) throw new BadInputError(`the check ran, but cleaning up failed: ${message}`);
    throw new BadInputError(`${errorMessage(outcome.error)}; and cleaning up failed: ${message}`);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.report;
}

/**
 * What a check must undo, run in reverse order at its end. Something registered after the end
 * (work that went on after the deadline won the race) is undone at once.
 */
class Cleanup {
  private readonly steps: { what: string; undo: () => Promise<void> }[] = [];
  private done = false;

  async add(what: string, undo: () => Promise<void>): Promise<void> {
    if (this.done) await undo().catch(() => {});
    else this.steps.push({ what, undo });
  }

  /** Runs every step, each bounded in time; returns what could not be undone. */
  async run(): Promise<string[]> {
    this.done = true;
    const failures: string[] = [];
    for (const step of this.steps.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${step.what} did not finish within 20 s`)), 20_000);
      });
      try {
        await Promise.race([step.undo(), late]);
      } catch (error) {
        failures.push(`${step.what}: ${errorMessage(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
    return failures;
  }
}

async function runCheck(options: CheckOptions, budget: Budget, cleanup: Cleanup): Promise<CheckReport> {
  const started = performance.now();
  if ((options.sql === undefined) === (options.module === undefined)) {
    throw new BadInputError('give either a SQL statement (--sql) or a module (--module)');
  }
  const timeouts: SessionTimeouts = {
    statementMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    lockMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
  };
  const server = options.databaseUrl !== undefined ? parseServerUrl(options.databaseUrl) : undefined;
  const schemaSql = options.schemaFile !== undefined ? readSchemaFile(options.schemaFile) : options.schemaSql;
  // Understand the statement before opening anything: bad SQL costs no database start.
  budget.enter('reading the statement');
  const write =
    options.sql !== undefined
      ? await understandWrite(
          options.sql,
          typeof options.roles === 'string' ? parseRoles(options.roles) : (options.roles ?? requireRoles()),
          options.dialect,
          { tokenColumn: options.tokenColumn, keyColumn: options.keyColumn, valueColumn: options.valueColumn },
        )
      : undefined;
  budget.enter('loading the module');
  const userModule =
    typeof options.module === 'string' ? await loadCheckerModule(options.module, options.cwd) : options.module;

  let db: Database;
  let userTable: UserTableReader | undefined;
  if (server) {
    budget.enter(`creating the scratch database on ${server.description}`);
    const scratchDb = await ScratchDatabase.create(server, timeouts);
    await cleanup.add(`dropping the scratch database ${scratchDb.name}`, () => scratchDb.drop());
    db = scratchDb.session;
    userTable = (table) => scratchDb.readCatalog((query) => describeUserTable(query, table));
  } else {
    budget.enter('opening PGlite');
    // Its cleanup first: an interruption while PGlite boots (or builds its template) leaves nothing either.
    const pglite = PgliteDatabase.scratch({ statementTimeoutMs: timeouts.statementMs });
    await cleanup.add("stopping PGlite and removing its directory", () => pglite.close());
    await pglite.open();
    db = pglite;
  }
  const workDir = mkdtempSync(join(tmpdir(), 'fencelint-work-'));
  await cleanup.add(`removing ${workDir}`, async () => rmSync(workDir, { recursive: true, force: true }));

  budget.enter('setting up the table');
  const scratch = await ScratchSchema.create(db);
  const clock = new ManualClock();
  const context: AdapterContext = { clock, key: RESOURCE_KEY, workDir };
  let subject: Subject;
  let tableSource: TableSource | undefined;
  if (write) {
    const migrations =
      schemaSql === undefined && options.migrationsRoot !== false ? findMigrations(options.migrationsRoot ?? options.cwd ?? process.cwd()) : undefined;
    ({ subject, tableSource } = await sqlSubject(db, scratch, write, clock, schemaSql, migrations, userTable));
  } else {
    budget.enter('creating the module\'s adapters');
    subject = await moduleSubject(db, scratch, userModule!, { ...context, clock }, cleanup, budget);
  }
  subject.step = (action) => budget.doing(action);
  const scenarios: ScenarioResult[] = [];
  for (const [i, scenario] of scenariosFor(subject).entries()) {
    budget.enter(`scenario ${i + 1} (${scenario.id})`);
    scenarios.push(await guard(() => runScenario(scenario, subject)));
  }
  const exploration: ExploreResult[] = [];
  // The exploration drives writes; a DELETE subject is judged by its scenarios.
  for (const workers of subject.deletes ? [] : (options.exploreWorkers ?? [2, 3])) {
    budget.enter(`the exploration of ${workers} workers`);
    exploration.push(
      await guard(() =>
        explore(subject, { workers, maxExpires: options.maxExpires, maxRestarts: options.maxRestarts, onProgress: options.onProgress }),
      ),
    );
  }
  budget.enter('writing the report');
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
  userTable: UserTableReader | undefined,
): Promise<{ subject: Subject; tableSource: TableSource }> {
  const tableSource = await createTable(scratch, write, schemaSql, migrations, userTable);
  await seedRow(db, write, RESOURCE_KEY);
  const fixedValues = await prepareStatement(db, write);
  const restoreTables = await captureInitialState(scratch, []);
  const authority = new DurableAuthority(db, clock, scratch.name);
  await authority.install();
  const resource = new SqlResource(db, write, restoreTables, fixedValues);
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
      ...(write.kind === 'delete'
        ? { deletes: { put: (key: string, value: string, token: number) => resource.put(key, value, token), present: (key: string) => resource.present(key) } }
        : {}),
      async startTokensAt(first) {
        authority.startAt(first);
      },
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
    .map((t) => `coalesce((SELECT json_agg(x ORDER BY x::text)::text FROM ${ident(schema)}.${ident(t)} x), '[]')`);
  parts.push(
    `coalesce((SELECT json_agg(json_build_array(resource_key, token, CASE WHEN expires_at > $1::bigint THEN lease_id || '@' || (expires_at - $1::bigint) END) ORDER BY resource_key)::text FROM ${ident(schema)}.${AUTHORITY_TABLE}), '[]')`,
  );
  return `SELECT ${parts.join(` || '|' || `)} AS state`;
}

/**
 * PostgreSQL's own word on a statement it cannot run at all (a missing column, a type mismatch)
 * is bad input. Returns the fixed value of each `other` parameter, from the types PostgreSQL
 * gave the parameters.
 */
async function prepareStatement(db: Database, write: UnderstoodWrite): Promise<Map<number, unknown>> {
  try {
    await db.exec(`PREPARE fencelint_statement AS ${write.text}`);
  } catch (error) {
    if (error instanceof CheckStoppedError) throw error;
    throw new BadInputError(`PostgreSQL rejects the statement: ${errorMessage(error)}`);
  }
  const fixedValues = await fixedValuesOf(db, write, 'fencelint_statement');
  await db.exec('DEALLOCATE fencelint_statement');
  return fixedValues;
}

async function moduleSubject(
  db: Database,
  scratch: ScratchSchema,
  mod: CheckerModule,
  context: AdapterContext & { clock: ManualClock },
  cleanup: Cleanup,
  budget: Budget,
): Promise<Subject> {
  const create = async <T extends object>(what: string, factory: () => T | Promise<T>): Promise<T> => {
    let made: T;
    try {
      budget.calling(`the module's ${what}()`);
      made = await budget.settle(Promise.resolve().then(factory));
    } catch (error) {
      if (error instanceof BadInputError) throw error;
      throw new BadInputError(`the module's ${what} threw: ${errorMessage(error)}`);
    }
    return bounded(made, what.replace(/^create/, '').toLowerCase(), budget);
  };
  let resource: ResourceAdapter = await create('createResource', () => mod.createResource(context));
  await cleanup.add("closing the module's resource", async () => resource.close?.());
  let authority: AuthorityAdapter;
  let authorityDescription: string;
  let builtIn: DurableAuthority | undefined;
  if (mod.createAuthority) {
    authority = await create('createAuthority', () => mod.createAuthority!(context));
    await cleanup.add("closing the module's authority", async () => authority.close?.());
    authorityDescription = "the module's authority";
  } else {
    builtIn = new DurableAuthority(db, context.clock, scratch.name);
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
    ...(builtIn ? { startTokensAt: async (first: number) => builtIn.startAt(first) } : {}),
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

/**
 * The module's adapter with every method bounded by the check's deadline: a call that never
 * settles ends the check at the deadline, naming the call, instead of hanging it.
 */
function bounded<T extends object>(adapter: T, name: string, budget: Budget): T {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const member: unknown = Reflect.get(target, property, receiver);
      if (typeof member !== 'function' || typeof property !== 'string') return member;
      return (...args: unknown[]) => {
        budget.calling(`the module's ${name}.${property}()`);
        return budget.settle(Promise.resolve().then(() => (member as (...a: unknown[]) => unknown).apply(target, args)));
      };
    },
  });
}
