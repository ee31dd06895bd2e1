/**
 * A same-file table of jobs, each row naming its lock and its function (`{ mutex: 'x', task: sweepX }`),
 * run by a loop that takes the lock by the row's key property and calls the row's function under it
 * (`underLock(row.mutex, () => row.task())`): every row's function runs under its row's lock, so the
 * writes of the functions the rows name are reported at the call. A call through a property the lock
 * does not pair with (no row key read by the lock), or a table with a row that lacks the key, ties nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/db.ts': `import { Pool } from 'pg';
export const pool = new Pool();
`,
  'src/mutex.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);

export async function underLock<T>(name: string, body: () => Promise<T>): Promise<T> {
  return redlock.using(['mutex:' + name], 10000, () => body());
}
`,
  'src/tasks.ts': `import { pool } from './db';

export async function sweepCarts(): Promise<void> {
  const { rows } = await pool.query('SELECT id FROM carts WHERE idle');
  await pool.query('UPDATE carts SET state = $1 WHERE id = ANY($2)', ['abandoned', rows.map((r) => r.id)]);
}

export async function rollCoupons(): Promise<void> {
  await pool.query('UPDATE coupons SET batch = batch_next WHERE active');
}

export async function countVisits(): Promise<number> {
  const { rows } = await pool.query('SELECT count(*) AS n FROM visits');
  return Number(rows[0].n);
}

export const warehouse = {
  async restock(): Promise<void> {
    await pool.query('UPDATE shelves SET count = capacity WHERE aisle IS NOT NULL');
  },
};
`,
};

describe('a table of jobs run under each row lock', () => {
  it('reports the writes of the row functions at the call that runs them', async () => {
    current = project({
      ...files,
      'src/nightly.ts': `import { underLock } from './mutex';
import { sweepCarts, rollCoupons, countVisits, warehouse } from './tasks';

interface Nightly {
  title: string;
  mutex: string;
  task: () => Promise<unknown>;
}

const NIGHTLY: Nightly[] = [
  { title: 'carts', mutex: 'carts-sweep', task: sweepCarts },
  { title: 'coupons', mutex: 'coupon-roll', task: rollCoupons },
  { title: 'visits', mutex: 'visit-count', task: countVisits },
  { title: 'shelves', mutex: 'restock', task: () => warehouse.restock() },
];

async function runEach(rows: Nightly[]) {
  for (const row of rows) {
    await underLock(row.mutex, async () => {
      await row.task();
    });
  }
}

export const nightly = () => runEach(NIGHTLY);
`,
    });
    const results = await current.lint('src/nightly.ts');
    const messages = results.get('src/nightly.ts') ?? [];
    expect(findings(messages)).toEqual(['20 fencelint/require-fence-condition']);
    // One finding at the call, naming the first row's write and the others' places.
    expect(messages[0].message).toMatch(/UPDATE carts/);
    expect(messages[0].message).toMatch(/2 more/);
  });

  it('ties nothing when the lock is not taken by a property of the same row', async () => {
    current = project({
      ...files,
      'src/hourly.ts': `import { underLock } from './mutex';
import { sweepCarts, rollCoupons } from './tasks';

const HOURLY = [
  { title: 'carts', mutex: 'carts-sweep', task: sweepCarts },
  { title: 'coupons', mutex: 'coupon-roll', task: rollCoupons },
];

const MIXED = [
  { title: 'carts', mutex: 'carts-sweep', task: sweepCarts },
  { title: 'coupons', task: rollCoupons },
];

export async function hourly(gate: string) {
  for (const row of HOURLY) {
    // The lock is one fixed name, not the row's: the row's function is not tied to it here.
    await underLock(gate, async () => {
      await row.task();
    });
  }
  for (const row of MIXED) {
    // A row that names no lock of its own: the table does not pair its key with its function.
    await underLock(row.mutex ?? gate, async () => {
      await row.task();
    });
  }
}
`,
    });
    const results = await current.lint('src/hourly.ts');
    expect(findings(results.get('src/hourly.ts'))).toEqual([]);
  });
});
