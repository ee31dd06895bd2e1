/**
 * A lock service injected by its class (`constructor(private readonly gate: ResourceGate)`) whose
 * own backend is an in-process fallback that a plugin's module replaces with a Redis lease
 * (`{ provide: GateBackend, useClass: RedisGateBackend }`): the lease decides, so a write made
 * while the gate's lock is held (`await using hold = await this.gate.hold(key)`) is reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const fallbackBackend = `import { Injectable } from '@nestjs/common';

export class Hold implements AsyncDisposable {
  constructor(private readonly free: () => Promise<void>) {}
  async [Symbol.asyncDispose]() {
    await this.free();
  }
}

/** One process only: held keys in memory. */
@Injectable()
export class GateBackend {
  private readonly held = new Set<string>();

  async hold(owner: string, key: string): Promise<Hold> {
    if (this.held.has(key)) throw new Error('busy');
    this.held.add(key);
    return new Hold(async () => {
      this.held.delete(key);
    });
  }
}
`;

const gate = `import { Injectable } from '@nestjs/common';
import { GateBackend } from './gate-backend';
import { withRetries } from './retries';

@Injectable()
export class ResourceGate {
  constructor(protected readonly backend: GateBackend) {}

  async hold(key: string, owner = 'shared') {
    try {
      return await withRetries(() => this.backend.hold(owner, key), 3);
    } catch {
      return undefined;
    }
  }
}

@Injectable()
export class PerRequestGate extends ResourceGate {
  private readonly requestId = Math.random().toString(36);

  override hold(key: string) {
    return super.hold(key, this.requestId);
  }
}
`;

const retries = `export async function withRetries<T>(attempt: () => Promise<T>, times: number): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= times) throw error;
    }
  }
}
`;

const redisBackend = (acquire: string) => `import { Injectable } from '@nestjs/common';
import { Command, Redis } from 'ioredis';
import { Hold } from '../../gate/gate-backend';

const TAKE = \`if redis.call('get', KEYS[1]) == ARGV[1] or redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', 30000) then return 1 end return 0\`;
const GIVE_BACK = \`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0\`;

@Injectable()
export class RedisGateBackend {
  constructor(private readonly redis: Redis) {}

  async hold(owner: string, key: string): Promise<Hold> {
    ${acquire}
    if (taken !== 1 && taken !== 'OK') throw new Error('busy');
    return new Hold(async () => {
      await this.redis.sendCommand(new Command('EVAL', [GIVE_BACK, '1', \`gate:\${key}\`, owner]));
    });
  }
}
`;

const scriptAcquire = "const taken = await this.redis.sendCommand(new Command('EVAL', [TAKE, '1', `gate:${key}`, owner]));";
const setNxAcquire = "const taken = await this.redis.set(`gate:${key}`, owner, 'PX', 30000, 'NX');";

const binding = `import { Module } from '@nestjs/common';
import { GateBackend } from '../../gate/gate-backend';
import { RedisGateBackend } from './redis-gate-backend';

@Module({
  providers: [{ provide: GateBackend, useClass: RedisGateBackend }],
})
export class RedisGateModule {}
`;

const seats = `import { Injectable } from '@nestjs/common';
import { PrismaClient } from '@prisma/client';

@Injectable()
export class SeatStore {
  constructor(private readonly db: PrismaClient) {}

  release(showId: string, seat: string) {
    return this.db.seatBooking.deleteMany({ where: { showId, seat } });
  }
}
`;

const resolver = (gateClass: string) => `import { Injectable } from '@nestjs/common';
import { ${gateClass} } from '../gate/resource-gate';
import { SeatStore } from '../seats/seat.store';

@Injectable()
export class BookingResolver {
  constructor(private readonly gate: ${gateClass}, private readonly seats: SeatStore) {}

  async cancel(showId: string, seat: string) {
    await using lock = await this.gate.hold(\`seat:\${showId}:\${seat}\`);
    if (!lock) throw new Error('try again');
    await this.seats.release(showId, seat);
  }
}
`;

const base = {
  'package.json': '{ "name": "box-office", "private": true }',
  'src/gate/gate-backend.ts': fallbackBackend,
  'src/gate/resource-gate.ts': gate,
  'src/gate/retries.ts': retries,
  'src/seats/seat.store.ts': seats,
};

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lock service whose backend a container binding replaces with a Redis lease', () => {
  it('reports the write under the request-scoped gate, its lease a script behind sendCommand', async () => {
    current = project({ ...base, 'src/plugins/redis/redis-gate-backend.ts': redisBackend(scriptAcquire), 'src/plugins/redis/redis-gate.module.ts': binding, 'src/booking/booking.resolver.ts': resolver('PerRequestGate') });
    const results = await current.lint('src/booking/booking.resolver.ts');
    expect(findings(results.get('src/booking/booking.resolver.ts'))).toEqual(['12 fencelint/require-fence-condition']);
  });

  it('reports it under the shared gate, its lease a SET NX', async () => {
    current = project({ ...base, 'src/plugins/redis/redis-gate-backend.ts': redisBackend(setNxAcquire), 'src/plugins/redis/redis-gate.module.ts': binding, 'src/booking/booking.resolver.ts': resolver('ResourceGate') });
    const results = await current.lint('src/booking/booking.resolver.ts');
    expect(findings(results.get('src/booking/booking.resolver.ts'))).toEqual(['12 fencelint/require-fence-condition']);
  });

  it('reads the in-process fallback alone as no lease when no module binds another backend', async () => {
    current = project({ ...base, 'src/plugins/redis/redis-gate-backend.ts': redisBackend(setNxAcquire), 'src/booking/booking.resolver.ts': resolver('PerRequestGate') });
    const results = await current.lint('src/booking/booking.resolver.ts');
    expect(findings(results.get('src/booking/booking.resolver.ts'))).toEqual([]);
  });

  it('does not take a bound class that holds no lock for a lease', async () => {
    const plain = redisBackend("const taken = (await this.redis.get(`gate:${key}`)) === null ? 1 : 0;");
    current = project({ ...base, 'src/plugins/redis/redis-gate-backend.ts': plain, 'src/plugins/redis/redis-gate.module.ts': binding, 'src/booking/booking.resolver.ts': resolver('PerRequestGate') });
    const results = await current.lint('src/booking/booking.resolver.ts');
    expect(findings(results.get('src/booking/booking.resolver.ts'))).toEqual([]);
  });
});

describe('a method a subclass overrides', () => {
  const storage = `export abstract class SnapshotStore {
  private readonly local = new Map<string, Promise<void>>();

  protected async lockFor(id: string): Promise<AsyncDisposable> {
    await this.local.get(id);
    return { [Symbol.asyncDispose]: async () => {} };
  }
}
`;
  const subclass = `import { Injectable } from '@nestjs/common';
import { PrismaClient } from '@prisma/client';
import { ResourceGate } from '../gate/resource-gate';
import { SnapshotStore } from './snapshot-store';

@Injectable()
export class PgSnapshotStore extends SnapshotStore {
  constructor(private readonly db: PrismaClient, private readonly gate: ResourceGate) {
    super();
  }

  async replace(id: string, body: Uint8Array) {
    await using held = await this.lockFor(id);
    await this.db.snapshot.upsert({ where: { id }, update: { body }, create: { id, body } });
  }

  protected override async lockFor(id: string) {
    const hold = await this.gate.hold(\`snapshot:\${id}\`);
    if (!hold) throw new Error('busy');
    return hold;
  }
}
`;

  it('is read as the subclass\'s own method, and names its lease', async () => {
    current = project({ ...base, 'src/plugins/redis/redis-gate-backend.ts': redisBackend(setNxAcquire), 'src/plugins/redis/redis-gate.module.ts': binding, 'src/snapshots/snapshot-store.ts': storage, 'src/snapshots/pg-snapshot.store.ts': subclass });
    const results = await current.lint('src/snapshots/pg-snapshot.store.ts');
    const messages = results.get('src/snapshots/pg-snapshot.store.ts') ?? [];
    expect(findings(messages)).toEqual(['14 fencelint/require-fence-condition']);
    expect(messages[0]?.message).toContain('redis-gate-backe….ts');
  });
});
