/**
 * Idempotent literal markers: an update that stores only constants (a flag raised, a field cleared
 * to null) and is filtered on that field not yet holding the constant it stores. Every holder
 * stores the same constant, only where it is not there yet, so a late one carries no older data.
 * Data stored beside the marker, a computed value, or a filter excluding another constant than the
 * one stored is still a late write.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const alerts = new MongoClient('').db('ops').collection('alerts');
const prisma = new PrismaClient();
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (idempotent literal markers)', fenceRule, {
  valid: [
    {
      name: 'a MongoDB flag raised where not raised, a hook cleared where set, a Prisma flag raised where not',
      code: `${header}export async function acknowledge(alertId: string) {
  await redlock.using(['alert:' + alertId], 5000, async () => {
    await alerts.updateOne({ _id: alertId, acked: { $ne: true } }, { $set: { acked: true } });
    await alerts.updateOne({ _id: alertId, hook: { $ne: null } }, { $set: { hook: null } });
    await prisma.alert.updateMany({ where: { id: alertId, muted: { not: true } }, data: { muted: true } });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'data stored beside the flag, a computed value, another constant excluded, another operator beside',
      code: `${header}export async function misacknowledge(alertId: string, who: string) {
  await redlock.using(['alert:' + alertId], 5000, async () => {
    await alerts.updateOne({ _id: alertId, acked: { $ne: true } }, { $set: { acked: true, ackedBy: who } });
    await alerts.updateOne({ _id: alertId, hook: { $ne: null } }, { $set: { hook: who } });
    await alerts.updateOne({ _id: alertId, level: { $ne: 'low' } }, { $set: { level: 'high' } });
    await alerts.updateOne({ _id: alertId, acked: { $ne: true } }, { $set: { acked: true }, $push: { log: who } });
  });
}`,
      errors: [unfenced(10), unfenced(11), unfenced(12), unfenced(13)],
    },
  ],
});
