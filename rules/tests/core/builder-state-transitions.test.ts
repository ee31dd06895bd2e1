/**
 * Status moves written as builder chains (also TypeORM's query builder, `andWhere('is_lost = false')`): Drizzle `db.update(t).set({ stage: 'loaded' })
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
import { DataSource } from 'typeorm';
import { Parcel } from './parcel.entity';
const redlock = new Redlock([new Redis()]);
const db = drizzle(process.env.DATABASE_URL!);
const ky = new Kysely<any>({ dialect: new PostgresDialect({} as never) });
const ds = new DataSource({ type: 'postgres' });
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
    await ds.createQueryBuilder().update(Parcel).set({ isLost: true }).where('truck = :truck', { truck }).andWhere('is_lost = false').execute();
    await ds.createQueryBuilder().update(Parcel).set({ stage: 'loaded' }).where('id = :id AND stage = :from', { id: parcelId, from: 'queued' }).execute();
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
    await ds.createQueryBuilder().update(Parcel).set({ isLost: true }).where('id = :id', { id: parcelId }).andWhere('is_lost = true').execute();
  });
}`,
      errors: [unfenced(15), unfenced(16), unfenced(17), unfenced(18), unfenced(19), unfenced(20)],
    },
  ],
});
