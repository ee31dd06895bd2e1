/**
 * A section whose first step reads its row for writing (TypeORM `pessimistic_write`) inside a
 * method that `@Transactional()` runs in one transaction: the row lock is held until that
 * transaction commits, so a stalled holder's later ORM writes cannot land after the next holder,
 * which blocks on the same row, has read it. A read before the row lock, a shared lock mode, no
 * managed transaction, or a write the ORM's transaction does not carry leaves the writes due.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const locking = `import Redlock from 'redlock';
import Redis from 'ioredis';

const redlock = new Redlock([new Redis()]);

export async function runExclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
  const lock = await redlock.acquire([key], 10_000);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
`;

const repository = (mode = 'pessimistic_write') => `import { Repository } from 'typeorm';
import { Bin } from './bin';

export class BinRepository extends Repository<Bin> {
  lockedById(id: string) {
    const query = this.createQueryBuilder('bin').setLock('${mode}').where('bin.id = :id', { id });
    return query.getOne();
  }

  countReservations(id: string) {
    return this.count({ where: { id } });
  }
}
`;

const service = `import { BinRepository } from './bin-repository';

export class BinService {
  constructor(private readonly bins: BinRepository) {}

  async findForUpdate(id: string) {
    return await this.bins.lockedById(id);
  }

  reservations(id: string) {
    return this.bins.countReservations(id);
  }

  async setQuantity(id: string, quantity: number) {
    await this.bins.update(id, { quantity });
  }
}
`;

const restock = (body: string, decorator = `import { Transactional } from 'typeorm-transactional';`) => `${decorator}
import Redis from 'ioredis';
import { runExclusive } from './locking';
import { BinService } from './bin-service';

const cache = new Redis();

export class Restock {
  constructor(private readonly service: BinService) {}

  @Transactional()
  async apply(binId: string, delta: number) {
    return runExclusive(\`bin:\${binId}\`, async () => {
${body}
    });
  }
}
`;

const rowLockFirst = `      const bin = await this.service.findForUpdate(binId);
      if (!bin) return;
      await this.service.setQuantity(binId, bin.quantity + delta);`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lintRestock = async (files: Record<string, string>) => {
  current = project({ 'locking.ts': locking, 'bin-service.ts': service, 'bin-repository.ts': repository(), ...files });
  return findings((await current.lint('restock.ts')).get('restock.ts'));
};

describe('a row read for writing first, in a decorator-managed transaction', () => {
  it('through a service that returns its repository\'s locked read: no finding', async () => {
    expect(await lintRestock({ 'restock.ts': restock(rowLockFirst) })).toEqual([]);
  });

  it('with the find option written in the section itself: no finding', async () => {
    const body = `      const bin = await this.bins.findOne({ where: { id: binId }, lock: { mode: 'pessimistic_write' } });
      if (!bin) return;
      await this.bins.update(binId, { quantity: bin.quantity + delta });`;
    const file = restock(body).replace('constructor(private readonly service: BinService) {}', 'constructor(private readonly bins: BinRepository) {}').replace("import { BinService } from './bin-service';", "import { BinRepository } from './bin-repository';");
    expect(await lintRestock({ 'restock.ts': file })).toEqual([]);
  });

  it('without the decorator the row lock ends with each statement: reported', async () => {
    const file = restock(rowLockFirst).replace('  @Transactional()\n', '');
    expect(await lintRestock({ 'restock.ts': file })).toEqual(['15 fencelint/require-fence-condition']);
  });

  it('a decorator of the project\'s own, not a transaction library\'s: reported', async () => {
    const file = restock(rowLockFirst, `import { Transactional } from './tracing';`);
    expect(await lintRestock({ 'restock.ts': file, 'tracing.ts': 'export const Transactional = () => () => undefined;\n' })).toEqual(['16 fencelint/require-fence-condition']);
  });

  it('a read made before the row lock: reported', async () => {
    const body = `      const held = await this.service.reservations(binId);
      const bin = await this.service.findForUpdate(binId);
      if (!bin || held > 0) return;
      await this.service.setQuantity(binId, bin.quantity + delta);`;
    expect(await lintRestock({ 'restock.ts': restock(body) })).toEqual(['17 fencelint/require-fence-condition']);
  });

  it('a shared row lock lets two holders read at once: reported', async () => {
    current = project({ 'locking.ts': locking, 'bin-service.ts': service, 'bin-repository.ts': repository('pessimistic_read'), 'restock.ts': restock(rowLockFirst) });
    expect(findings((await current.lint('restock.ts')).get('restock.ts'))).toEqual(['16 fencelint/require-fence-condition']);
  });

  it('a Redis write after the row lock is not in the transaction: reported', async () => {
    const body = `${rowLockFirst}
      await cache.set(\`bin:\${binId}:quantity\`, String(bin.quantity + delta));`;
    // The quantity write (line 16) goes through the locked transaction; the cache write does not.
    expect(await lintRestock({ 'restock.ts': restock(body) })).toEqual(['17 fencelint/require-fence-condition']);
  });
});
