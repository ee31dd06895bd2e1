/**
 * Status moves guarded by the status they leave: under a lock, a write that sets a status to a
 * constant only while the row still holds one of the constants it moves from. A newer holder that
 * moved the row on left it where the late write no longer matches, so nothing is overwritten. A
 * filter that only excludes states, a target the filter still admits, or a status computed from a
 * value is still a late write.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const pool = new Pool();
const parcels = new MongoClient('').db('depot').collection('parcels');
const prisma = new PrismaClient();
enum Stage { Queued = 'queued', Loaded = 'loaded' }
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (status moves guarded by the status they leave)', fenceRule, {
  valid: [
    {
      name: 'Prisma in-list and constant, MongoDB $in with $set, an enum member, SQL = and IN',
      code: `${header}export async function load(parcelId: string, truck: string) {
  await redlock.using(['parcel:' + parcelId], 5000, async () => {
    await prisma.parcel.updateMany({ where: { id: parcelId, stage: { in: ['queued', 'weighed'] } }, data: { stage: 'loaded', truck } });
    await prisma.parcel.update({ where: { id: parcelId, stage: 'loaded' }, data: { stage: 'gone' } });
    await parcels.updateOne({ _id: parcelId, stage: { $in: ['queued'] } }, { $set: { stage: 'loaded', truck } });
    await prisma.parcel.updateMany({ where: { id: parcelId, stage: Stage.Queued }, data: { stage: Stage.Loaded } });
    await pool.query("UPDATE parcels SET stage = 'loaded', truck = $1 WHERE id = $2 AND stage = 'queued'", [truck, parcelId]);
    await pool.query("UPDATE parcels SET on_shelf = false WHERE shelf = $1 AND on_shelf = true", [truck]);
    await pool.query("UPDATE parcels SET stage = 'lost' WHERE id = $1 AND stage IN ('queued', 'loaded')", [parcelId]);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a filter that only excludes, a target the filter admits, a computed target, another field tested',
      code: `${header}export async function misload(parcelId: string, next: string) {
  await redlock.using(['parcel:' + parcelId], 5000, async () => {
    await prisma.parcel.updateMany({ where: { id: parcelId, stage: { notIn: ['gone', 'lost'] } }, data: { stage: 'lost' } });
    await prisma.parcel.updateMany({ where: { id: parcelId, stage: { in: ['queued', 'loaded'] } }, data: { stage: 'loaded' } });
    await parcels.updateOne({ _id: parcelId, stage: 'queued' }, { $set: { stage: next } });
    await prisma.parcel.update({ where: { id: parcelId, truck: 'north' }, data: { stage: 'loaded' } });
    await pool.query("UPDATE parcels SET stage = 'lost' WHERE id = $1 AND stage <> 'gone'", [parcelId]);
    await pool.query("UPDATE parcels SET stage = $2 WHERE id = $1 AND stage = 'queued'", [parcelId, next]);
  });
}`,
      errors: [unfenced(13), unfenced(14), unfenced(15), unfenced(16), unfenced(17), unfenced(18)],
    },
  ],
});
