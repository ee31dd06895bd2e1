import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadInputError, checkFencing } from '../src/index.js';
import { serverUrl, STATEMENTS } from './statements.js';

// Against a real PostgreSQL server (DATABASE_URL, else the embedded one of the test run).
describe('checks against a real PostgreSQL server', () => {
  let url: string;
  let client: pg.Client;
  const table = `accounts_state_${process.pid}`;

  beforeAll(async () => {
    url = serverUrl();
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.query(`DROP TABLE IF EXISTS public.${table}`);
    await client?.end();
  });

  // Scratch schemas in the user's database, scratch databases and roles on the server: never any after a check.
  const scratchSchemas = async (): Promise<string[]> =>
    (
      await client.query(
        `SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'fencelint\\_check\\_%'
         UNION ALL SELECT datname FROM pg_database WHERE datname LIKE 'fencelint\\_check\\_%'
         UNION ALL SELECT rolname FROM pg_roles WHERE rolname LIKE 'fencelint\\_check\\_%'`,
      )
    ).rows.map((r) => r.name as string);

  for (const c of STATEMENTS) {
    it(`${c.fenced ? 'holds' : 'breaks'}: ${c.name}`, async () => {
      // The statement names resource_state; a table of that name in the user's schema would be
      // copied by structure, so use each statement as given but never touch public.
      const report = await checkFencing({ sql: c.sql, roles: c.roles, databaseUrl: url, exploreWorkers: [2] });
      expect(report.backend).toMatch(/^PostgreSQL at 127\.0\.0\.1/);
      expect(report.verdict).toBe(c.fenced ? 'holds' : 'broken');
      if (c.breaks) expect(report.scenarios.find((s) => s.id === c.breaks)?.status).toBe('broken');
    });
  }

  it('explores 3 workers on the server and restarts with a new connection', async () => {
    const report = await checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles, databaseUrl: url, exploreWorkers: [3] });
    expect(report.verdict).toBe('holds');
    const restart = report.scenarios.find((s) => s.id === 'restart')!;
    expect(restart.timeline.some((e) => e.action === 'restart' && e.result === 'value=v2')).toBe(true);
  });

  it("leaves the user's own table of the same name and its data unchanged", async () => {
    await client.query(`DROP TABLE IF EXISTS public.${table}`);
    await client.query(
      `CREATE TABLE public.${table} (id bigserial, resource_key text PRIMARY KEY, value text NOT NULL, fence_token bigint NOT NULL DEFAULT 0)`,
    );
    await client.query(`INSERT INTO public.${table} (resource_key, value, fence_token) VALUES ('resource-7', 'user data', 1000), ('other', 'kept', 5)`);
    const before = (await client.query(`SELECT * FROM public.${table} ORDER BY resource_key`)).rows;
    const sequenceBefore = (await client.query(`SELECT last_value FROM public.${table}_id_seq`)).rows;
    const schemasBefore = await scratchSchemas();

    // Unfenced, so the check writes v1 over v2 many times: all of it in the scratch copy.
    const sql = `UPDATE ${table} SET value = $1 WHERE resource_key = $2`;
    const report = await checkFencing({ sql, roles: 'value,key', databaseUrl: url, exploreWorkers: [2] });
    expect(report.verdict).toBe('broken');
    expect(report.subject.tableSource).toBe('catalog');

    expect((await client.query(`SELECT * FROM public.${table} ORDER BY resource_key`)).rows).toEqual(before);
    expect((await client.query(`SELECT last_value FROM public.${table}_id_seq`)).rows).toEqual(sequenceBefore);
    expect(await scratchSchemas()).toEqual(schemasBefore);
  });

  it("a schema-qualified statement cannot reach the user's table: it is not in the check's database", async () => {
    await client.query(`CREATE TABLE IF NOT EXISTS public.${table}_q (resource_key text PRIMARY KEY, value text)`);
    await client.query(`INSERT INTO public.${table}_q VALUES ('resource-7', 'mine') ON CONFLICT DO NOTHING`);
    const schemasBefore = await scratchSchemas();
    const check = checkFencing({ sql: `UPDATE public.${table}_q SET value = $1 WHERE resource_key = $2`, roles: 'value,key', databaseUrl: url });
    await expect(check).rejects.toThrow(BadInputError);
    await expect(check).rejects.toThrow(/PostgreSQL rejects the statement: relation "public\..*_q" does not exist/);
    expect((await client.query(`SELECT value FROM public.${table}_q`)).rows).toEqual([{ value: 'mine' }]);
    expect(await scratchSchemas()).toEqual(schemasBefore);
    await client.query(`DROP TABLE public.${table}_q`);
  });

  it('a --schema file that creates a table in public creates it in the scratch database', async () => {
    const report = await checkFencing({
      sql: STATEMENTS[1].sql,
      roles: STATEMENTS[1].roles,
      databaseUrl: url,
      exploreWorkers: [],
      schemaSql: `CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token bigint); CREATE TABLE public.${table}_stray (x int);`,
    });
    expect(report.verdict).toBe('holds');
    expect(report.backend).toMatch(/scratch database fencelint_check_[0-9a-f]{12}/);
    expect((await client.query(`SELECT to_regclass('public.${table}_stray') AS t`)).rows[0].t).toBeNull();
  });

  it('reports an unreachable server as bad input', async () => {
    await expect(checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles, databaseUrl: 'postgres://nobody@127.0.0.1:1/none' })).rejects.toThrow(
      /cannot connect to PostgreSQL at 127\.0\.0\.1:1\/none/,
    );
  });
});
