/**
 * A write batched in one transaction with an insert that claims a unique key is made by one holder
 * only: a late holder's insert of the same key fails and its transaction takes the write back. The
 * key is unique because the function reads the model with `findUnique` by those fields (Prisma takes
 * only unique keys there). Checked in the array form and the callback form of `$transaction`, and
 * through a service module that a locked caller runs; an insert of another key, one made outside the
 * transaction, or one whose failure is caught stays reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lock = `import Redlock from 'redlock';
import Redis from 'ioredis';
export const redlock = new Redlock([new Redis()]);
`;

const interest = `import { PrismaClient } from '@prisma/client';
const db = new PrismaClient();

export async function postInterest(month: string) {
  const accounts = await db.account.findMany({ where: { open: true } });
  for (const account of accounts) {
    const posted = await db.interestPosting.findUnique({ where: { accountId_month: { accountId: account.id, month } } });
    if (posted) continue;
    const amount = account.balance * account.rate;
    await db.$transaction([
      db.interestPosting.create({ data: { accountId: account.id, month, amount } }),
      db.account.update({ where: { id: account.id }, data: { balance: account.balance + amount } }),
    ]);
  }
}

export async function closeMonth(month: string, ledgerId: string) {
  const done = await db.monthClose.findUnique({ where: { ledgerId_month: { ledgerId, month } } });
  if (done) return;
  await db.$transaction(async (tx) => {
    await tx.monthClose.create({ data: { ledgerId, month, closedAt: new Date() } });
    await tx.ledger.update({ where: { id: ledgerId }, data: { openMonth: null } });
  });
}
`;

describe('a write in one transaction with a unique-key insert', () => {
  it('is not reported through a service a locked caller runs, in the array and the callback form', async () => {
    current = project({
      'src/lock.ts': lock,
      'src/interest.ts': interest,
      'src/jobs.ts': `import { redlock } from './lock';
import { postInterest, closeMonth } from './interest';

export async function monthly(month: string, ledgerId: string) {
  await redlock.using(['interest:' + month], 60000, async () => {
    await postInterest(month);
    await closeMonth(month, ledgerId);
  });
}
`,
    });
    const result = await current.lint('src/jobs.ts', 'src/interest.ts');
    expect(findings(result.get('src/jobs.ts'))).toEqual([]);
    expect(findings(result.get('src/interest.ts'))).toEqual([]);
  });

  it('near miss: an insert by another value, one outside the transaction, or a caught one stays reported', async () => {
    current = project({
      'src/lock.ts': lock,
      'src/jobs.ts': `import { PrismaClient } from '@prisma/client';
import { redlock } from './lock';
const db = new PrismaClient();

export async function monthly(month: string, previous: string, ledgerId: string) {
  await redlock.using(['interest:' + month], 60000, async () => {
    const account = await db.account.findFirstOrThrow({ where: { ledgerId } });
    const posted = await db.interestPosting.findUnique({ where: { accountId_month: { accountId: account.id, month: previous } } });
    if (posted) return;
    await db.$transaction([
      db.interestPosting.create({ data: { accountId: account.id, month, amount: 1 } }),
      db.account.update({ where: { id: account.id }, data: { balance: 0 } }),
    ]);
    const closed = await db.monthClose.findUnique({ where: { ledgerId_month: { ledgerId, month } } });
    if (closed) return;
    await db.monthClose.create({ data: { ledgerId, month } });
    await db.ledger.update({ where: { id: ledgerId }, data: { openMonth: null } });
    await db.$transaction(async (tx) => {
      try {
        await tx.monthClose.create({ data: { ledgerId, month } });
      } catch {
        // already closed
      }
      await tx.ledger.update({ where: { id: ledgerId }, data: { frozen: true } });
    });
  });
}
`,
    });
    const result = await current.lint('src/jobs.ts');
    expect(findings(result.get('src/jobs.ts'))).toEqual(['12 fencelint/require-fence-condition', '17 fencelint/require-fence-condition', '24 fencelint/require-fence-condition']);
  });

  it('near miss: with no findUnique of the model, nothing says the inserted key is unique', async () => {
    current = project({
      'src/lock.ts': lock,
      'src/jobs.ts': `import { PrismaClient } from '@prisma/client';
import { redlock } from './lock';
const db = new PrismaClient();

export async function monthly(month: string, accountId: string) {
  await redlock.using(['interest:' + month], 60000, async () => {
    await db.$transaction([
      db.interestPosting.create({ data: { accountId, month, amount: 1 } }),
      db.account.update({ where: { id: accountId }, data: { balance: 0 } }),
    ]);
  });
}
`,
    });
    const result = await current.lint('src/jobs.ts');
    expect(findings(result.get('src/jobs.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });
});
