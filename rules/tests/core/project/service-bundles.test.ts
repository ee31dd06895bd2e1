/**
 * Services handed to a class as one dependency object (`this.deps.locker`, `this.$.store`),
 * typed by a type alias or interface in another module; stores reached through the interface
 * a package exports next to its implementations; private `#methods` on both sides.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

/** A lease lock over redlock that runs nested calls for the same keys inline, through a private helper. */
const leaseLocker = `import { AsyncLocalStorage } from 'node:async_hooks';
import Redlock from 'redlock';
import type Redis from 'ioredis';

export class LeaseLocker {
  #redlock: Redlock;
  #held = new AsyncLocalStorage<string>();

  constructor(redis: Redis, private readonly leaseMs = 4000) {
    this.#redlock = new Redlock([redis]);
  }

  async withKeys<T>(purpose: string, keys: string[], body: () => Promise<T>): Promise<T> {
    const joined = [...keys].sort().join('|');
    if (this.#held.getStore() === joined) return body();
    return this.#holdWhile(joined, keys, body);
  }

  async #holdWhile<T>(joined: string, keys: string[], body: () => Promise<T>): Promise<T> {
    const lease = await this.#redlock.acquire(keys, this.leaseMs);
    try {
      return await this.#held.run(joined, () => body());
    } finally {
      await lease.release();
    }
  }
}
`;

/** An invoice store package: the interface in one module, the Prisma implementation in another, an index that exports both. */
const storePackage = {
  'src/store/contract.ts': `export interface InvoiceStore {
  read(id: string): Promise<{ id: string; state: string } | null>;
  markPaid(id: string, paidAt: Date): Promise<void>;
}
`,
  'src/store/prisma-store.ts': `import type { PrismaClient } from '@prisma/client';
import type { InvoiceStore } from './contract';

export class PrismaInvoiceStore implements InvoiceStore {
  constructor(private readonly db: PrismaClient) {}

  read(id: string) {
    return this.db.invoice.findFirst({ where: { id } });
  }

  async markPaid(id: string, paidAt: Date) {
    await this.#patch({ id }, { state: 'PAID', paidAt });
  }

  #patch(where: { id: string }, data: object) {
    return this.db.invoice.update({ where, data });
  }
}
`,
  'src/store/index.ts': `export * from './contract';
export * from './prisma-store';
`,
};

const deps = `import type { LeaseLocker } from '../locking/lease-locker';
import type { InvoiceStore } from '../store';

export type EngineDeps = {
  locker: LeaseLocker;
  invoices: InvoiceStore;
};
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('services bundled in a dependency object', () => {
  it('a store call under a lock taken through the bundle is a write, named by the implementation', async () => {
    current = project({
      'src/locking/lease-locker.ts': leaseLocker,
      ...storePackage,
      'src/engine/deps.ts': deps,
      'src/engine/settle.ts': `import type { EngineDeps } from './deps';

export class Settlement {
  private readonly $: EngineDeps;

  constructor(options: { deps: EngineDeps }) {
    this.$ = options.deps;
  }

  async settle(id: string) {
    await this.$.locker.withKeys('settle', [id], async () => {
      const invoice = await this.$.invoices.read(id);
      if (invoice?.state !== 'OPEN') return;
      await this.$.invoices.markPaid(id, new Date());
    });
    await this.$.invoices.markPaid(id, new Date());
  }
}
`,
    });
    const messages = (await current.lint('src/engine/settle.ts')).get('src/engine/settle.ts');
    expect(findings(messages)).toEqual(['14 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('prisma-store.ts:16');
    expect(messages![0].message).toContain('lease-locker.ts:');
  });

  it('an interface bundle property works like a type alias one, and a read-only store call is no write', async () => {
    current = project({
      'src/locking/lease-locker.ts': leaseLocker,
      ...storePackage,
      'src/engine/deps.ts': `import type { LeaseLocker } from '../locking/lease-locker';
import type { InvoiceStore } from '../store';

export interface EngineDeps {
  locker: LeaseLocker;
  invoices: InvoiceStore;
}
`,
      'src/engine/audit.ts': `import type { EngineDeps } from './deps';

export class Audit {
  constructor(private readonly deps: EngineDeps) {}

  async check(id: string) {
    return this.deps.locker.withKeys('audit', [id], async () => this.deps.invoices.read(id));
  }

  async close(id: string) {
    return this.deps.locker.withKeys('close', [id], async () => this.deps.invoices.markPaid(id, new Date()));
  }
}
`,
    });
    expect(findings((await current.lint('src/engine/audit.ts')).get('src/engine/audit.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it('a bundle property typed as an in-process mutex class opens no lease section', async () => {
    current = project({
      'src/locking/local.ts': `import { Mutex } from 'async-mutex';

export class LocalGate {
  #mutex = new Mutex();
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.#mutex.runExclusive(fn);
  }
}
`,
      ...storePackage,
      'src/engine/deps.ts': `import type { LocalGate } from '../locking/local';
import type { InvoiceStore } from '../store';

export type EngineDeps = { gate: LocalGate; invoices: InvoiceStore };
`,
      'src/engine/settle.ts': `import type { EngineDeps } from './deps';

export class Settlement {
  constructor(private readonly deps: EngineDeps) {}

  async settle(id: string) {
    await this.deps.gate.run(async () => this.deps.invoices.markPaid(id, new Date()));
  }
}
`,
    });
    expect(findings((await current.lint('src/engine/settle.ts')).get('src/engine/settle.ts'))).toEqual([]);
  });
});

describe('private methods', () => {
  it('a write in a private method of the same class is followed from the locked section, and reported where it is', async () => {
    current = project({
      'src/jobs/close.ts': `import Redlock from 'redlock';
import { Pool } from 'pg';

export class Closer {
  #redlock = new Redlock([]);
  #pool = new Pool();

  async close(id: string) {
    await this.#redlock.using([\`ledger:\${id}\`], 5000, async () => {
      await this.#markClosed(id);
    });
  }

  async #markClosed(id: string) {
    await this.#pool.query("UPDATE ledgers SET state = 'closed' WHERE id = $1", [id]);
  }
}
`,
    });
    expect(findings((await current.lint('src/jobs/close.ts')).get('src/jobs/close.ts'))).toEqual(['15 fencelint/require-fence-condition']);
  });
});

describe('a repository over a base class, behind a use case', () => {
  const baseRepository = `import { Model } from 'mongoose';

export class MongoRepository<T> {
  public records: Model<T>;
  protected memo = new Map<string, T>();

  constructor(source: Model<T>) {
    this.records = source;
  }
}
`;

  it("the subclass's write through the base's model, in a callback kept in a const, is reported at the use case's call", async () => {
    current = project({
      'src/dal/mongo.repository.ts': baseRepository,
      'src/dal/seat.repository.ts': `import { model, Schema } from 'mongoose';
import { MongoRepository } from './mongo.repository';

interface Seat { _id: string; holder: string | null }
const SeatModel = model<Seat>('Seat', new Schema({}));

export class SeatRepository extends MongoRepository<Seat> {
  constructor() {
    super(SeatModel);
  }

  async hold(seatId: string, holder: string) {
    const seat = await this.records.findOne({ _id: seatId });
    if (seat?.holder) return false;
    await this.records.updateOne({ _id: seatId }, { $set: { holder } });
    this.memo.set(seatId, { _id: seatId, holder });
    return true;
  }
}
`,
      'src/booking/hold-seat.ts': `import Redlock from 'redlock';
import { SeatRepository } from '../dal/seat.repository';

export class HoldSeat {
  constructor(private readonly redlock: Redlock, private readonly seats: SeatRepository) {}

  run(seatId: string, holder: string) {
    const attempt = async () => this.seats.hold(seatId, holder);
    return this.redlock.using([\`seat:\${seatId}\`], 2000, attempt);
  }
}
`,
    });
    const messages = (await current.lint('src/booking/hold-seat.ts')).get('src/booking/hold-seat.ts');
    expect(findings(messages)).toEqual(['8 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('seat.repository.ts:15');
  });
});

describe('an acquire wrapped in a tracing span and a result tuple', () => {
  const tracedLocker = `import Redlock from 'redlock';
import { inSpan } from './tracing';

async function settle<T>(p: Promise<T>): Promise<[Error | undefined, T | undefined]> {
  try {
    return [undefined, await p];
  } catch (e) {
    return [e as Error, undefined];
  }
}

export class TracedLocker {
  private redlock = new Redlock([]);

  async hold<T>(what: string, keys: string[], routine: () => Promise<T>): Promise<T> {
    return inSpan('hold', async () => {
      const [error, result] = await settle(this.#attempt(keys, routine));
      if (error) throw error;
      return result as T;
    });
  }

  async #attempt<T>(keys: string[], routine: () => Promise<T>): Promise<T> {
    let lease;
    for (let i = 0; i < 3 && !lease; i++) {
      const [error, got] = await settle(inSpan('acquire', async () => this.redlock.acquire(keys, 3000)));
      if (!error) lease = got;
    }
    if (!lease) throw new Error('busy');
    try {
      return await routine();
    } finally {
      await lease.release();
    }
  }

  async later<T>(keys: string[], routine: () => Promise<T>) {
    const lease = await this.redlock.acquire(keys, 3000);
    await lease.release();
    return () => routine();
  }
}
`;

  it('the function parameter called after the wrapped acquire runs under the lock; one only handed back for later does not', async () => {
    current = project({
      'src/tracing.ts': 'export async function inSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {\n  return fn();\n}\n',
      'src/locking/traced-locker.ts': tracedLocker,
      'src/orders/ship.ts': `import { Pool } from 'pg';
import { TracedLocker } from '../locking/traced-locker';
const pool = new Pool();

export class Shipping {
  constructor(private readonly locker: TracedLocker) {}

  async ship(id: string) {
    await this.locker.hold('ship', [id], async () => {
      await pool.query("UPDATE orders SET state = 'shipped' WHERE id = $1", [id]);
    });
    await this.locker.later([id], async () => {
      await pool.query("UPDATE orders SET seen = true WHERE id = $1", [id]);
    });
  }
}
`,
    });
    const messages = (await current.lint('src/orders/ship.ts')).get('src/orders/ship.ts');
    expect(findings(messages)).toEqual(['10 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('traced-locker.ts:26');
  });
});
