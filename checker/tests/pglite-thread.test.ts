import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO, type CliResult } from './cli.js';

// PGlite ignores statement_timeout and runs a statement synchronously; the checker runs it in a
// worker thread, so the deadline, the statement timeout and signals still end the check. The
// statement calls a function that first leaves a mark in PGlite's data directory (so the test
// knows it is running) and then sleeps for ten minutes.
const work = mkdtempSync(join(tmpdir(), 'fencelint-pglite-thread-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const cache = join(tmpdir(), 'fencelint-checker');

const SCHEMA = join(work, 'napping.sql');
writeFileSync(
  SCHEMA,
  `CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token bigint);
CREATE FUNCTION nap() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO %L', current_setting('data_directory') || '/sleeping');
  PERFORM pg_sleep(600);
  RETURN true;
END $$;
`,
);
const NAPPING = ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND nap()', '--roles', 'value,key', '--schema', SCHEMA, '--workers', '0'];

/** What the check left in its own TMPDIR (the PGlite template lives in the shared cache). */
const leftovers = (dir: string): string[] => readdirSync(dir);

function start(args: string[]): { tmp: string; sleeping: () => boolean; kill(signal: NodeJS.Signals): void; done: Promise<CliResult> } {
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: '', TMPDIR: tmp, FENCELINT_CHECKER_CACHE: cache },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const sleeping = () => readdirSync(tmp).some((name) => name.startsWith('fencelint-check-') && existsSync(join(tmp, name, 'sleeping')));
  return { tmp, sleeping, kill: (signal) => child.kill(signal), done };
}

async function untilSleeping(run: ReturnType<typeof start>): Promise<void> {
  const until = Date.now() + 90_000;
  while (!run.sleeping()) {
    if (Date.now() > until) throw new Error('the statement never started sleeping');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a statement that never returns on PGlite', () => {
  it('ends at the deadline with exit 2, naming the step, and leaves no directory', { timeout: 180_000 }, async () => {
    const run = start([...NAPPING, '--timeout', '45', '--statement-timeout', '600']);
    await untilSleeping(run);
    const sleptAt = Date.now();
    const result = await run.done;
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/ran out of time \(--timeout 45 s\) during scenario 1 \(stale-write\), at B: write\(v2, token=42\); nothing was left behind/);
    // Ended by the deadline, not by the statement: it would have slept for ten minutes.
    expect(Date.now() - sleptAt).toBeLessThan(60_000);
    expect(leftovers(run.tmp)).toEqual([]);
  });

  it('ends at the statement timeout with exit 2 and leaves no directory', { timeout: 180_000 }, async () => {
    const run = start([...NAPPING, '--statement-timeout', '3', '--json']);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ verdict: 'bad-input' });
    expect(result.stderr).toMatch(/a statement ran longer than the statement timeout \(3 s\), during scenario 1 \(stale-write\), at B: write\(v2, token=42\)/);
    expect(leftovers(run.tmp)).toEqual([]);
  });

  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it(`${signal} while it sleeps exits ${code} and leaves no directory`, { timeout: 180_000 }, async () => {
      const run = start([...NAPPING, '--statement-timeout', '600', '--json']);
      await untilSleeping(run);
      run.kill(signal);
      const result = await run.done;
      expect(result.code, result.stderr).toBe(code);
      expect(JSON.parse(result.stdout)).toMatchObject({ verdict: 'interrupted' });
      expect(result.stderr).toMatch(new RegExp(`interrupted by ${signal} during scenario 1 \\(stale-write\\), at B: write\\(v2, token=42\\); nothing was left behind`));
      expect(leftovers(run.tmp)).toEqual([]);
    });
  }
});
