/**
 * Drizzle upserts: `db.insert(t).values(row).onConflictDoUpdate({ target, set })` writes over the
 * stored row on conflict, so under a lock it is a write like an update; its `setWhere` (or
 * `where`) is the write's condition, and a token compared there and stored in `set` fences it.
 * `onConflictDoNothing` and a plain insert overwrite nothing.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { lt } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { rates } from './schema';
const redis = new Redis();
const redlock = new Redlock([redis]);
const db = drizzle(process.env.DATABASE_URL!);
`;

ruleTester.run('require-fence-condition (Drizzle upserts)', fenceRule, {
  valid: [
    {
      name: 'a token compared in setWhere and stored in set; onConflictDoNothing; a plain insert',
      code: `${header}export async function importRates(lane: string, price: number) {
  await redlock.using(['rates:' + lane], 60000, async () => {
    const fenceToken = await redis.incr('rates:' + lane + ':fence');
    await db.insert(rates).values({ lane, price, fenceToken }).onConflictDoUpdate({ target: rates.lane, set: { price, fenceToken }, setWhere: lt(rates.fenceToken, fenceToken) });
    await db.insert(rates).values({ lane, price }).onConflictDoNothing();
    await db.insert(rates).values({ lane, price });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'an upsert that overwrites the stored row on conflict, with and without returning()',
      code: `${header}export async function importRates(lane: string, price: number) {
  await redlock.using(['rates:' + lane], 60000, async () => {
    await db.insert(rates).values({ lane, price }).onConflictDoUpdate({ target: rates.lane, set: { price } });
    const [row] = await db.insert(rates).values({ lane, price }).onConflictDoUpdate({ target: rates.lane, set: { price } }).returning();
    return row;
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 11 }, { messageId: 'missingFenceNoToken', line: 12 }],
    },
  ],
});
