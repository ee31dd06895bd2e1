/**
 * Transaction-scoped advisory locks taken on a transaction handed in: a helper typed
 * `(tx: Prisma.TransactionClient, ...)` that runs `tx.$queryRaw\`SELECT pg_advisory_xact_lock(...)\``,
 * its caller's writes on that same `tx` after the call, and a same-file helper that several
 * locked transactions call with their own `tx`. Each write commits in the lock's transaction, so
 * none can land after the lock is gone; the same writes through the pool still can.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const arrivals = `import { Prisma } from '@prisma/client';

export async function markArrived(tx: Prisma.TransactionClient, visitId: string) {
  await tx.$queryRaw<{ held: string | null }[]>\`SELECT pg_advisory_xact_lock(hashtext(\${'visit:' + visitId}))::text AS held\`;
  const visit = await tx.visit.findUnique({ where: { id: visitId } });
  if (!visit) throw new Error('no such visit');
  await tx.visit.update({ where: { id: visitId }, data: { arrivedAt: new Date() } });
  return visit;
}

export async function markArrivedOnPool(db: Prisma.DefaultPrismaClient, visitId: string) {
  await db.$queryRaw\`SELECT pg_advisory_xact_lock(hashtext(\${'visit:' + visitId}))\`;
  await db.visit.update({ where: { id: visitId }, data: { arrivedAt: new Date() } });
}
`;

const desk = (write: string) => `import { PrismaClient } from '@prisma/client';
import { markArrived } from './arrivals';

const prisma = new PrismaClient();

export async function checkIn(visitId: string, bay: string) {
  return prisma.$transaction(async (tx) => {
    const visit = await markArrived(tx, visitId);
    if (visit.bay !== bay) {
      await ${write}.visit.update({ where: { id: visitId }, data: { bay } });
    }
    return visit;
  });
}
`;

const estimates = (handed: string) => `import { Prisma, PrismaClient } from '@prisma/client';

type Tx = Prisma.TransactionClient;
const prisma = new PrismaClient();

async function refreshEstimate(tx: Tx, orderId: string, options: { send?: boolean } = {}) {
  const current = await tx.estimate.findFirst({ where: { orderId } });
  if (current && options.send) {
    await tx.estimate.update({ where: { id: current.id }, data: { status: 'SENT' } });
  }
  return current;
}

export async function sendEstimate(orderId: string) {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw\`SELECT pg_advisory_xact_lock(hashtext(\${'order:' + orderId}))\`;
    return refreshEstimate(${handed}, orderId, { send: true });
  });
}

export async function approveEstimate(orderId: string) {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw\`SELECT pg_advisory_xact_lock(hashtext(\${'order:' + orderId}))\`;
    await refreshEstimate(tx, orderId);
    await tx.order.update({ where: { id: orderId }, data: { approved: true } });
  });
}

export function previewEstimate(orderId: string) {
  return refreshEstimate(prisma, orderId);
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('an xact advisory lock on a transaction handed in', () => {
  it('holds for the helper\'s own write on its transaction parameter, not for one on a pool parameter', async () => {
    current = project({ 'src/arrivals.ts': arrivals });
    const results = await current.lint('src/arrivals.ts');
    expect(findings(results.get('src/arrivals.ts'))).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('holds for the caller\'s writes on the transaction it handed the helper', async () => {
    current = project({ 'src/arrivals.ts': arrivals, 'src/desk.ts': desk('tx') });
    const results = await current.lint('src/desk.ts');
    expect(findings(results.get('src/desk.ts'))).toEqual([]);
  });

  it('does not hold for the caller\'s writes through the pool', async () => {
    current = project({ 'src/arrivals.ts': arrivals, 'src/desk.ts': desk('prisma') });
    const results = await current.lint('src/desk.ts');
    expect(findings(results.get('src/desk.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('holds for a shared helper\'s write when each locked transaction hands it its own tx', async () => {
    current = project({ 'src/estimates.ts': estimates('tx') });
    const results = await current.lint('src/estimates.ts');
    expect(findings(results.get('src/estimates.ts'))).toEqual([]);
  });

  it('does not hold when a section hands the shared helper the pool instead', async () => {
    current = project({ 'src/estimates.ts': estimates('prisma') });
    const results = await current.lint('src/estimates.ts');
    expect(findings(results.get('src/estimates.ts'))).toEqual(['17 fencelint/require-fence-condition']);
  });
});
