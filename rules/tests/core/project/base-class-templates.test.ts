/**
 * Template base classes in another module: the base takes the lock in one method and runs, under
 * it, a function its constructor was handed (`super({ onRun })`, `new Job(async () => ...)` through
 * a parameter property). The subclass's callback is the critical section, even in a file that
 * names no lock; and a client handed out by a project factory (`getStore()`) is that client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const clientModule = `import Redis from 'ioredis';
let shared: Redis | undefined;
export function getStore() {
  if (!shared) shared = new Redis();
  return shared;
}
`;

const optionsBase = `import { randomUUID } from 'node:crypto';
import { getStore } from './store';

export abstract class Drainer {
  private readonly key: string;
  private readonly onDrain: () => Promise<void>;

  constructor(options: { topic: string; onDrain: () => Promise<void> }) {
    this.key = 'drain-lock:' + options.topic;
    this.onDrain = options.onDrain;
  }

  async drainOnce(): Promise<void> {
    const me = randomUUID();
    const taken = await getStore().set(this.key, me, 'PX', 30000, 'NX');
    if (taken !== 'OK') return;
    try {
      await this.onDrain();
    } finally {
      await getStore().eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, this.key, me);
    }
  }
}
`;

describe('base classes that run a constructor callback under their lock', () => {
  it('the callback handed to super() in an options object, in a file without a lock word', async () => {
    current = project({
      'src/store.ts': clientModule,
      'src/drainer.ts': optionsBase,
      'src/orders-drainer.ts': `import { Drainer } from './drainer';
import { getStore } from './store';

export class OrdersDrainer extends Drainer {
  constructor() {
    super({ topic: 'orders', onDrain: async () => { await this.moveBatch(); } });
  }

  private async moveBatch(): Promise<void> {
    const store = getStore();
    const rows = await store.lrange('orders:pending', 0, 99);
    await store.srem('orders:inflight', ...rows);
  }
}
`,
    });
    const result = await current.lint();
    expect(findings(result.get('src/orders-drainer.ts'))).toEqual(['12 fencelint/require-fence-condition']);
    expect(result.get('src/orders-drainer.ts')![0].message).toContain('`super(… onDrain)` (drainer.ts:15)');
    expect(findings(result.get('src/drainer.ts'))).toEqual([]);
  });

  it('a destructured option and a method passed by reference', async () => {
    current = project({
      'src/store.ts': clientModule,
      'src/drainer.ts': optionsBase.replace(
        "constructor(options: { topic: string; onDrain: () => Promise<void> }) {\n    this.key = 'drain-lock:' + options.topic;\n    this.onDrain = options.onDrain;",
        "constructor({ topic, onDrain }: { topic: string; onDrain: () => Promise<void> }) {\n    this.key = 'drain-lock:' + topic;\n    this.onDrain = onDrain;",
      ),
      'src/audit-drainer.ts': `import { Drainer } from './drainer';
import { getStore } from './store';

export class AuditDrainer extends Drainer {
  constructor() {
    super({ topic: 'audit', onDrain: this.flush.bind(this) });
  }

  private async flush(): Promise<void> {
    await getStore().ltrim('audit:queue', 100, -1);
  }
}
`,
    });
    const result = await current.lint();
    expect(findings(result.get('src/audit-drainer.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a parameter property called under a callback lock', async () => {
    current = project({
      'src/store.ts': clientModule,
      'src/exclusive-job.ts': `import Redlock from 'redlock';
import { getStore } from './store';
const redlock = new Redlock([getStore()]);

export class ExclusiveJob {
  constructor(private readonly name: string, private readonly work: () => Promise<void>) {}

  async tick(): Promise<void> {
    await redlock.using([this.name], 10000, async () => {
      await this.work();
    });
  }
}
`,
      'src/cleanup-job.ts': `import { ExclusiveJob } from './exclusive-job';
import { getStore } from './store';

export class CleanupJob extends ExclusiveJob {
  constructor() {
    super('cleanup', async () => {
      await getStore().zremrangebyscore('sessions', 0, Date.now());
    });
  }
}
`,
    });
    const result = await current.lint();
    expect(findings(result.get('src/cleanup-job.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('stays clean: the callback is not among the options, a base that runs it outside its lock, a fenced write', async () => {
    current = project({
      'src/store.ts': clientModule,
      'src/drainer.ts': optionsBase,
      'src/unlocked-base.ts': `export class Batcher {
  private readonly onBatch: () => Promise<void>;
  constructor(options: { onBatch: () => Promise<void> }) {
    this.onBatch = options.onBatch;
  }
  async run(): Promise<void> {
    await this.onBatch();
  }
}
`,
      'src/plain.ts': `import { Batcher } from './unlocked-base';
import { getStore } from './store';
export class Plain extends Batcher {
  constructor() {
    super({ onBatch: async () => { await getStore().ltrim('q', 10, -1); } });
  }
}
`,
      'src/spread.ts': `import { Drainer } from './drainer';
import { getStore } from './store';
const defaults = { topic: 't', onDrain: async () => {} };
export class Spread extends Drainer {
  constructor() {
    super({ ...defaults });
  }
  async other(): Promise<void> {
    await getStore().ltrim('q', 10, -1);
  }
}
`,
      'src/fenced.ts': `import { Drainer } from './drainer';
import { getStore } from './store';
const TRIM = "local t = tonumber(redis.call('get', KEYS[2]) or '0') if tonumber(ARGV[2]) <= t then return -1 end redis.call('set', KEYS[2], ARGV[2]) redis.call('ltrim', KEYS[1], ARGV[1], -1) return 1";
export class Fenced extends Drainer {
  constructor() {
    super({ topic: 'f', onDrain: async () => {
      const token = await getStore().incr('fence:f');
      const trimmed = await getStore().eval(TRIM, 2, 'q', 'q:fence', 10, token);
      if (trimmed === -1) throw new Error('stale drain');
    } });
  }
}
`,
    });
    const result = await current.lint();
    for (const file of ['src/plain.ts', 'src/spread.ts', 'src/fenced.ts', 'src/drainer.ts', 'src/unlocked-base.ts']) {
      expect(findings(result.get(file)), file).toEqual([]);
    }
  });
});

describe('clients handed out by a project factory', () => {
  const factory = `import Redis from 'ioredis';
export interface JsonRedis extends Redis {
  putJson(key: string, ttl: number, value: unknown): Promise<void>;
}
function create(url: string): JsonRedis {
  const client = new Redis(url) as JsonRedis;
  client.on('error', async () => {
    await client.set('last-error', String(Date.now()));
  });
  client.putJson = async (key, ttl, value) => {
    await client.setex(key, ttl, JSON.stringify(value));
  };
  return client;
}
let cache: JsonRedis | undefined;
export function getCache(): JsonRedis {
  if (!cache) cache = create(process.env.REDIS_URL ?? '');
  return cache;
}
`;

  it('a write on the factory result under a lock is reported once, at the write; getting the client writes nothing', async () => {
    current = project({
      'src/cache.ts': factory,
      'src/reaper.ts': `import { getCache } from './cache';
export async function reap(shard: string) {
  const redis = getCache();
  if ((await redis.set('reaper-lock:' + shard, '1', 'EX', 30, 'NX')) === null) return;
  try {
    const replies = await redis.multi().zcard('due:' + shard).llen('q:' + shard).exec();
    if (replies) await redis.srem('shards', shard);
  } finally {
    await redis.del('reaper-lock:' + shard);
  }
}
`,
    });
    const result = await current.lint();
    expect(findings(result.get('src/reaper.ts'))).toEqual(['7 fencelint/require-fence-condition', '9 fencelint/no-release-by-name']);
    expect(findings(result.get('src/cache.ts'))).toEqual([]);
  });

  it('the replies of a MULTI are no client: a Map of the same name elsewhere in the file writes nothing', async () => {
    current = project({
      'src/cache.ts': factory,
      'src/profiles.ts': `import { getCache } from './cache';
export class Profiles {
  private readonly redis = getCache();
  async add(id: string) {
    const result = await this.redis.multi().rpush('profiles', id).llen('profiles').exec();
    return result?.[1]?.[1];
  }
  async flush(owner: string) {
    if ((await this.redis.set('profiles-lock', owner, 'PX', 5000, 'NX')) !== 'OK') return;
    const result = new Map<string, string>();
    for (const id of await this.redis.lrange('profiles', 0, 9)) result.set(id, id.toUpperCase());
    return result;
  }
}
`,
    });
    const result = await current.lint();
    expect(findings(result.get('src/profiles.ts'))).toEqual([]);
  });
});
