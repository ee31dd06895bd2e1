/**
 * A release written inside a closure (`const unlock = async () => { await mutex.release(); }`)
 * ends the critical section where the closure is called, not where it is written.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

function findingLines(code: string): number[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error' } }], 'monitor.ts')
    .map((m) => m.line);
}

const head = `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
`;

describe('releases inside closures', () => {
  it('the section runs until the release closure is called, so the writes before that call are under the lock', () => {
    const code = `${head}
export async function probe(monitorId: string, status: string): Promise<void> {
  const mutex = new Mutex(redis, 'monitor:' + monitorId, { lockTimeout: 5000 });
  await mutex.acquire();
  const unlock = async (): Promise<void> => {
    await mutex.release();
  };
  await pool.query('UPDATE monitors SET status = $1 WHERE id = $2', [status, monitorId]);
  await unlock();
  await pool.query('UPDATE monitors SET checked_at = now() WHERE id = $1', [monitorId]);
}
`;
    // Line 13 is written before the closure runs; line 15 after it.
    expect(findingLines(code)).toEqual([13]);
  });

  it('the last call of the closure ends the section on every path', () => {
    const code = `${head}
export async function probe(monitorId: string, status: string, skip: boolean): Promise<void> {
  const mutex = new Mutex(redis, 'monitor:' + monitorId, { lockTimeout: 5000 });
  await mutex.acquire();
  const unlock = async (): Promise<void> => {
    await mutex.release();
  };
  if (skip) {
    await unlock();
    return;
  }
  await pool.query('UPDATE monitors SET status = $1 WHERE id = $2', [status, monitorId]);
  await unlock();
}
`;
    expect(findingLines(code)).toEqual([17]);
  });

  it('a release in a closure that is never called here does not end the section', () => {
    const code = `${head}
export async function probe(monitorId: string, status: string): Promise<() => Promise<void>> {
  const mutex = new Mutex(redis, 'monitor:' + monitorId, { lockTimeout: 5000 });
  await mutex.acquire();
  const unlock = async (): Promise<void> => {
    await mutex.release();
  };
  await pool.query('UPDATE monitors SET status = $1 WHERE id = $2', [status, monitorId]);
  return unlock;
}
`;
    expect(findingLines(code)).toEqual([13]);
  });

  it('a release in the same function still ends the section there', () => {
    const code = `${head}
export async function probe(monitorId: string, status: string): Promise<void> {
  const mutex = new Mutex(redis, 'monitor:' + monitorId, { lockTimeout: 5000 });
  await mutex.acquire();
  try {
    await pool.query('UPDATE monitors SET status = $1 WHERE id = $2', [status, monitorId]);
  } finally {
    await mutex.release();
  }
  await pool.query('UPDATE monitors SET checked_at = now() WHERE id = $1', [monitorId]);
}
`;
    expect(findingLines(code)).toEqual([11]);
  });
});
