import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFencing } from '../src/index.js';
import { JOURNAL_SCHEMA, JOURNALED, JOURNALED_TOO_EARLY, NOT_IDEMPOTENT, STATEMENTS } from './statements.js';

// Each check starts its own PGlite copy; the exploration runs with two workers here (three in one test).
describe('checks on PGlite', () => {
  for (const c of STATEMENTS) {
    it(`${c.fenced ? 'holds' : 'breaks'}: ${c.name}`, async () => {
      const report = await checkFencing({ sql: c.sql, roles: c.roles, exploreWorkers: [2] });
      expect(report.backend).toMatch(/^PGlite/);
      expect(report.verdict).toBe(c.fenced ? 'holds' : 'broken');
      if (c.breaks) expect(report.scenarios.find((s) => s.id === c.breaks)?.status).toBe('broken');
      if (c.fenced) expect(report.scenarios.filter((s) => s.status === 'broken')).toEqual([]);
    });
  }

  it("reproduces the article's stale write as a timeline, and the fixed statement rejects it", async () => {
    const unsafe = await checkFencing({ sql: STATEMENTS[0].sql, roles: STATEMENTS[0].roles, exploreWorkers: [] });
    const stale = unsafe.scenarios[0];
    expect(stale.timeline.map((e) => `${e.actor}: ${e.call} -> ${e.result ?? ''}`)).toEqual([
      'A: acquire(resource-7) -> lease-A, fenceToken=41',
      'A: pause (GC pause, slow call) -> ',
      'system: lease-A expired -> ',
      'B: acquire(resource-7) -> lease-B, fenceToken=42',
      'B: write(v2, token=42) -> accepted',
      'A: write(v1, token=41) -> accepted',
    ]);
    expect(stale.violations[0].invariant).toBe('stale-write-accepted');

    const fixed = await checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles, exploreWorkers: [] });
    const last = fixed.scenarios[0].timeline.at(-1)!;
    expect(`t=${last.t} ${last.actor}: ${last.call} -> ${last.result}`).toBe('t=13 A: write(v1, token=41) -> rejected; highest=42');
  });

  it('explores 2 and 3 workers for a fenced statement and finds nothing', async () => {
    const report = await checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles });
    expect(report.exploration.map((e) => e.workers)).toEqual([2, 3]);
    for (const e of report.exploration) {
      expect(e.counterExample).toBeUndefined();
      expect(e.states).toBeGreaterThan(20);
    }
    expect(report.verdict).toBe('holds');
  });

  it('finds a minimal counter-example for an unfenced statement with 3 workers', async () => {
    const report = await checkFencing({ sql: STATEMENTS[0].sql, roles: STATEMENTS[0].roles, exploreWorkers: [3] });
    const ce = report.exploration[0].counterExample!;
    expect(ce.invariant).toBe('stale-write-accepted');
    expect(ce.schedule).toEqual(['A:acquire', 'A:pause', 'expire', 'B:acquire', 'B:write', 'A:write']);
    expect(report.counterExample?.schedule).toEqual(ce.schedule);
  });

  it('checks one effect per operationId with a journal from --schema', async () => {
    const journaled = await checkFencing({ sql: JOURNALED, roles: 'value,key,token,operationId', schemaSql: JOURNAL_SCHEMA, exploreWorkers: [2] });
    expect(journaled.subject.tableSource).toBe('schema-file');
    expect(journaled.scenarios.find((s) => s.id === 'operation-replay')?.status).toBe('holds');
    expect(journaled.verdict).toBe('holds');

    // A (op-1) is stale after B (op-2); C redelivers op-1, which the early journal then refuses forever.
    const early = await checkFencing({ sql: JOURNALED_TOO_EARLY, roles: 'value,key,token,operationId', schemaSql: JOURNAL_SCHEMA, exploreWorkers: [3] });
    expect(early.counterExample?.invariant).toBe('newest-write-rejected');

    const plain = await checkFencing({ sql: NOT_IDEMPOTENT, roles: 'value,key,token,operationId', exploreWorkers: [2] });
    const replay = plain.scenarios.find((s) => s.id === 'operation-replay')!;
    expect(replay.status).toBe('broken');
    expect(replay.violations[0].invariant).toBe('duplicate-effect');
  }, 180_000);

  it('does not pass a statement that rejects every write', async () => {
    const report = await checkFencing({
      sql: "UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3 AND status = 'active'",
      roles: 'value,key,token',
      exploreWorkers: [],
    });
    expect(report.verdict).toBe('broken');
    expect(report.scenarios[0].violations[0].invariant).toBe('newest-write-rejected');
  });

  it("takes the table from the project's SQL migrations when they create it", async () => {
    const project = mkdtempSync(join(tmpdir(), 'fencelint-project-'));
    try {
      mkdirSync(join(project, 'db', 'migrations'), { recursive: true });
      writeFileSync(join(project, 'db', 'migrations', '001_state.sql'), 'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text NOT NULL)');
      writeFileSync(join(project, 'db', 'migrations', '002_token.sql'), 'ALTER TABLE resource_state ADD COLUMN fence_token bigint NOT NULL DEFAULT 0');
      const report = await checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles, migrationsRoot: project, exploreWorkers: [] });
      expect(report.subject.tableSource).toBe('migrations');
      expect(report.verdict).toBe('holds');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('says the replay scenario does not apply without an operationId', async () => {
    const report = await checkFencing({ sql: STATEMENTS[1].sql, roles: STATEMENTS[1].roles, exploreWorkers: [] });
    const replay = report.scenarios.find((s) => s.id === 'operation-replay')!;
    expect(replay.status).toBe('not-applicable');
    expect(replay.reason).toMatch(/operationId/);
  });

  it('binds each parameter outside the fence (other) to one value of its type', async () => {
    // NOT NULL on every column: a NULL bound for want of a value would make each write an error.
    const schemaSql = `CREATE TYPE report_state AS ENUM ('draft', 'published');
      CREATE TABLE reports (id text PRIMARY KEY, body text NOT NULL, revision bigint NOT NULL, edited_at timestamptz NOT NULL,
        state report_state NOT NULL, flagged boolean NOT NULL, author uuid NOT NULL, meta jsonb NOT NULL, tags text[] NOT NULL);
      INSERT INTO reports VALUES ('resource-7', 'v0', 0, now(), 'draft', false, gen_random_uuid(), '{}', '{}');`;
    const set = 'body = $1, revision = $3, edited_at = $4, state = $5, flagged = $6, author = $7, meta = $8, tags = $9';
    const roles = 'value,key,token,other,other,other,other,other,other';
    const fenced = await checkFencing({ sql: `UPDATE reports SET ${set} WHERE id = $2 AND revision < $3`, roles, schemaSql, exploreWorkers: [2] });
    expect(fenced.subject.roles).toEqual(roles.split(','));
    expect(fenced.scenarios.filter((s) => s.status === 'broken')).toEqual([]);
    expect(fenced.verdict).toBe('holds');
    const unfenced = await checkFencing({ sql: `UPDATE reports SET ${set} WHERE id = $2`, roles, schemaSql, exploreWorkers: [] });
    expect(unfenced.scenarios[0].status).toBe('broken');
  });

  it('reads ? placeholders with the mysql dialect', async () => {
    const report = await checkFencing({
      sql: 'UPDATE resource_state SET value = ?, fence_token = ? WHERE resource_key = ? AND fence_token < ?',
      roles: 'value,token,key,token',
      dialect: 'mysql',
      exploreWorkers: [],
    });
    expect(report.subject.text).toContain('$4');
    expect(report.verdict).toBe('holds');
  });
});
