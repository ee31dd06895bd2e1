import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, runCli } from './cli.js';
import { serverUrl } from './statements.js';

// Hostile statements and schema files, run through fencelint-check against a real server
// (DATABASE_URL, else the embedded one of the test run). The user's own database holds tables
// named like the statement's, a function that deletes rows, and another schema; a dump of all
// of it (rows, tables, columns, schemas, functions, sequences) must be the same after every
// run, and no scratch database or role may be left on the server.
describe("the checker never touches the user's database", () => {
  let url: string;
  let client: pg.Client;
  let work: string;

  beforeAll(async () => {
    url = serverUrl();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    work = mkdtempSync(join(tmpdir(), 'fencelint-containment-'));
    await client.query(`
      DROP SCHEMA IF EXISTS containment_billing CASCADE;
      DROP TABLE IF EXISTS public.resource_state, public.orders;
      DROP FUNCTION IF EXISTS public.wipe();
      CREATE TABLE public.resource_state (id bigserial, resource_key text PRIMARY KEY, value text NOT NULL, fence_token bigint NOT NULL DEFAULT 0);
      INSERT INTO public.resource_state (resource_key, value, fence_token) VALUES ('resource-7', 'user data', 1000), ('other', 'kept', 5);
      CREATE TABLE public.orders (id int PRIMARY KEY, total numeric);
      INSERT INTO public.orders SELECT g, g * 10 FROM generate_series(1, 20) g;
      CREATE FUNCTION public.wipe() RETURNS text LANGUAGE sql AS $$ DELETE FROM public.orders; SELECT 'wiped' $$;
      CREATE SCHEMA containment_billing;
      CREATE TABLE containment_billing.resource_state (resource_key text PRIMARY KEY, value text, fence_token bigint);
      INSERT INTO containment_billing.resource_state VALUES ('resource-7', 'billing', 7);
    `);
  });

  afterAll(async () => {
    await client?.query(
      'DROP SCHEMA IF EXISTS containment_billing CASCADE; DROP TABLE IF EXISTS public.resource_state, public.orders; DROP FUNCTION IF EXISTS public.wipe()',
    );
    await client?.end();
    rmSync(work, { recursive: true, force: true });
  });

  /** Everything of the user's database a check could change, as one comparable value. */
  async function dump(): Promise<unknown> {
    const q = async (text: string) => (await client.query(text)).rows;
    const tables = await q(`SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND c.relkind IN ('r', 'p', 'S', 'v', 'm') ORDER BY 1, 2`);
    const rows: Record<string, unknown> = {};
    for (const t of tables) {
      const name = `${client.escapeIdentifier(t.schema)}.${client.escapeIdentifier(t.name)}`;
      rows[`${t.schema}.${t.name}`] = t.kind === 'S' ? await q(`SELECT last_value, is_called FROM ${name}`) : await q(`SELECT t::text AS row FROM ${name} t ORDER BY 1`);
    }
    return {
      schemas: await q(`SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY 1`),
      tables,
      columns: await q(`SELECT table_schema, table_name, column_name, data_type, column_default FROM information_schema.columns
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`),
      functions: await q(`SELECT n.nspname, p.proname, md5(p.prosrc) AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`),
      rows,
    };
  }

  /** Scratch databases and roles on the whole server. */
  async function leftovers(): Promise<string[]> {
    const dbs = await client.query(`SELECT datname AS name FROM pg_database WHERE datname LIKE 'fencelint\\_check\\_%'`);
    const roles = await client.query(`SELECT rolname AS name FROM pg_roles WHERE rolname LIKE 'fencelint\\_check\\_%'`);
    return [...dbs.rows, ...roles.rows].map((r) => String(r.name));
  }

  function schemaFile(name: string, sql: string): string {
    const path = join(work, name);
    writeFileSync(path, sql);
    return path;
  }

  const TABLE = 'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token bigint NOT NULL DEFAULT 0);';
  const FENCED = 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3';

  const cases: { name: string; args: () => string[]; codes: number[]; stderr?: RegExp; after?: () => void }[] = [
    {
      name: 'a statement that moves search_path to public (then every write and reset)',
      args: () => [
        '--sql',
        "UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND set_config('search_path', 'public, containment_billing', false) IS NOT NULL",
        '--roles',
        'value,key',
      ],
      codes: [1, 2],
    },
    {
      name: 'a schema file that drops and alters the user tables and schemas',
      args: () => [
        '--sql',
        FENCED,
        '--roles',
        'value,key,token',
        '--schema',
        schemaFile(
          'drop.sql',
          'DROP TABLE IF EXISTS public.orders; DROP SCHEMA IF EXISTS containment_billing CASCADE; DROP SCHEMA public CASCADE; ' +
            `ALTER TABLE IF EXISTS public.resource_state ADD COLUMN stolen int; DROP FUNCTION IF EXISTS public.wipe(); ${TABLE}`,
        ),
      ],
      codes: [0],
    },
    {
      name: 'a schema file whose ALTER names a user table (which is not there)',
      args: () => ['--sql', FENCED, '--roles', 'value,key,token', '--schema', schemaFile('alter.sql', `${TABLE} ALTER TABLE public.orders DROP COLUMN total;`)],
      codes: [2],
      stderr: /the --schema file fails: relation "public.orders" does not exist/,
    },
    {
      name: 'a schema file with a DO block deleting from the user tables',
      args: () => [
        '--sql',
        FENCED,
        '--roles',
        'value,key,token',
        '--schema',
        schemaFile(
          'do.sql',
          `DO $$ BEGIN EXECUTE 'DELETE FROM public.orders'; EXCEPTION WHEN OTHERS THEN NULL; END $$; ` +
            `DO $$ BEGIN EXECUTE 'UPDATE public.resource_state SET value = ''x'''; EXCEPTION WHEN OTHERS THEN NULL; END $$; ${TABLE}`,
        ),
      ],
      codes: [0],
    },
    {
      name: 'a statement calling a user function that deletes rows',
      args: () => ['--sql', "UPDATE resource_state SET value = $1 || public.wipe() WHERE resource_key = $2", '--roles', 'value,key'],
      codes: [2],
      stderr: /function public\.wipe\(\) does not exist/,
    },
    {
      name: 'a schema file that defines the same function and a statement that calls it',
      args: () => [
        '--sql',
        'UPDATE resource_state SET value = $1 || wipe() WHERE resource_key = $2',
        '--roles',
        'value,key',
        '--schema',
        schemaFile('function.sql', `${TABLE} CREATE FUNCTION wipe() RETURNS text LANGUAGE sql AS $f$ DELETE FROM resource_state WHERE resource_key <> 'resource-7'; SELECT '' $f$;`),
      ],
      codes: [1],
    },
    {
      name: "a statement that terminates the checker's own backend",
      args: () => ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND pg_terminate_backend(pg_backend_pid())', '--roles', 'value,key'],
      codes: [2],
      stderr: /the database connection was terminated/,
    },
    {
      name: "a statement that tries to terminate every other backend (the user's sessions included)",
      args: () => [
        '--sql',
        'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND (SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid()) >= 0',
        '--roles',
        'value,key',
        '--workers',
        '0',
      ],
      codes: [1, 2],
    },
    {
      name: 'a schema file that runs a program on the server (COPY ... TO PROGRAM)',
      args: () => ['--sql', FENCED, '--roles', 'value,key,token', '--schema', schemaFile('program.sql', `${TABLE} COPY (SELECT 1) TO PROGRAM 'touch ${join(work, 'ran')}';`)],
      codes: [2],
      stderr: /permission denied|must be superuser|privilege/i,
      after: () => expect(existsSync(join(work, 'ran'))).toBe(false),
    },
    {
      name: 'a statement that runs for minutes (statement timeout)',
      args: () => ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND pg_sleep(600) IS NOT NULL', '--roles', 'value,key', '--workers', '0'],
      codes: [2],
      stderr: /ran longer than the statement timeout \(10 s\), during scenario 1 \(stale-write\)/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const before = await dump();
      const result = await runCli([...c.args(), '--database-url', url]);
      expect(c.codes, `exit ${result.code}\n${result.stderr}${result.stdout}`).toContain(result.code);
      if (c.stderr) expect(result.stderr).toMatch(c.stderr);
      expect(result.stderr).not.toMatch(/internal error/);
      c.after?.();
      expect(await dump()).toEqual(before);
      expect(await leftovers()).toEqual([]);
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during a slow statement drops the scratch database and exits ${signal === 'SIGTERM' ? 143 : 130}`, async () => {
      const before = await dump();
      const sql = 'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND pg_sleep(600) IS NOT NULL';
      const child = spawn(process.execPath, [CLI, '--sql', sql, '--roles', 'value,key', '--workers', '0', '--database-url', url], {
        cwd: REPO,
        env: { ...process.env, DATABASE_URL: '' },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Wait until the statement sleeps in the scratch database.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const active = await client.query(`SELECT 1 FROM pg_stat_activity WHERE datname LIKE 'fencelint\\_check\\_%' AND query LIKE '%pg_sleep(600)%' AND state = 'active'`);
        if (active.rows.length > 0) break;
        if (Date.now() > deadline) throw new Error(`the statement never started: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.kill(signal);
      expect(await exited).toBe(signal === 'SIGTERM' ? 143 : 130);
      expect(stderr).toMatch(new RegExp(`interrupted by ${signal} during scenario 1 \\(stale-write\\)`));
      expect(await leftovers()).toEqual([]);
      expect(await dump()).toEqual(before);
    });
  }

  it('a role that may not create databases is refused with the options, and its database is not used', async () => {
    const role = `fencelint_nocreate_${process.pid}`;
    await client.query(`DROP ROLE IF EXISTS ${role}; CREATE ROLE ${role} LOGIN PASSWORD 'pw' NOCREATEDB`);
    try {
      const own = new URL(url);
      own.username = role;
      own.password = 'pw';
      const before = await dump();
      const result = await runCli(['--sql', FENCED, '--roles', 'value,key,token', '--database-url', own.toString()]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/the role "fencelint_nocreate_\d+" may not create databases/);
      expect(result.stderr).toMatch(/leave out --database-url .* PGlite/);
      expect(result.stderr).toMatch(/disposable server/);
      expect(await dump()).toEqual(before);
      expect(await leftovers()).toEqual([]);
    } finally {
      await client.query(`DROP ROLE IF EXISTS ${role}`);
    }
  });
});
