/**
 * A lease taken in two steps: `GET` the key, leave when it is set, then `SET` it with an expiry
 * (no `NX`). The check is not atomic, but whoever passes it works under an expiring key, so its
 * writes are late writes once the key lapses, and deleting the key by name frees the next holder's
 * lease. A cache fill has the same two steps: only a key that says it is a lock (by its name, the
 * variable its reply goes to, or a later delete in the same function) is read as one.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

function findings(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error', 'fencelint/no-release-by-name': 'error' } }], 'jobs.ts')
    .map((m) => `${m.line} ${m.ruleId}`);
}

const head = `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
`;

describe('a GET check then SET with an expiry', () => {
  it('a lock-named key: the writes after the SET are under the lease, and its DEL is a release by name', () => {
    const code = `${head}
export async function sweep(): Promise<void> {
  try {
    const held = await redis.get('sweeper-lock');
    if (held) {
      return;
    }
    await redis.set('sweeper-lock', '1', 'EX', 600);
    await pool.query("UPDATE invoices SET state = 'overdue' WHERE due_at < now()");
    await redis.del('sweeper-lock');
  } catch (error) {
    await redis.del('sweeper-lock');
  }
}
`;
    expect(findings(code)).toEqual(['13 fencelint/require-fence-condition', '14 fencelint/no-release-by-name', '16 fencelint/no-release-by-name']);
  });

  it('a key named for its job, deleted again at the end: a lease too', () => {
    const code = `${head}
// One runner at a time: the key is the job's lock (the word lets the file through the lock-word gate).
const JOB_KEY = 'nightly-rollup';
export async function rollup(day: string): Promise<void> {
  if (await redis.get(JOB_KEY)) return;
  await redis.set(JOB_KEY, process.pid.toString(), 'PX', 60_000);
  await pool.query('UPDATE daily_totals SET closed = true WHERE day = $1', [day]);
  await redis.del(JOB_KEY);
}
`;
    expect(findings(code)).toEqual(['11 fencelint/require-fence-condition', '12 fencelint/no-release-by-name']);
  });

  it('a cache fill (read, return the hit, store the computed value) is no lease', () => {
    const code = `${head}
export async function profile(userId: string): Promise<unknown> {
  const cached = await redis.get('profile:' + userId);
  if (cached) return JSON.parse(cached);
  const { rows } = await pool.query('SELECT * FROM users WHERE id = $1', [userId]);
  await redis.set('profile:' + userId, JSON.stringify(rows[0]), 'EX', 300);
  await pool.query('UPDATE users SET profile_reads = profile_reads + 1 WHERE id = $1', [userId]);
  return rows[0];
}
`;
    expect(findings(code)).toEqual([]);
  });

  it('a GET that decides nothing, or a SET without an expiry, takes no lease', () => {
    const code = `${head}
export async function mark(): Promise<void> {
  const previous = await redis.get('import-lock');
  console.log('last import', previous);
  await redis.set('import-lock', '1', 'EX', 600);
  await pool.query("UPDATE imports SET state = 'running'");
}
export async function flag(): Promise<void> {
  if (await redis.get('maintenance-lock')) return;
  await redis.set('maintenance-lock', '1');
  await pool.query("UPDATE settings SET maintenance = true");
}
`;
    expect(findings(code)).toEqual([]);
  });
});
