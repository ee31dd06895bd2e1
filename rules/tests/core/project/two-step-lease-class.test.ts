/**
 * A plain JavaScript lease class: `SETNX` of the time taken, then `EXPIRE` (the expiry makes it a
 * lease), `DEL` to give it back. Its instances are locks for the code that holds them; the state
 * they guard is written by methods of other classes that keep the Redis client the caller handed
 * their constructor in a field, known as Redis by the commands only Redis has.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const gate = `export class ShelfLock {
  constructor(redis, name) {
    this.redis = redis;
    this.name = name;
  }
  async enter() {
    const at = +new Date();
    if (!(await this.redis.setnx(this.name, at))) return false;
    await this.redis.expire(this.name, 60);
    return true;
  }
  async free() {
    await this.redis.del(this.name);
  }
}
`;

const shelf = (extra = '') => `export class Shelf {
  constructor(redis, id) {
    this.redis = redis;
    this.id = id;
  }
  async stock(count) {
    await this.redis.set('stock_' + this.id, count);
    await this.redis.expire('stock_' + this.id, 300);
  }
  async forget() {
    await this.redis.del('stock_' + this.id);
  }
  async dropOrder(orderId) {
    const orders = await this.redis.lrange('orders_' + this.id, 0, -1);
    await this.redis.del('orders_' + this.id);
    for (const o of orders) if (o !== orderId) await this.redis.rpush('orders_' + this.id, o);
  }
${extra}}
`;

const redisModule = `const Redis = require('ioredis');
export const redis = new Redis();
`;

describe('a lease class taken with SETNX then EXPIRE', () => {
  it('holds its instances until the release, and the writes of methods that keep the client in a field are under it', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/shelf.js': shelf(),
      'lib/redis.js': redisModule,
      'app/restock.js': `import { ShelfLock } from '../lib/gate';
import { Shelf } from '../lib/shelf';
import { redis } from '../lib/redis';

export async function restock(id, count) {
  const lock = new ShelfLock(redis, 'restocking_' + id);
  if (!(await lock.enter())) return;
  const shelf = new Shelf(redis, id);
  await shelf.stock(count);
  await shelf.forget();
  await lock.free();
  await shelf.stock(0);
}
`,
    });
    const results = await current.lint('app/restock.js', 'lib/gate.js');
    // The SET inside `stock` under the gate; the lone DEL of a cache entry is no write; the stock after `free` is outside.
    expect(findings(results.get('app/restock.js'))).toEqual(['9 fencelint/require-fence-condition']);
    expect(findings(results.get('lib/gate.js'))).toEqual(['13 fencelint/no-release-by-name']);
  });

  it('a DEL that the same method follows with pushes to the key rebuilds it: a write', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/shelf.js': shelf(),
      'lib/redis.js': redisModule,
      'app/ship.js': `import { ShelfLock } from '../lib/gate';
import { Shelf } from '../lib/shelf';
import { redis } from '../lib/redis';

export async function ship(id, orderId) {
  const lock = new ShelfLock(redis, 'shipping_' + id);
  if (!(await lock.enter())) return;
  await new Shelf(redis, id).dropOrder(orderId);
  await lock.free();
}
`,
    });
    const results = await current.lint('app/ship.js');
    expect(findings(results.get('app/ship.js'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  it('reaches the release inside a callback, past an early release on an error path', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/shelf.js': shelf(),
      'lib/redis.js': redisModule,
      'app/reserve.js': `import { ShelfLock } from '../lib/gate';
import { Shelf } from '../lib/shelf';
import { redis } from '../lib/redis';

export async function reserve(id, supplier) {
  const lock = new ShelfLock(redis, 'reserving_' + id);
  if (!(await lock.enter())) return;
  const shelf = new Shelf(redis, id);
  let before;
  try {
    before = await supplier.count(id);
  } catch (e) {
    await lock.free();
    return;
  }
  supplier.confirm(id, async function (err, count) {
    if (!err) await shelf.stock(before + count);
    await lock.free();
  });
}
`,
    });
    const results = await current.lint('app/reserve.js');
    expect(findings(results.get('app/reserve.js'))).toEqual(['17 fencelint/require-fence-condition']);
  });

  it('a lease left behind an early return is never taken', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/shelf.js': shelf(`  async recount() {
    return;
    const lock = new ShelfLock(this.redis, 'recount_' + this.id);
    if (!(await lock.enter())) return;
    await this.stock(0);
  }
`).replace("export class Shelf", "import { ShelfLock } from './gate';\nexport class Shelf"),
      'lib/redis.js': redisModule,
    });
    const results = await current.lint('lib/shelf.js');
    expect(findings(results.get('lib/shelf.js'))).toEqual([]);
  });

  it('a method that lets its lease expire and hands back a promise of nothing is no lock for its callers', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/shelf.js': shelf(`  async label(printer) {
    const lock = new ShelfLock(this.redis, 'labelling_' + this.id);
    if (!(await lock.enter())) return;
    const self = this;
    return new Promise(function (resolve) {
      printer.print(self.id, function () {
        resolve();
      });
    });
  }
`).replace("export class Shelf", "import { ShelfLock } from './gate';\nexport class Shelf"),
      'lib/redis.js': redisModule,
      'app/label.js': `import { Shelf } from '../lib/shelf';
import { redis } from '../lib/redis';

// Labelling takes the shelf's lock itself and lets it expire: nothing here holds it.
export async function label(id, printer) {
  const shelf = new Shelf(redis, id);
  await shelf.label(printer);
  await shelf.stock(1);
}
`,
    });
    const results = await current.lint('app/label.js');
    expect(findings(results.get('app/label.js'))).toEqual([]);
  });

  it('a field only read and set like a map is not taken for Redis', async () => {
    current = project({
      'lib/gate.js': gate,
      'lib/redis.js': redisModule,
      'lib/memo.js': `export class Memo {
  constructor(store) {
    this.store = store;
  }
  async remember(key, value) {
    await this.store.set(key, value);
  }
}
`,
      'app/memo.js': `import { ShelfLock } from '../lib/gate';
import { Memo } from '../lib/memo';
import { redis } from '../lib/redis';

export async function note(id, store) {
  const lock = new ShelfLock(redis, 'note_' + id);
  if (!(await lock.enter())) return;
  await new Memo(store).remember(id, 1);
  await lock.free();
}
`,
    });
    const results = await current.lint('app/memo.js');
    expect(findings(results.get('app/memo.js'))).toEqual([]);
  });
});
