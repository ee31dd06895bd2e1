/**
 * A section that opens a transaction callback (`dataSource.transaction(async (m) => ...)`) whose
 * first step reads its row for writing on that transaction (`lock: { mode: 'pessimistic_write' }`):
 * the writes made on the same transaction after it, itself or through a helper handed it, commit
 * under the row lock, so the next holder reads only after them. A write through another connection,
 * or after a first read that locks nothing, is still reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const purge = `import { EntityManager } from 'typeorm';
import { InvoiceLine } from './entities';

export async function purgeLines(invoiceId: string, m: EntityManager) {
  await m.delete(InvoiceLine, { invoiceId });
}
`;

const entities = `import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity()
export class Invoice {
  @PrimaryColumn() id!: string;
  @Column() state!: string;
  @Column() note!: string;
}

@Entity()
export class InvoiceLine {
  @PrimaryColumn() id!: string;
  @Column() invoiceId!: string;
}
`;

const voiding = (firstRead: string) => `import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Invoice } from './entities';
import { purgeLines } from './purge';

const redis = new Redis();
const ds = new DataSource({ type: 'postgres' });
const invoices = ds.getRepository(Invoice);

export async function voidInvoice(id: string) {
  if ((await redis.set('lock:invoice:' + id, '1', 'PX', 30000, 'NX')) !== 'OK') return;
  try {
    await ds.transaction(async (m) => {
      const invoice = await m.findOne(Invoice, ${firstRead});
      if (!invoice || invoice.state !== 'open') return;
      await m.update(Invoice, { id }, { state: 'void' });
      await purgeLines(id, m);
      await invoices.update({ id }, { note: 'voided' });
    });
  } finally {
    await redis.del('lock:invoice:' + id);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe("a row read for writing as a transaction callback's first step", () => {
  it('holds the writes on that transaction, not the one through another connection', async () => {
    current = project({ 'src/entities.ts': entities, 'src/purge.ts': purge, 'src/void.ts': voiding("{ where: { id }, lock: { mode: 'pessimistic_write' } }") });
    const results = await current.lint('src/void.ts');
    expect(findings(results.get('src/void.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual(['18 fencelint/require-fence-condition']);
  });

  it('holds nothing when the first read locks nothing', async () => {
    current = project({ 'src/entities.ts': entities, 'src/purge.ts': purge, 'src/void.ts': voiding('{ where: { id } }') });
    const results = await current.lint('src/void.ts');
    expect(findings(results.get('src/void.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual([
      '16 fencelint/require-fence-condition',
      '17 fencelint/require-fence-condition',
      '18 fencelint/require-fence-condition',
    ]);
  });

  it('holds them too when the transaction is opened by a helper the locked callback runs', async () => {
    const helper = `import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Invoice } from './entities';
import { purgeLines } from './purge';

const redis = new Redis();
const ds = new DataSource({ type: 'postgres' });

async function voidLocked(id: string) {
  await ds.transaction(async (m) => {
    const invoice = await m.findOne(Invoice, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!invoice) return;
    await purgeLines(id, m);
  });
}

export async function voidInvoice(id: string) {
  if ((await redis.set('lock:invoice:' + id, '1', 'PX', 30000, 'NX')) !== 'OK') return;
  try {
    await voidLocked(id);
  } finally {
    await redis.del('lock:invoice:' + id);
  }
}
`;
    current = project({ 'src/entities.ts': entities, 'src/purge.ts': purge, 'src/void.ts': helper });
    const results = await current.lint('src/void.ts');
    expect(findings(results.get('src/void.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual([]);
    current.remove();
    current = project({ 'src/entities.ts': entities, 'src/purge.ts': purge, 'src/void.ts': helper.replace(", lock: { mode: 'pessimistic_write' }", '') });
    const unlocked = await current.lint('src/void.ts');
    expect(findings(unlocked.get('src/void.ts')).filter((f) => f.endsWith('require-fence-condition'))).not.toEqual([]);
  });

  it('holds for a helper in another module whose transaction re-reads its row FOR UPDATE in raw SQL', async () => {
    const fees = (forUpdate: string) => `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();

export async function chargeLateFees(ids: string[]) {
  for (const id of ids) {
    await prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<{ fee_at: Date | null }[]>('SELECT fee_at FROM bills WHERE id = $1${forUpdate}', id);
      if (!row || row.fee_at) return;
      await tx.bill.update({ where: { id }, data: { fee: 5, feeAt: new Date() } });
    });
  }
}
`;
    const cron = `import Redis from 'ioredis';
import { chargeLateFees } from './fees';

const redis = new Redis();

export async function nightly(ids: string[]) {
  if ((await redis.set('lock:late-fees', '1', 'PX', 600000, 'NX')) !== 'OK') return;
  try {
    await chargeLateFees(ids);
  } finally {
    await redis.del('lock:late-fees');
  }
}
`;
    current = project({ 'src/fees.ts': fees(' FOR UPDATE'), 'src/cron.ts': cron });
    const results = await current.lint('src/cron.ts');
    expect(findings(results.get('src/cron.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual([]);
    current.remove();
    current = project({ 'src/fees.ts': fees(''), 'src/cron.ts': cron });
    const unlocked = await current.lint('src/cron.ts');
    expect(findings(unlocked.get('src/cron.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual(['9 fencelint/require-fence-condition']);
  });
});
