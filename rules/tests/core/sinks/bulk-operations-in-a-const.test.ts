/**
 * A MongoDB `bulkWrite` handed a list the function built before the call: a mapped list kept in a
 * `const`, or an array declared empty and filled by `push` in a loop. Its operations are judged as
 * if written inline; a list that is passed in, or filled with values of unknown shape, is not read.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import mongoose from 'mongoose';
import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
const Track = mongoose.model('Track', new mongoose.Schema({ title: String, plays: Number }));
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (bulkWrite operations kept in a const)', rule, {
  valid: [
    {
      name: 'a list passed in, a pushed value of unknown shape, and pushed inserts',
      code: `${header}export async function sync(batch: any[], items: Array<{ id: string; title: string }>, made: () => object) {
  await redlock.using(['tracks'], 10000, async () => {
    await Track.bulkWrite(batch);
    const unknown = [];
    for (const item of items) unknown.push(made());
    await Track.bulkWrite(unknown);
    const fresh = [];
    for (const item of items) fresh.push({ insertOne: { document: { _id: item.id, title: item.title } } });
    await Track.bulkWrite(fresh);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a mapped list in a const, and an array filled by push in a loop',
      code: `${header}export async function sync(items: Array<{ id: string; title: string }>) {
  await redlock.using(['tracks'], 10000, async () => {
    const renames = items.map((i) => ({ updateOne: { filter: { _id: i.id }, update: { $set: { title: i.title } }, upsert: true } }));
    await Track.bulkWrite(renames, { ordered: false });
    const resets = [];
    for (const item of items) {
      resets.push({ updateOne: { filter: { _id: item.id }, update: { $set: { plays: 0 } } } });
    }
    await Track.bulkWrite(resets);
  });
}`,
      errors: [unfenced(9), unfenced(14)],
    },
  ],
});
