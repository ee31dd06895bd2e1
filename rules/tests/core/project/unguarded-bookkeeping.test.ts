/**
 * A write the project also makes with no lock held is not what the lock guards. When a helper
 * decides what it writes by itself (the next offer it pops from a queue, a value it reads from
 * the database) and the project runs that helper on a path that takes no lock (a timer callback
 * in its module, an entry of the file that holds the lock), a late run under the lock writes
 * nothing a lock-free run would not: a queue hand-off and a read-through cache fill. A write
 * whose content the holder computes and passes in stays reported, even through a helper that
 * also runs unlocked; so does a helper that only other methods of its module call, since the
 * lock's holder may be their caller too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/locking.ts': `import Redis from 'ioredis';

const redis = new Redis();

export class Locking {
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const taken = await redis.set('mutex:' + key, String(Date.now()), 'PX', 30000, 'NX');
    if (!taken) throw new Error('busy');
    try {
      return await work();
    } finally {
      await redis.del('mutex:' + key);
    }
  }
}
`,
  'src/offers/offer-queue.ts': `import Redis from 'ioredis';

export class OfferQueue {
  private readonly redis = new Redis();

  async offer(courierId: string, orderId: string, rank: number) {
    const entry = { orderId, rank, queuedAt: Date.now() };
    await this.redis.zadd('offers:' + courierId, rank, JSON.stringify(entry));
  }

  async withdraw(courierId: string, orderId: string) {
    const entries = await this.redis.zrange('offers:' + courierId, 0, -1);
    for (const raw of entries) {
      if (JSON.parse(raw).orderId === orderId) {
        await this.redis.zrem('offers:' + courierId, raw);
      }
    }
  }

  async withdrawEverywhere(orderId: string, courierIds: string[]) {
    for (const courierId of courierIds) await this.withdraw(courierId, orderId);
  }

  async setPending(courierId: string, orderId: string) {
    await this.redis.setex('pending:' + courierId, 60, orderId);
  }

  async takeNext(courierId: string) {
    const popped = await this.redis.zpopmin('offers:' + courierId, 1);
    return popped.length > 0 ? JSON.parse(popped[0]) : null;
  }
}
`,
  'src/offers/dispatcher.ts': `import { OfferQueue } from './offer-queue';

export class Dispatcher {
  constructor(private readonly queue: OfferQueue) {}

  async moveOn(courierId: string) {
    const next = await this.queue.takeNext(courierId);
    if (next) await this.queue.setPending(courierId, next.orderId);
  }

  async onOfferExpired(courierId: string, orderId: string) {
    await this.queue.withdraw(courierId, orderId);
    await this.moveOn(courierId);
  }

  expireLater(courierId: string, orderId: string) {
    setTimeout(() => void this.onOfferExpired(courierId, orderId), 20000);
  }
}
`,
  'src/current-order.ts': `import Redis from 'ioredis';

export class CurrentOrder {
  private readonly redis = new Redis();

  async read(userId: string) {
    return this.redis.get('current:' + userId);
  }

  async point(userId: string, orderId: string) {
    await this.redis.set('current:' + userId, orderId, 'EX', 3600);
  }
}
`,
};

const orders = (body: string) => `import { Locking } from './locking';
import { OfferQueue } from './offers/offer-queue';
import { Dispatcher } from './offers/dispatcher';
import { CurrentOrder } from './current-order';

export class Orders {
  constructor(
    private readonly locking: Locking,
    private readonly queue: OfferQueue,
    private readonly dispatcher: Dispatcher,
    private readonly current: CurrentOrder,
    private readonly db: { findOpenOrderOf(userId: string): Promise<{ id: string } | null> },
  ) {}
${body}
}
`;

describe('a write the project also makes with no lock held', () => {
  it('is not reported for a hand-off the helper picks itself and a timer also runs', async () => {
    current = project({
      ...files,
      'src/orders.ts': orders(`
  decline(orderId: string, courierId: string) {
    return this.locking.exclusive('order:' + orderId, async () => {
      await this.dispatcher.moveOn(courierId);
    });
  }
`),
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual([]);
  });

  it('is still reported when only other methods of the helper module run it', async () => {
    current = project({
      ...files,
      'src/orders.ts': orders(`
  decline(orderId: string, courierId: string) {
    return this.locking.exclusive('order:' + orderId, async () => {
      await this.queue.withdraw(courierId, orderId);
    });
  }
`),
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual(['17 fencelint/require-fence-condition']);
  });

  it('is not reported for a read-through cache fill that also runs outside the lock', async () => {
    current = project({
      ...files,
      'src/orders.ts': orders(`
  async openOrderOf(userId: string) {
    return this.lookUp(userId);
  }

  request(orderId: string, userId: string) {
    return this.locking.exclusive('order:' + orderId, async () => {
      const open = await this.lookUp(userId);
      return open;
    });
  }

  private async lookUp(userId: string) {
    const cached = await this.current.read(userId);
    if (cached) return cached;
    return this.fill(userId);
  }

  private async fill(userId: string) {
    const order = await this.db.findOpenOrderOf(userId);
    if (order) await this.current.point(userId, order.id);
    return order?.id ?? null;
  }
`),
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual([]);
  });

  it('still reports what the holder decides and passes in, through the same helpers', async () => {
    current = project({
      ...files,
      'src/orders.ts': orders(`
  async openOrderOf(userId: string) {
    await this.current.point(userId, 'none');
  }

  request(orderId: string, userId: string, courierIds: string[]) {
    return this.locking.exclusive('order:' + orderId, async () => {
      await this.current.point(userId, orderId);
      for (const courierId of courierIds) await this.queue.offer(courierId, orderId, 1);
    });
  }
`),
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual(['21 fencelint/require-fence-condition', '22 fencelint/require-fence-condition']);
  });

  it('still reports a helper that decides its own content when nothing runs it without the lock', async () => {
    current = project({
      ...files,
      'src/orders.ts': orders(`
  request(orderId: string, userId: string) {
    return this.locking.exclusive('order:' + orderId, async () => {
      await this.fill(userId);
    });
  }

  private async fill(userId: string) {
    const order = await this.db.findOpenOrderOf(userId);
    if (order) await this.current.point(userId, order.id);
  }
`),
    });
    const results = await current.lint('src/orders.ts');
    expect(findings(results.get('src/orders.ts'))).toEqual(['23 fencelint/require-fence-condition']);
  });
});
