/**
 * Optimistic compare-and-set on read state: a write whose filter compares a field with the value
 * the holder read from the record, and that moves the same field. Any newer holder that moved the
 * field makes the late write match nothing, as a version column would. A filter on a field the
 * write leaves alone, or on a constant, stops no late write.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const bins = new MongoClient('').db('depot').collection('bins');
const prisma = new PrismaClient();
`;

ruleTester.run('require-fence-condition (compare-and-set on read state)', fenceRule, {
  valid: [
    {
      name: 'Prisma updateMany and MongoDB updateOne filtered on the count they read and move',
      code: `${header}export async function pick(binId: string, n: number) {
  await redlock.using(['bin:' + binId], 5000, async () => {
    const bin = await prisma.bin.findUniqueOrThrow({ where: { id: binId } });
    await prisma.bin.updateMany({ where: { id: bin.id, units: bin.units }, data: { units: { decrement: n }, pickedAt: new Date() } });
    const doc = await bins.findOne({ _id: binId });
    await bins.updateOne({ _id: binId, units: doc!.units }, { $inc: { units: -n }, $set: { pickedAt: new Date() } });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a read value compared on a field the write leaves alone, and a field compared with a constant',
      code: `${header}export async function relabel(binId: string, label: string) {
  await redlock.using(['bin:' + binId], 5000, async () => {
    const bin = await prisma.bin.findUniqueOrThrow({ where: { id: binId } });
    await prisma.bin.updateMany({ where: { id: bin.id, units: bin.units }, data: { label } });
    await prisma.bin.updateMany({ where: { id: bin.id, units: 0 }, data: { units: { increment: 1 }, label } });
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 11 },
        { messageId: 'missingFenceNoToken', line: 12 },
      ],
    },
  ],
});
