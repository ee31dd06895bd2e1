/**
 * A store whose unit of work hands the callback the store itself, bound to a transaction
 * (`runInTransaction(id, fn)` running `fn(this, tx)`): the callback's parameter is that store,
 * so its writes are followed like the store's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const store = (handOver: string) => `import { PrismaClient } from '@prisma/client';

const prisma = new PrismaClient();

export class InvoiceStore {
  async inTransaction<T>(invoiceId: string, fn: (store: InvoiceStore, tx: unknown) => Promise<T>): Promise<T> {
    return prisma.$transaction((tx) => ${handOver});
  }

  async markPaid(invoiceId: string) {
    return prisma.invoice.update({ where: { id: invoiceId }, data: { paid: true } });
  }
}
`;

const billing = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { InvoiceStore } from './store';

const redlock = new Redlock([new Redis()]);

export class Billing {
  constructor(private readonly invoices: InvoiceStore) {}

  async settle(invoiceId: string) {
    await redlock.using(['invoice:' + invoiceId], 5000, async () => {
      await this.invoices.inTransaction(invoiceId, async (store) => {
        await store.markPaid(invoiceId);
      });
    });
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a unit of work that hands the callback its own store', () => {
  it('the store the callback receives writes under the caller\'s lock', async () => {
    current = project({ 'store.ts': store('fn(this, tx)'), 'billing.ts': billing });
    const results = await current.lint('billing.ts');
    expect(findings(results.get('billing.ts'))).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('a callback handed something else is not read as the store', async () => {
    current = project({ 'store.ts': store('fn(new InvoiceStore(), tx)'), 'billing.ts': billing });
    const results = await current.lint('billing.ts');
    expect(findings(results.get('billing.ts'))).toEqual([]);
  });
});
