/**
 * Status moves written as builder chains: Drizzle `db.update(t).set({ stage: 'loaded' })
 * .where(and(eq(t.id, id), eq(t.stage, 'queued')))` (also `inArray`), Kysely `.set({ stage: 'loaded' })
 * .where('stage', '=', 'queued')`. The chain holds the row to the status it leaves, so a late write
 * matches nothing; an `or(...)`, an exclusion (`ne`), a target the filter admits or a computed one
 * is still reported.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { and, eq, inArray, ne, or } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import { parcels } from './schema';
const redlock = new Redlock([new Redis()]);
const db = drizzle(process.env.DATABASE_URL!);
const ky = new Kysely<any>({ dialect: new PostgresDialect({} as never) });
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (status moves in builder chains)', fenceRule, {
  valid: [
    {
      name: 'Drizzle eq inside and, inArray, eq alone; Kysely = and in',
      code: `${header}export async function load(parcelId: string, truck: string) {
  await redlock.using(['parcel:' + parcelId], 5000, async () => {
    await db.update(parcels).set({ stage: 'loaded', truck }).where(and(eq(parcels.id, parcelId), eq(parcels.stage, 'queued')));
    await db.update(parcels).set({ stage: 'lost', lostReason: 'timeout' }).where(and(eq(parcels.id, parcelId), inArray(parcels.stage, ['queued', 'loaded'])));
    await db.update(parcels).set({ stage: 'expired' }).where(eq(parcels.stage, 'queued'));
    await ky.updateTable('parcels').set({ stage: 'loaded', truck }).where('id', '=', parcelId).where('stage', '=', 'queued').execute();
    await ky.updateTable('parcels').set({ stage: 'lost' }).where('stage', 'in', ['queued', 'loaded']).execute();
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'an or, an exclusion, a target the filter admits, a computed target',
      code: `${header}export async function misload(parcelId: string, next: string) {
  await redlock.using(['parcel:' + parcelId], 5000, async () => {
    await db.update(parcels).set({ stage: 'lost' }).where(or(eq(parcels.id, parcelId), eq(parcels.stage, 'queued')));
    await db.update(parcels).set({ stage: 'lost' }).where(and(eq(parcels.id, parcelId), ne(parcels.stage, 'gone')));
    await db.update(parcels).set({ stage: 'loaded' }).where(and(eq(parcels.id, parcelId), inArray(parcels.stage, ['queued', 'loaded'])));
    await db.update(parcels).set({ stage: next }).where(and(eq(parcels.id, parcelId), eq(parcels.stage, 'queued')));
    await ky.updateTable('parcels').set({ stage: next }).where('stage', '=', 'queued').execute();
  });
}`,
      errors: [unfenced(12), unfenced(13), unfenced(14), unfenced(15), unfenced(16)],
    },
  ],
});
