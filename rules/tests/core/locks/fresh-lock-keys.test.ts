/**
 * A lock keyed by a value the function has just made (a random or time-ordered id from a library,
 * a project helper named as an id generator, the id of a record it has just created) has no other
 * holder: nobody else can name the key, so the writes under it are not late writes. A key built only
 * from arguments, a constant, or an id read from elsewhere is contended and its writes still count.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { v4 as uuidv4 } from 'uuid';
import { PrismaClient } from '@prisma/client';
import { genTicketId } from './ids';
const redlock = new Redlock([new Redis()]);
const prisma = new PrismaClient();
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (locks keyed by a fresh value)', fenceRule, {
  valid: [
    {
      name: 'randomUUID through a const and a template, a uuid import, the global crypto, a project id generator, a new record id',
      code: `${header}export async function issue(desk: string) {
  const runId = randomUUID();
  const key = \`issue:\${desk}:\${runId}\`;
  await redlock.using([key], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { busy: true } });
  });
  await redlock.using(['issue:' + uuidv4()], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { busy: false } });
  });
  await redlock.using(['issue:' + globalThis.crypto.randomUUID()], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { busy: false } });
  });
  const ticketId = genTicketId();
  const lock = await redlock.acquire([\`ticket:\${ticketId}\`], 5000);
  await prisma.ticket.upsert({ where: { id: ticketId }, create: { id: ticketId, desk }, update: { desk } });
  await lock.release();
}`,
    },
  ],
  invalid: [
    {
      name: 'a key of arguments only, a constant key, one fresh key beside a shared one',
      code: `${header}export async function misissue(desk: string, ticketId: string) {
  await redlock.using([\`issue:\${desk}:\${ticketId}\`], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { busy: true } });
  });
  await redlock.using(['issue'], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { busy: false } });
  });
  await redlock.using(['issue:' + randomUUID(), 'desk:' + desk], 5000, async () => {
    await prisma.desk.update({ where: { id: desk }, data: { open: true } });
  });
}`,
      errors: [unfenced(11), unfenced(14), unfenced(17)],
    },
  ],
});
