/**
 * A transaction callback whose first step reads its row `FOR UPDATE` in SQL text sent on the
 * transaction (Prisma `tx.$queryRawUnsafe('SELECT ... FOR UPDATE', id)`, `` tx.$queryRaw`...` ``):
 * the row lock is held until the callback commits, so the writes made on that transaction after
 * it land before the next holder, blocked on the same row, reads it. A first read without
 * `FOR UPDATE`, or SQL sent on another client, locks nothing for the callback.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const section = (read: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const prisma = new PrismaClient();
export async function chargeFees(ids: string[]) {
  await redlock.using(['late-fees'], 60000, async () => {
    for (const id of ids) {
      await prisma.$transaction(async (tx) => {
        const [row] = await ${read};
        if (!row || row.fee_at) return;
        await tx.bill.update({ where: { id }, data: { fee: 5, feeAt: new Date() } });
      });
    }
  });
}`;

ruleTester.run('require-fence-condition (raw FOR UPDATE first in a transaction callback)', rule, {
  valid: [
    { name: '$queryRawUnsafe with FOR UPDATE', code: section("tx.$queryRawUnsafe<{ fee_at: Date | null }[]>('SELECT fee_at FROM bills WHERE id = $1 FOR UPDATE', id)") },
    { name: 'a $queryRaw tagged template with FOR NO KEY UPDATE', code: section('tx.$queryRaw<{ fee_at: Date | null }[]>`SELECT fee_at FROM bills WHERE id = ${id} FOR NO KEY UPDATE`') },
  ],
  invalid: [
    {
      name: 'a first read that locks nothing',
      code: section("tx.$queryRawUnsafe<{ fee_at: Date | null }[]>('SELECT fee_at FROM bills WHERE id = $1', id)"),
      errors: [{ messageId: 'missingFenceNoToken', line: 12 }],
    },
    {
      name: 'the FOR UPDATE read sent on the client, outside the transaction',
      code: section("prisma.$queryRawUnsafe<{ fee_at: Date | null }[]>('SELECT fee_at FROM bills WHERE id = $1 FOR UPDATE', id)"),
      errors: [{ messageId: 'missingFenceNoToken', line: 12 }],
    },
  ],
});
