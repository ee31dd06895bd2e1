/**
 * A Redis lock taken through a helper and kept alive by a timer that SETs the same key again:
 * the renewal writes the lock, not the state the lock protects. Other keys written under the
 * same lock are still writes, and a bare key name matches the lock only in its own function.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const room = (renewal: string, extra = '') => `import Redis from 'ioredis';

export class RoomOwnership {
  private redis = new Redis();
  private timers = new Map<string, NodeJS.Timeout>();
  private readonly ttlMs = 8000;
  constructor(private readonly nodeId: string) {}

  private ownerKey(room: string) {
    return 'room-owner:' + room;
  }

  private claim(room: string) {
    return this.redis.set(this.ownerKey(room), this.nodeId, 'PX', this.ttlMs, 'NX', 'GET');
  }

  private keepOwning(room: string) {
    clearInterval(this.timers.get(room));
    this.timers.set(room, setInterval(() => {
      ${renewal}
    }, this.ttlMs / 2));
  }

  async host(room: string, topic: string) {
    const current = await this.claim(room);
    if (current && current !== this.nodeId) throw new Error('hosted elsewhere');
    this.keepOwning(room);${extra}
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('renewing a helper-taken Redis lock by SETting its key again', () => {
  it('the renewal timer writes the lock key itself: no finding', async () => {
    current = project({ 'room.ts': room(`void this.redis.set(this.ownerKey(room), this.nodeId, 'PX', this.ttlMs);`) });
    const results = await current.lint('room.ts');
    expect(findings(results.get('room.ts'))).toEqual([]);
  });

  it('a state key written under the same lock is still reported', async () => {
    current = project({
      'room.ts': room(`void this.redis.set(this.ownerKey(room), this.nodeId, 'PX', this.ttlMs);`, `
    await this.redis.set('room-topic:' + room, topic);`),
    });
    const results = await current.lint('room.ts');
    expect(findings(results.get('room.ts'))).toEqual(['28 fencelint/require-fence-condition']);
  });

  it('a bare key name in another function is not taken for the lock key', async () => {
    current = project({
      'cache.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();

async function takeLock(key: string) {
  return redis.set(key, randomUUID(), 'PX', 5000, 'NX');
}

async function putValue(key: string, value: string) {
  await redis.set(key, value);
}

export async function refresh(name: string, value: string) {
  if (!(await takeLock('lock:' + name))) return;
  await putValue(name, value);
}
`,
    });
    const results = await current.lint('cache.ts');
    expect(findings(results.get('cache.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a claim replaced by its value through a key bound to a const, in another module: no finding', async () => {
    current = project({
      'claims.ts': `import Redis from 'ioredis';

export class Claims {
  private redis = new Redis();

  private keyFor(job: string) {
    return 'claim:' + job;
  }

  async claim(job: string, owner: string) {
    const claimKey = this.keyFor(job);
    return this.redis.set(claimKey, 'pending:' + owner, 'PX', 10000, 'NX');
  }

  async settle(job: string, result: string) {
    const claimKey = this.keyFor(job);
    await this.redis.set(claimKey, result, 'PX', 60000);
  }
}
`,
      'runner.ts': `import { Claims } from './claims';

const claims = new Claims();

export async function run(job: string, owner: string, work: () => Promise<string>) {
  const locked = await claims.claim(job, owner);
  if (locked !== 'OK') return;
  await claims.settle(job, await work());
}
`,
    });
    const results = await current.lint('runner.ts', 'claims.ts');
    expect(findings(results.get('runner.ts'))).toEqual([]);
    expect(findings(results.get('claims.ts'))).toEqual([]);
  });

  it('another key written through the same claim is still reported at the call', async () => {
    current = project({
      'claims.ts': `import Redis from 'ioredis';

export class Claims {
  private redis = new Redis();

  async claim(job: string, owner: string) {
    const claimKey = 'claim:' + job;
    return this.redis.set(claimKey, owner, 'PX', 10000, 'NX');
  }

  async settle(job: string, result: string) {
    const resultKey = 'result:' + job;
    await this.redis.set(resultKey, result);
  }
}
`,
      'runner.ts': `import { Claims } from './claims';

const claims = new Claims();

export async function run(job: string, owner: string, work: () => Promise<string>) {
  const locked = await claims.claim(job, owner);
  if (locked !== 'OK') return;
  await claims.settle(job, await work());
}
`,
    });
    const results = await current.lint('runner.ts');
    expect(findings(results.get('runner.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  const beacon = (upkeep: string, extra = '') => `import { createClient } from 'redis';

const BEACON_KEY = 'relay:beacon';
const ROUTES_KEY = 'relay:routes';

export class Beacon {
  constructor(private redis: ReturnType<typeof createClient>, private readonly nodeId: string) {}

  async claim(ttl: number) {
    const reply = await this.redis.SET(BEACON_KEY, this.nodeId, { NX: true, EX: ttl });
    return reply === 'OK';
  }

  async keep(ttl: number) {
    if ((await this.redis.GET(BEACON_KEY)) !== this.nodeId) return false;
    ${upkeep}
    return true;
  }

  watch(ttl: number, routes: string[]) {
    setInterval(async () => {
      if (!(await this.claim(ttl))) return;
      setInterval(() => void this.keep(ttl), 1000);${extra}
    }, 1000);
  }
}
`;

  it('a renewal by SET XX of the same module constant, in another method: no finding', async () => {
    current = project({ 'beacon.ts': beacon(`await this.redis.SET(BEACON_KEY, this.nodeId, { EX: ttl, XX: true });`) });
    const results = await current.lint('beacon.ts');
    expect(findings(results.get('beacon.ts'))).toEqual([]);
  });

  it('a renewal by PEXPIRE of the same module constant: no finding', async () => {
    current = project({ 'beacon.ts': beacon(`await this.redis.PEXPIRE(BEACON_KEY, ttl * 1000);`) });
    const results = await current.lint('beacon.ts');
    expect(findings(results.get('beacon.ts'))).toEqual([]);
  });

  it('another constant key written under the same lock is still reported', async () => {
    current = project({
      'beacon.ts': beacon(`await this.redis.SET(BEACON_KEY, this.nodeId, { EX: ttl, XX: true });`, `
      await this.redis.SET(ROUTES_KEY, routes.join(','));`),
    });
    const results = await current.lint('beacon.ts');
    expect(findings(results.get('beacon.ts'))).toEqual(['24 fencelint/require-fence-condition']);
  });
});
