/**
 * A try-lock goes on when it did not get the lock, and the code tells the outcomes apart by
 * testing its result. The branch taken on failure holds no lock: its writes are not late writes,
 * and a lock helper that calls a busy handler there and the work after it runs the work, not the
 * busy handler, under the lock.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';
import { clearResolutions } from '../../../src/core/modules/module-resolution.js';
import { findings as projectFindings, project, type Project } from '../project/project-helpers.js';

function findings(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error' } }], 'worker.ts')
    .map((m) => `${m.line} ${m.ruleId}`);
}

const head = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
`;

describe('the failure branch of a try-lock in place', () => {
  it('SET NX: the writes before the early return run without the lease, the one after it under it', () => {
    const code = `${head}
export async function rebuild(day: string): Promise<void> {
  const ok = await redis.set('rebuild-lock:' + day, randomUUID(), 'NX', 'PX', 30_000);
  if (!ok) {
    await pool.query('UPDATE report_runs SET skipped = skipped + 1, last_skip = $1 WHERE day = $2', [new Date(), day]);
    return;
  }
  await pool.query('UPDATE reports SET body = $1 WHERE day = $2', ['...', day]);
}
`;
    expect(findings(code)).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('a session advisory try-lock read through its row: the else branch holds no lock', () => {
    const code = `${head}
export async function compact(client: Client, id: number): Promise<void> {
  const res = await client.query('SELECT pg_try_advisory_lock($1)', [id]);
  if (res.rows[0].pg_try_advisory_lock) {
    await pool.query('UPDATE segments SET compacted = $1 WHERE id = $2', [new Date(), id]);
  } else {
    await pool.query('UPDATE segments SET wait_note = $1 WHERE id = $2', ['busy', id]);
  }
  await client.query('SELECT pg_advisory_unlock($1)', [id]);
}
`;
    expect(findings(code)).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a const read off the result, compared with false, and a ternary on it', () => {
    const code = `${head}
export async function rotate(client: Client, id: number): Promise<void> {
  const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS locked', [id]);
  const locked = rows[0]?.locked ?? false;
  if (locked === false) {
    await pool.query('UPDATE keys SET last_busy = $1 WHERE id = $2', [new Date(), id]);
  }
  await (locked ? pool.query('UPDATE keys SET secret = $1 WHERE id = $2', ['x', id]) : pool.query('UPDATE keys SET misses = $1 WHERE id = $2', [0, id]));
}
`;
    expect(findings(code)).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('a test that does not say whether the lock was taken leaves both branches in the section', () => {
    const code = `${head}
export async function rebuild(day: string, full: boolean): Promise<void> {
  const ok = await redis.set('rebuild-lock:' + day, randomUUID(), 'NX', 'PX', 30_000);
  if (!ok || full) {
    await pool.query('UPDATE reports SET body = $1 WHERE day = $2', ['full', day]);
  }
  await pool.query('UPDATE reports SET body = $1 WHERE day = $2', ['...', day]);
}
`;
    expect(findings(code)).toEqual(['10 fencelint/require-fence-condition', '12 fencelint/require-fence-condition']);
  });
});

describe('a lock helper handed the work and a busy handler', () => {
  const helper = `
export async function withTryLock<T>(id: number, work: () => Promise<T>, onBusy: () => T): Promise<T> {
  const client = new Client();
  await client.connect();
  try {
    const res = await client.query('SELECT pg_try_advisory_lock($1) AS acquired', [id]);
    const acquired = res.rows[0]?.acquired ?? false;
    if (!acquired) {
      return onBusy();
    }
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [id]);
    }
  } finally {
    await client.end();
  }
}
`;

  it('in the same file: the work runs under the lock, the busy handler does not', () => {
    const code = `${head}${helper}
export async function nightly(): Promise<void> {
  await withTryLock(
    7,
    async () => {
      await pool.query('UPDATE totals SET amount = $1 WHERE id = 1', [42]);
    },
    () => {
      void pool.query('UPDATE totals SET busy_hits = $1 WHERE id = 1', [1]);
    },
  );
}
`;
    expect(findings(code)).toEqual(['30 fencelint/require-fence-condition']);
  });

  let current: Project | undefined;
  afterEach(() => {
    current?.remove();
    current = undefined;
    clearResolutions();
  });

  it('in another module: the caller\'s work is reported, its busy handler is not', async () => {
    current = project({
      'package.json': '{ "name": "app", "type": "module" }',
      'src/try-lock.ts': `import { Client } from 'pg';\n${helper}`,
      'src/jobs.ts': `import { Pool } from 'pg';
import { withTryLock } from './try-lock';
const pool = new Pool();

export async function nightly(): Promise<void> {
  await withTryLock(
    7,
    async () => {
      await pool.query('UPDATE totals SET amount = $1 WHERE id = 1', [42]);
    },
    async () => {
      await pool.query('UPDATE totals SET busy_hits = $1 WHERE id = 1', [1]);
    },
  );
}
`,
    });
    const results = await current.lint('src/jobs.ts');
    expect(projectFindings(results.get('src/jobs.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });
});
