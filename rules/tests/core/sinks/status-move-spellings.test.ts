/**
 * Status moves guarded by the states they leave, spelled other ways: the never-moved state
 * (`null`) among the states left, an `$or`/`OR` of equalities on the one status field (the same
 * filter as an `$in` of their constants), and a MongoDB update written as a one-stage pipeline
 * (`[{ $set: {...} }]`). A late holder's move matches nothing once a newer holder moved the
 * record on, and the writes after the claim, where it matched, are the claim owner's.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
import mongoose from 'mongoose';
const Refund = mongoose.model('Refund', new mongoose.Schema({ state: String, reason: String }));
const redlock = new Redlock([new Redis()]);
const invoices = new MongoClient('').db('billing').collection('invoices');
const prisma = new PrismaClient();
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (status moves, other spellings)', fenceRule, {
  valid: [
    {
      name: 'null among the $in states, an $or of equalities, a Prisma OR, and a one-stage pipeline',
      code: `${header}export async function dun(invoiceId: string, note: string) {
  await redlock.using(['invoice:' + invoiceId], 5000, async () => {
    await invoices.updateOne({ _id: invoiceId, dunning: { $in: [null, 'failed'] } }, { $set: { dunning: 'sending', note } });
    await invoices.updateOne({ _id: invoiceId, $or: [{ dunning: 'new' }, { dunning: 'failed' }] }, { $set: { dunning: 'sending' } });
    await prisma.invoice.updateMany({ where: { id: invoiceId, OR: [{ dunning: null }, { dunning: 'failed' }] }, data: { dunning: 'sending', note } });
    await invoices.findOneAndUpdate({ _id: invoiceId, $or: [{ dunning: null }, { dunning: 'failed' }] }, [{ $set: { dunning: 'sending', note } }], { returnDocument: 'after' });
  });
}`,
    },
    {
      name: 'the owner of a claim writes the record by its id after it matched',
      code: `${header}export async function refund(id: string, reason: string) {
  await redlock.using(['refund-sweeper'], 60000, async () => {
    const claimed = await Refund.findOneAndUpdate({ _id: id, $or: [{ state: null }, { state: 'failed' }] }, [{ $set: { state: 'pending', reason } }], { new: true });
    if (!claimed) return;
    await Refund.findByIdAndUpdate(id, { $set: { state: 'done' } });
  });
}`,
    },
    {
      name: 'the owner of the pipeline claim writes the record after it matched',
      code: `${header}export async function sweep(ids: string[]) {
  await redlock.using(['invoice-sweeper'], 60000, async () => {
    for (const id of ids) {
      const mine = await invoices.findOneAndUpdate({ _id: id, $or: [{ dunning: null }, { dunning: 'failed' }] }, [{ $set: { dunning: 'sending' } }]);
      if (!mine) continue;
      await invoices.updateOne({ _id: id }, { $set: { dunning: 'sent', sentAt: new Date() } });
    }
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'an $or over two fields, a branch that only excludes, a target among the states left, a longer pipeline',
      code: `${header}export async function misdun(invoiceId: string, next: string) {
  await redlock.using(['invoice:' + invoiceId], 5000, async () => {
    await invoices.updateOne({ _id: invoiceId, $or: [{ dunning: 'new' }, { owner: 'billing' }] }, { $set: { dunning: 'sending' } });
    await invoices.updateOne({ _id: invoiceId, $or: [{ dunning: 'new' }, { dunning: { $ne: 'sent' } }] }, { $set: { dunning: 'sending' } });
    await invoices.updateOne({ _id: invoiceId, dunning: { $in: [null, 'sending'] } }, { $set: { dunning: 'sending' } });
    await invoices.updateOne({ _id: invoiceId, dunning: 'new' }, [{ $set: { dunning: 'sending' } }, { $set: { note: next } }]);
  });
}`,
      errors: [unfenced(12), unfenced(13), unfenced(14), unfenced(15)],
    },
    {
      name: 'a write by another id after the claim matched is no write of the claimed record',
      code: `${header}export async function refundOther(id: string, otherId: string) {
  await redlock.using(['refund-sweeper'], 60000, async () => {
    const claimed = await Refund.findOneAndUpdate({ _id: id, state: 'failed' }, { $set: { state: 'pending' } });
    if (!claimed) return;
    await Refund.findByIdAndUpdate(otherId, { $set: { state: 'done' } });
  });
}`,
      errors: [unfenced(14)],
    },
  ],
});
