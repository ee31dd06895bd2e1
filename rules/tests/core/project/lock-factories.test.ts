/**
 * Lock factories: a project function that returns a function running its argument under a lock
 * (`lockFor(resource)` giving `(task) => redlock.using([resource], ttl, () => task())`), or that
 * returns what such a factory returns (`lockOrder(id) => lockFor('order:' + id)`). The call made on
 * the result, `lockOrder(id)(async () => ...)`, is the critical section; calling the factory alone
 * takes nothing. A factory that cannot be read counts by its name (`withLock(key)(...)`).
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
  'src/locking.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);

export function lockFor(resource: string) {
  return <T>(task: (stillHeld: () => void) => Promise<T>) =>
    redlock.using([resource], 8000, (signal) => task(() => signal.throwIfAborted()));
}

export const lockOrder = (orderId: string) => lockFor('order:' + orderId);

export function labelFor(resource: string) {
  return (text: string) => resource + ':' + text;
}
`,
};

describe('a lock factory', () => {
  it('makes the call on its result a critical section, directly or through another factory', async () => {
    current = project({
      ...files,
      'src/orders.ts': `import { lockFor, lockOrder, labelFor } from './locking';
import { pool } from './db';

export async function ship(orderId: string) {
  await lockOrder(orderId)(async () => {
    await pool.query('UPDATE orders SET state = $1 WHERE id = $2', ['shipped', orderId]);
  });
}

export async function recount(shelf: string, total: number) {
  return lockFor('shelf:' + shelf)(async () => {
    await pool.query('UPDATE shelves SET total = $1 WHERE id = $2', [total, shelf]);
  });
}

export async function rename(shelf: string, name: string) {
  const label = labelFor(shelf);
  const run = lockFor('shelf:' + shelf);
  await pool.query('UPDATE shelves SET name = $1 WHERE id = $2', [label(name), shelf]);
  return run;
}
`,
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual(['6 fencelint/require-fence-condition', '12 fencelint/require-fence-condition']);
  });

  it('counts by its name when it comes from a package', async () => {
    current = project({
      ...files,
      'src/stock.ts': `import { withLock } from 'lock-kit';
import { pool } from './db';

export async function restock(sku: string, count: number) {
  await withLock('sku:' + sku)(async () => {
    await pool.query('UPDATE stock SET count = $1 WHERE sku = $2', [count, sku]);
  });
}

export async function price(sku: string, cents: number) {
  await makeFormatter('sku')(cents);
  await pool.query('UPDATE stock SET cents = $1 WHERE sku = $2', [cents, sku]);
}

function makeFormatter(prefix: string) {
  return async (n: number) => prefix + n;
}
`,
    });
    const results = await current.lint('src/stock.ts');
    expect(findings(results.get('src/stock.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
