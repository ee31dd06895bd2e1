import rule from '../../../src/rules/no-release-by-name.js';
import { createRuleTester } from '../../rule-tester.js';

// A lock record that the file creates with no expiry is held until someone deletes it: no lease
// lapses, so a delete by its name cannot free a newer holder's lock. Once the creation gives the
// record an end (an expiry field, a time from the clock) or cannot be read, the delete is a
// release by name again.
const ruleTester = createRuleTester();

const mongoose = `import mongoose from 'mongoose';
const PayoutMutex = mongoose.model('PayoutMutex', new mongoose.Schema({ payoutId: String }));
`;

ruleTester.run('no-release-by-name: lock records without an expiry', rule, {
  valid: [
    {
      name: 'a Mongoose mutex document created with its key only, deleted by that key',
      code: `${mongoose}export async function payOnce(payoutId: string, send: () => Promise<void>) {
  if (await PayoutMutex.findOne({ _id: payoutId })) return false;
  await new PayoutMutex({ _id: payoutId }).save();
  try { await send(); } finally { await PayoutMutex.deleteOne({ _id: payoutId }); }
  return true;
}`,
    },
    {
      name: 'a Prisma lock row created with a name and a constant, deleted by name',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function exclusive(name: string, work: () => Promise<void>) {
  await prisma.reportLock.create({ data: { name, purpose: 'export' } });
  try { await work(); } finally { await prisma.reportLock.delete({ where: { name } }); }
}`,
    },
  ],
  invalid: [
    {
      name: 'the same mutex created with an expiry field',
      code: `${mongoose}export async function payOnce(payoutId: string, send: () => Promise<void>) {
  await new PayoutMutex({ _id: payoutId, expiresAt: inAMinute() }).save();
  try { await send(); } finally { await PayoutMutex.deleteOne({ _id: payoutId }); }
}
declare function inAMinute(): Date;`,
      errors: [{ messageId: 'recordRelease', line: 5 }],
    },
    {
      name: 'a lock row stamped with the clock (a TTL index can reap it)',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function exclusive(name: string, work: () => Promise<void>) {
  await prisma.reportLock.create({ data: { name, takenOn: new Date() } });
  try { await work(); } finally { await prisma.reportLock.delete({ where: { name } }); }
}`,
      errors: [{ messageId: 'recordRelease', line: 5 }],
    },
    {
      name: 'a lock record whose fields come from elsewhere',
      code: `${mongoose}export async function payOnce(payoutId: string, extra: object, send: () => Promise<void>) {
  await new PayoutMutex({ _id: payoutId, ...extra }).save();
  try { await send(); } finally { await PayoutMutex.deleteOne({ _id: payoutId }); }
}`,
      errors: [{ messageId: 'recordRelease', line: 5 }],
    },
    {
      name: 'a lock record the file never creates',
      code: `${mongoose}export async function unlockPayout(payoutId: string) {
  await PayoutMutex.deleteOne({ _id: payoutId });
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
  ],
});
