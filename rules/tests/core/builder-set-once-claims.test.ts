/**
 * Set-once claims written as builder chains: Drizzle `db.update(t).set({ endsAt: now })
 * .where(and(eq(t.id, id), isNull(t.endsAt)))`, Kysely `.where('ends_at', 'is', null)`. The
 * first writer fills the field and a late one matches nothing. A filter on another field being
 * empty, or a write that empties the field again, is still reported.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { and, eq, isNull } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import { tariffs } from './schema';
const redlock = new Redlock([new Redis()]);
const db = drizzle(process.env.DATABASE_URL!);
const ky = new Kysely<any>({ dialect: new PostgresDialect({} as never) });
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (set-once claims in builder chains)', fenceRule, {
  valid: [
    {
      name: 'Drizzle isNull inside and, isNull alone, Kysely is null',
      code: `${header}export async function closeOut(tariffId: string, endsAt: Date) {
  await redlock.using(['tariffs'], 60000, async () => {
    await db.update(tariffs).set({ endsAt, note: 'superseded' }).where(and(eq(tariffs.id, tariffId), isNull(tariffs.endsAt)));
    await db.update(tariffs).set({ closedBy: 'import' }).where(isNull(tariffs.closedBy));
    await ky.updateTable('tariffs').set({ ends_at: endsAt }).where('id', '=', tariffId).where('ends_at', 'is', null).execute();
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'another field required empty, a field emptied again',
      code: `${header}export async function reopen(tariffId: string, endsAt: Date) {
  await redlock.using(['tariffs'], 60000, async () => {
    await db.update(tariffs).set({ endsAt }).where(and(eq(tariffs.id, tariffId), isNull(tariffs.closedBy)));
    await db.update(tariffs).set({ endsAt: null }).where(isNull(tariffs.endsAt));
  });
}`,
      errors: [unfenced(12), unfenced(13)],
    },
  ],
});
