/**
 * A lock taken in one function and released in another: a hook takes a mutex and returns it,
 * the next hook receives it and releases it after its writes; a class takes a lease into a
 * field in `start()` and `stop()` writes before releasing it. The function that releases a lock
 * it was handed holds that lock from its first statement to the release.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const semaphore = `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';

const client = new Redis();

export class Semaphore {
  static async lock(key: string): Promise<Mutex> {
    const mutex = new Mutex(client, 'sem:' + key, { lockTimeout: 5000 });
    await mutex.acquire();
    return mutex;
  }

  static async release(mutex: Mutex): Promise<void> {
    await mutex.release();
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lock handed to the function that releases it', () => {
  it('the hook that receives the mutex in its argument writes under it until the release', async () => {
    current = project({
      'semaphore.ts': semaphore,
      'shifts.ts': `import { Pool } from 'pg';
import { Semaphore } from './semaphore';

const pool = new Pool();

export async function beforeHandover(rotaId: string) {
  const mutex = await Semaphore.lock(rotaId);
  return { rotaId, carried: { mutex } };
}

export async function afterHandover(state: { rotaId: string; carried: { mutex: Awaited<ReturnType<typeof Semaphore.lock>> } }) {
  const mutex = state.carried.mutex;
  try {
    await pool.query('UPDATE rota SET on_call = $2 WHERE id = $1', [state.rotaId, 'next']);
  } finally {
    await Semaphore.release(mutex);
  }
  await pool.query('UPDATE rota SET notified = true WHERE id = $1', [state.rotaId]);
}
`,
    });
    const results = await current.lint('shifts.ts');
    // Line 14 runs under the handed-over mutex; line 18 runs after its release.
    expect(findings(results.get('shifts.ts'))).toEqual(['14 fencelint/require-fence-condition']);
  });

  it('a redis-semaphore mutex passed as a parameter and released on it', async () => {
    current = project({
      'close.ts': `import { Pool } from 'pg';
import type { Mutex } from 'redis-semaphore';

const pool = new Pool();

export async function closeBooking(bookingId: string, mutex: Mutex) {
  await pool.query('UPDATE bookings SET closed = true WHERE id = $1', [bookingId]);
  await mutex.release();
}
`,
    });
    const results = await current.lint('close.ts');
    expect(findings(results.get('close.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('a lease taken into a field in one method and released in another', async () => {
    current = project({
      'sweeper.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';

const redlock = new Redlock([new Redis()]);
const pool = new Pool();

export class Sweeper {
  private lease?: Awaited<ReturnType<Redlock['acquire']>>;

  async start() {
    this.lease = await redlock.acquire(['sweeper'], 30000);
  }

  async stop(lastRun: Date) {
    await pool.query('UPDATE sweeper_state SET last_run = $1', [lastRun]);
    await this.lease?.release();
  }
}
`,
    });
    const results = await current.lint('sweeper.ts');
    expect(findings(results.get('sweeper.ts'))).toEqual(['16 fencelint/require-fence-condition']);
  });

  it('a function that takes and releases its own lock is judged by its own section, once', async () => {
    current = project({
      'semaphore.ts': semaphore,
      'own.ts': `import { Pool } from 'pg';
import { Semaphore } from './semaphore';

const pool = new Pool();

export async function rename(id: string, name: string) {
  const mutex = await Semaphore.lock(id);
  try {
    await pool.query('UPDATE teams SET name = $2 WHERE id = $1', [id, name]);
  } finally {
    await Semaphore.release(mutex);
  }
}
`,
    });
    const results = await current.lint('own.ts');
    expect(findings(results.get('own.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a release helper, an in-process mutex and a handle made here open no section', async () => {
    current = project({
      'semaphore.ts': semaphore,
      'misc.ts': `import { Pool } from 'pg';
import { Mutex as LocalMutex } from 'async-mutex';
import type { Mutex } from 'redis-semaphore';
import { Semaphore } from './semaphore';

const pool = new Pool();

export async function releaseAndMark(mutex: Mutex, id: string) {
  await Semaphore.release(mutex);
  await pool.query('UPDATE jobs SET released = true WHERE id = $1', [id]);
}

export async function releaseLock(mutex: Mutex, id: string) {
  await pool.query('UPDATE jobs SET state = $2 WHERE id = $1', [id, 'done']);
  await mutex.release();
}

export async function withLocal(mutex: LocalMutex, id: string) {
  await pool.query('UPDATE counters SET n = n + 1 WHERE id = $1', [id]);
  mutex.release();
}
`,
    });
    const results = await current.lint('misc.ts');
    expect(findings(results.get('misc.ts'))).toEqual([]);
  });
});
