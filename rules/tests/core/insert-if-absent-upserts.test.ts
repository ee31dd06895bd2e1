/**
 * Upserts that only create: Prisma `upsert` with an empty `update`, a MongoDB update made only
 * of `$setOnInsert`. When the row exists they leave it untouched, so under a lock they write over
 * nothing a newer holder stored, like a plain insert. An upsert that also changes the stored row
 * is still a late write.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const shelves = new MongoClient('').db('store').collection('shelves');
const prisma = new PrismaClient();
`;

ruleTester.run('require-fence-condition (insert-if-absent upserts)', fenceRule, {
  valid: [
    {
      name: 'Prisma upsert with update: {} and a MongoDB $setOnInsert upsert',
      code: `${header}export async function openShelf(aisle: string, slot: number) {
  await redlock.using(['aisle:' + aisle], 5000, async () => {
    await prisma.shelf.upsert({ where: { aisle_slot: { aisle, slot } }, update: {}, create: { aisle, slot, items: 0 } });
    await shelves.updateOne({ aisle, slot }, { $setOnInsert: { aisle, slot, items: 0 } }, { upsert: true });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'upserts that also change the stored row',
      code: `${header}export async function openShelf(aisle: string, slot: number) {
  await redlock.using(['aisle:' + aisle], 5000, async () => {
    await prisma.shelf.upsert({ where: { aisle_slot: { aisle, slot } }, update: { items: 0 }, create: { aisle, slot, items: 0 } });
    await shelves.updateOne({ aisle, slot }, { $setOnInsert: { aisle }, $set: { items: 0 } }, { upsert: true });
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 10 },
        { messageId: 'missingFenceNoToken', line: 11 },
      ],
    },
  ],
});
