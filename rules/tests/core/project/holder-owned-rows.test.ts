/**
 * A record the call path has just inserted belongs to that holder: no other holder knows its id
 * yet, so updating it by that id (`create` returns the new row, then `update({ where: { id: row.id } })`)
 * is no late write over someone else's data. Followed through the service and the repository
 * that make the insert and the update; a write of any other record stays reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/guard.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';

const redlock = new Redlock([new Redis()]);

export function withOrderLock<T>(key: string, body: () => Promise<T>): Promise<T> {
  return redlock.using([key], 20000, body);
}
`,
  'src/receipts/receipt-repository.ts': `import type { PrismaClient } from '@prisma/client';

export class ReceiptRepository {
  constructor(private readonly db: PrismaClient) {}

  async add(orderId: string, amount: number) {
    return this.db.receipt.create({ data: { orderId, amount, state: 'NEW' } });
  }

  async setState(id: string, state: string) {
    return this.db.receipt.update({ where: { id }, data: { state } });
  }

  async setOrderState(orderId: string, state: string) {
    return this.db.order.update({ where: { id: orderId }, data: { state } });
  }
}
`,
  'src/receipts/receipt-service.ts': `import { ReceiptRepository } from './receipt-repository';

export class ReceiptService {
  constructor(private readonly receipts: ReceiptRepository, private readonly printer: { print(id: string): Promise<string> }) {}

  async issue(orderId: string, amount: number) {
    const receipt = await this.receipts.add(orderId, amount);
    const state = await this.printer.print(receipt.id);
    return this.receipts.setState(receipt.id, state);
  }

  async issueAndClose(orderId: string, amount: number) {
    const receipt = await this.receipts.add(orderId, amount);
    await this.receipts.setState(receipt.id, 'PRINTED');
    await this.receipts.setOrderState(receipt.orderId, 'CLOSED');
  }
}
`,
};

describe('a row the holder has just inserted', () => {
  it('is not reported when the service updates it by the id the insert returned', async () => {
    current = project({
      ...files,
      'src/checkout.ts': `import { withOrderLock } from './guard';
import { ReceiptService } from './receipts/receipt-service';

export class Checkout {
  constructor(private readonly service: ReceiptService) {}
  settle(orderId: string, amount: number) {
    return withOrderLock('order:' + orderId, async () => {
      await this.service.issue(orderId, amount);
    });
  }
}
`,
    });
    const results = await current.lint('src/checkout.ts');
    expect(findings(results.get('src/checkout.ts'))).toEqual([]);
  });

  it('still reports a write of another record, even one named through the new row', async () => {
    current = project({
      ...files,
      'src/checkout.ts': `import { withOrderLock } from './guard';
import { ReceiptService } from './receipts/receipt-service';

export class Checkout {
  constructor(private readonly service: ReceiptService) {}
  close(orderId: string, amount: number) {
    return withOrderLock('order:' + orderId, async () => {
      await this.service.issueAndClose(orderId, amount);
    });
  }
}
`,
    });
    const results = await current.lint('src/checkout.ts');
    const messages = results.get('src/checkout.ts') ?? [];
    expect(findings(messages)).toEqual(['8 fencelint/require-fence-condition']);
    expect(messages[0]?.message).toContain('order');
  });

  it('is not reported either when the section itself inserts it and hands its id to the write', async () => {
    current = project({
      ...files,
      'src/checkout.ts': `import { withOrderLock } from './guard';
import { ReceiptRepository } from './receipts/receipt-repository';

export class Checkout {
  constructor(private readonly receipts: ReceiptRepository) {}
  reissue(orderId: string, amount: number) {
    return withOrderLock('order:' + orderId, async () => {
      const receipt = await this.receipts.add(orderId, amount);
      await this.receipts.setState(receipt.id, 'REISSUED');
      await this.receipts.setOrderState(orderId, 'REISSUED');
    });
  }
}
`,
    });
    const results = await current.lint('src/checkout.ts');
    expect(findings(results.get('src/checkout.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('is not reported when the row is inserted before the lock and updated inside its callback', async () => {
    current = project({
      ...files,
      'src/checkout.ts': `import { withOrderLock } from './guard';
import { ReceiptRepository } from './receipts/receipt-repository';

export class Checkout {
  constructor(private readonly receipts: ReceiptRepository) {}
  async print(orderId: string, amount: number) {
    const receipt = await this.receipts.add(orderId, amount);
    await traced(async () => {
      await withOrderLock('order:' + orderId, async () => {
        await this.receipts.setState(receipt.id, 'PRINTING');
        await this.receipts.setOrderState(orderId, 'PRINTING');
      });
    });
  }
}

async function traced(body: () => Promise<void>) {
  await body();
}
`,
    });
    const results = await current.lint('src/checkout.ts');
    expect(findings(results.get('src/checkout.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });
});
