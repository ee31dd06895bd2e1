/**
 * Rows a transaction claims with `SELECT ... FOR UPDATE SKIP LOCKED` through one repository
 * function and then updates through another, on the same connection and picked by values read
 * off the claimed rows: PostgreSQL keeps those rows locked until the transaction ends, so the
 * update commits while the claim holds, as a write under a transaction advisory lock does. An
 * update on another connection, or of a row the claim did not return, is still a late write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/parcel-store.ts': `import type { Pool, PoolClient } from 'pg';

export async function nextBatch(tx: PoolClient, size: number) {
  const res = await tx.query("SELECT * FROM parcels WHERE state = 'waiting' ORDER BY arrived LIMIT $1 FOR UPDATE SKIP LOCKED", [size]);
  return res.rows;
}

export async function markSorted(tx: PoolClient | Pool, parcelId: string, bin: string) {
  await tx.query('UPDATE parcels SET bin = $2, sorted_at = now() WHERE parcel_id = $1', [parcelId, bin]);
}
`,
  'src/sorter.ts': `import { Pool } from 'pg';
import { markSorted, nextBatch } from './parcel-store';

const pool = new Pool();

export async function sortBatch() {
  const client = await pool.connect();
  await client.query('BEGIN');
  const batch = await nextBatch(client, 20);
  for (const parcel of batch) {
    await markSorted(client, parcel.parcel_id, 'north');
  }
  await client.query('COMMIT');
  client.release();
}

export async function sortElsewhere() {
  const client = await pool.connect();
  await client.query('BEGIN');
  const batch = await nextBatch(client, 20);
  for (const parcel of batch) {
    await markSorted(pool, parcel.parcel_id, 'south');
  }
  await client.query('COMMIT');
  client.release();
}

export async function sortStray(strayId: string) {
  const client = await pool.connect();
  await client.query('BEGIN');
  await nextBatch(client, 20);
  await markSorted(client, strayId, 'east');
  await client.query('COMMIT');
  client.release();
}
`,
  'src/main.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { sortBatch, sortElsewhere, sortStray } from './sorter';

const redlock = new Redlock([new Redis()]);

export async function tick(stray: string) {
  await redlock.using(['sorter'], 5000, async () => {
    await sortBatch();
    await sortElsewhere();
    await sortStray(stray);
  });
}
`,
};

describe('updates of rows the same transaction claimed FOR UPDATE', () => {
  it('the claimed rows, on the claiming connection, are not reported; another connection or another row is', async () => {
    current = project(files);
    const results = await current.lint('src/main.ts');
    expect(findings(results.get('src/main.ts'))).toEqual(['10 fencelint/require-fence-condition', '11 fencelint/require-fence-condition']);
  });
});
