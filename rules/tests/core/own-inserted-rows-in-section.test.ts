/**
 * Rows a critical section has just inserted belong to its holder: no other holder knows their ids
 * yet, so a write made right there in the section that picks them by the ids the insert handed back
 * (an update by `row.id`, a clean-up delete of the rows when a later step fails) is no late write.
 * Supabase hands inserted rows back in `{ data }` after `.select()`, and picks a list with `.in()`.
 * A write of any other row in the same section stays reported.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { PrismaClient } from '@prisma/client';
import { createClient } from '@supabase/supabase-js';
const redlock = new Redlock([new Redis()]);
const prisma = new PrismaClient();
const store = createClient(process.env.STORE_URL!, process.env.STORE_KEY!);
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line, suggestions: [] });

ruleTester.run('require-fence-condition (rows the section inserted)', fenceRule, {
  valid: [
    {
      name: 'a Prisma row created in the section, then updated by the id create returned',
      code: `${header}export async function openTicket(queue: string, title: string) {
  return redlock.using(['queue:' + queue], 4000, async () => {
    const ticket = await prisma.ticket.create({ data: { queue, title, state: 'draft' } });
    await prisma.ticket.update({ where: { id: ticket.id }, data: { state: 'open' } });
    return ticket;
  });
}`,
    },
    {
      name: 'Supabase rows inserted with .select(), removed again by their ids when the next insert fails',
      code: `${header}export async function importParcels(depot: string, parcels: Array<{ label: string; weight: number }>) {
  return redlock.using(['depot:' + depot], 4000, async () => {
    const { data: made, error } = await store.from('parcels').insert(parcels.map((p) => ({ ...p, depot }))).select();
    if (error || !made) throw new Error('insert failed');
    const parcelIds = made.map((p) => p.id);
    const { error: tagError } = await store.from('parcel_tags').insert(parcelIds.map((id) => ({ parcel_id: id, tag: 'new' })));
    if (tagError) {
      await store.from('parcels').delete().in('id', parcelIds);
      throw tagError;
    }
    return made;
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'near miss: the same section also writes a row nobody inserted there, and deletes by ids handed in',
      code: `${header}export async function importParcelsAndTouch(depot: string, parcels: Array<{ label: string }>, stale: string[]) {
  return redlock.using(['depot:' + depot], 4000, async () => {
    const { data: made } = await store.from('parcels').insert(parcels).select();
    const parcelIds = (made ?? []).map((p) => p.id);
    await store.from('parcels').delete().in('id', stale);
    await store.from('depots').update({ parcel_count: parcelIds.length }).eq('id', depot);
  });
}`,
      errors: [unfenced(12), unfenced(13)],
    },
    {
      name: 'near miss: rows an upsert hands back may be another holder\'s; so is the row of another record key',
      code: `${header}export async function mergeParcels(depot: string, parcels: Array<{ label: string }>) {
  return redlock.using(['depot:' + depot], 4000, async () => {
    const { data: merged } = await store.from('parcels').upsert(parcels).select();
    await store.from('parcels').update({ depot }).in('id', (merged ?? []).map((p) => p.id));
    const ticket = await prisma.ticket.create({ data: { queue: depot, title: 'import' } });
    await prisma.queue.update({ where: { id: ticket.queueId }, data: { busy: true } });
  });
}`,
      errors: [unfenced(10), unfenced(11), unfenced(13)],
    },
  ],
});
