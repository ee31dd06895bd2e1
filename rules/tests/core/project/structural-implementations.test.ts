/**
 * A repository interface bound to its class by a container (NestJS `{ provide: 'StockRepository',
 * useClass: MongoStockRepository }`) rather than by `implements`: the class beside the interface,
 * named after it, that declares every method of the interface is read as its implementation, so
 * a write several injected services away from the lock is found.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const leaseService = `import Redis from 'ioredis';

export class LeaseService {
  private readonly redis = new Redis();

  async tryTake(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set('lease:' + key, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async give(key: string): Promise<void> {
    await this.redis.del('lease:' + key);
  }
}
`;

const contract = `export interface StockRepository {
  findBySku(sku: string): Promise<{ sku: string; level: number } | null>;
  upsertLevel(sku: string, level: number): Promise<void>;
}
`;

const mongoStore = (methods: string) => `import { Model } from 'mongoose';

export class MongoStockRepository {
  constructor(private readonly levels: Model<{ sku: string; level: number }>) {}
${methods}
}
`;

const find = `
  findBySku(sku: string) {
    return this.levels.findOne({ sku }).lean();
  }
`;
const upsert = `
  async upsertLevel(sku: string, level: number) {
    await this.levels.findOneAndUpdate({ sku }, { $set: { level } }, { upsert: true });
  }
`;

const services = {
  'src/stock/stock-sync.service.ts': `import { Inject } from '@nestjs/common';
import type { StockRepository } from './stock.repository';

export class StockSyncService {
  constructor(@Inject('StockRepository') private readonly repo: StockRepository) {}

  async apply(items: Array<{ sku: string; level: number }>) {
    for (const item of items) await this.repo.upsertLevel(item.sku, item.level);
  }
}
`,
  'src/stock/stock.service.ts': `import { StockSyncService } from './stock-sync.service';

export class StockService {
  constructor(private readonly sync: StockSyncService) {}

  applyFeed(items: Array<{ sku: string; level: number }>) {
    return this.sync.apply(items);
  }
}
`,
  'src/feed/feed.consumer.ts': `import { LeaseService } from '../locks/lease.service';
import { StockService } from '../stock/stock.service';

export class FeedConsumer {
  constructor(private readonly leases: LeaseService, private readonly stock: StockService) {}

  async onFeed(warehouse: string, items: Array<{ sku: string; level: number }>) {
    const key = 'feed:' + warehouse;
    if (!(await this.leases.tryTake(key, 60_000))) return;
    try {
      await this.stock.applyFeed(items);
    } finally {
      await this.leases.give(key);
    }
  }
}
`,
  'src/locks/lease.service.ts': leaseService,
  'src/stock/stock.repository.ts': contract,
};

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('an interface read through the class beside it that has its shape', () => {
  it('finds the upsert three injected services and a container binding away from the lease', async () => {
    current = project({ ...services, 'src/stock/mongo-stock.repository.ts': mongoStore(find + upsert) });
    const results = await current.lint('src/feed/feed.consumer.ts');
    expect(findings(results.get('src/feed/feed.consumer.ts'))).toContain('11 fencelint/require-fence-condition');
  });

  it('does not read a class that lacks one of the interface\'s methods as its implementation', async () => {
    current = project({ ...services, 'src/stock/mongo-stock.repository.ts': mongoStore(upsert) });
    const results = await current.lint('src/feed/feed.consumer.ts');
    expect(findings(results.get('src/feed/feed.consumer.ts'))).not.toContain('11 fencelint/require-fence-condition');
  });

  it('does not look at classes beside it whose module is not named after the interface\'s', async () => {
    current = project({ ...services, 'src/stock/level-writer.ts': mongoStore(find + upsert).replace('MongoStockRepository', 'LevelWriter') });
    const results = await current.lint('src/feed/feed.consumer.ts');
    expect(findings(results.get('src/feed/feed.consumer.ts'))).not.toContain('11 fencelint/require-fence-condition');
  });
});
