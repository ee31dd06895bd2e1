/**
 * The latest version of a record read and its id compared with the caller's under a lock, then
 * the write made through a store in another module: the check and the write are two steps, and
 * the write carries no fence. Both are reported at the call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const store = `import { PrismaClient } from '@prisma/client';

const prisma = new PrismaClient();

export class OrderStore {
  async latestCheckpoint(orderId: string) {
    return prisma.checkpoint.findFirst({ where: { orderId }, orderBy: { createdAt: 'desc' } });
  }

  async markShipped(orderId: string, carrier: string) {
    return prisma.order.update({ where: { id: orderId }, data: { status: 'SHIPPED', carrier } });
  }
}
`;

const system = (check: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
import { OrderStore } from './store';

const redlock = new Redlock([new Redis()]);

export class Shipping {
  constructor(private readonly store: OrderStore) {}

  async ship(orderId: string, checkpointId: string, carrier: string) {
    return redlock.using(['order:' + orderId], 5000, async () => {
      const latestCheckpoint = await this.store.latestCheckpoint(orderId);
      ${check}
      await this.store.markShipped(orderId, carrier);
    });
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('the latest version compared in application code, the write in another module', () => {
  it('a mismatch throws, then the store writes: both the gap and the missing fence are reported', async () => {
    current = project({ 'store.ts': store, 'shipping.ts': system(`if (!latestCheckpoint || latestCheckpoint.id !== checkpointId) throw new Error('moved on');`) });
    const results = await current.lint('shipping.ts');
    expect(findings(results.get('shipping.ts'))).toEqual(['14 fencelint/require-fence-condition', '14 fencelint/no-check-then-write']);
  });

  it('the comparison kept in a variable with another condition still guards the write', async () => {
    current = project({
      'store.ts': store,
      'shipping.ts': system(`const stillCurrent = latestCheckpoint?.id === checkpointId || latestCheckpoint?.previousId === checkpointId;
      if (!stillCurrent) return;`),
    });
    const results = await current.lint('shipping.ts');
    expect(findings(results.get('shipping.ts'))).toEqual(['15 fencelint/require-fence-condition', '15 fencelint/no-check-then-write']);
  });

  it('a foreign key compared with a parameter is no version check', async () => {
    current = project({ 'store.ts': store, 'shipping.ts': system(`if (latestCheckpoint?.orderId !== orderId) throw new Error('wrong order');`) });
    const results = await current.lint('shipping.ts');
    expect(findings(results.get('shipping.ts'))).toEqual(['14 fencelint/require-fence-condition']);
  });
});
