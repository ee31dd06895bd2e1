/**
 * Lock libraries beyond redlock, redis-semaphore and etcd3, each known from its catalog entry
 * alone: the write under the lock is found whatever the library's shape (a lock factory, a
 * self-acquiring lock object, a function that takes the lock and returns its release), and a
 * library that hands out a fence token lets the write be fenced with it.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const pg = `import { Pool } from 'pg';
const pool = new Pool();
`;
const unfenced = `await pool.query('UPDATE seats SET holder = $1 WHERE seat_id = $2', [holder, seatId]);`;

ruleTester.run('lock libraries from the catalog', rule, {
  valid: [
    {
      name: 'simple-redis-mutex: the release function\'s fencingToken compared and stored by the write',
      code: `${pg}import { createClient } from 'redis';
import { lock } from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const release = await lock(redis, 'seat:' + seatId, { timeout: 5000 });
  try {
    await pool.query('UPDATE seats SET holder = $1, fence_token = $3 WHERE seat_id = $2 AND fence_token < $3', [holder, seatId, release.fencingToken]);
  } finally {
    await release();
  }
}`,
    },
    {
      name: 'simple-redis-mutex: a write after the release function ran is outside the section',
      code: `${pg}import { createClient } from 'redis';
import { lock } from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const release = await lock(redis, 'seat:' + seatId);
  await release();
  ${unfenced}
}`,
    },
    {
      name: 'locco: the acquire callback has returned (and released) before the write',
      code: `${pg}import Redis from 'ioredis';
import { Locker, IoRedisAdapter } from '@kontsedal/locco';
const keeper = new Locker({ adapter: new IoRedisAdapter({ client: new Redis() }), retrySettings: { retryDelay: 100, retryTimes: 5 } });
export async function assign(seatId: string, holder: string) {
  await keeper.lock('seat:' + seatId, 3000).acquire(async () => {
    await pool.query('SELECT 1');
  });
  ${unfenced}
}`,
    },
    {
      name: 'a method decorator of another package is no lock, whatever its name',
      code: `${pg}import { Redlock } from './metrics';
export class SeatService {
  @Redlock('seats')
  async assign(seatId: string, holder: string) {
    ${unfenced}
  }
}`,
    },
    {
      name: '@RedisLock: a method beside the decorated one holds no lock',
      code: `${pg}import { RedisLock, RedisLockService } from '@huangang/nestjs-simple-redis-lock';
export class SeatService {
  constructor(protected readonly lockService: RedisLockService) {}
  @RedisLock('seats')
  async recount() {
    await pool.query('SELECT count(*) FROM seats');
  }
  async assign(seatId: string, holder: string) {
    ${unfenced}
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'simple-redis-mutex: a write between lock() and the release it returned',
      code: `${pg}import { createClient } from 'redis';
import { lock } from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const release = await lock(redis, 'seat:' + seatId, { timeout: 5000 });
  try {
    ${unfenced}
  } finally {
    await release();
  }
}`,
      errors: [{
        messageId: 'missingFence',
        line: 9,
        suggestions: [{
          messageId: 'addFenceCondition',
          output: `${pg}import { createClient } from 'redis';
import { lock } from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const release = await lock(redis, 'seat:' + seatId, { timeout: 5000 });
  try {
    await pool.query('UPDATE seats SET holder = $1, fence_token = $3 WHERE seat_id = $2 AND fence_token < $3', [holder, seatId, release.fencingToken]);
  } finally {
    await release();
  }
}`,
        }],
      }],
    },
    {
      name: 'simple-redis-mutex: tryLock through a namespace import, the release the second element of its tuple',
      code: `${pg}import { createClient } from 'redis';
import * as mutex from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const [acquired, release] = await mutex.tryLock(redis, 'seat:' + seatId);
  if (!acquired) return;
  ${unfenced}
  await release();
}`,
      errors: [{
        messageId: 'missingFence',
        line: 9,
        suggestions: [{
          messageId: 'addFenceCondition',
          output: `${pg}import { createClient } from 'redis';
import * as mutex from 'simple-redis-mutex';
const redis = createClient();
export async function assign(seatId: string, holder: string) {
  const [acquired, release] = await mutex.tryLock(redis, 'seat:' + seatId);
  if (!acquired) return;
  await pool.query('UPDATE seats SET holder = $1, fence_token = $3 WHERE seat_id = $2 AND fence_token < $3', [holder, seatId, release.fencingToken]);
  await release();
}`,
        }],
      }],
    },
    {
      name: 'locco: lock(key, ttl).acquire() then release()',
      code: `${pg}import Redis from 'ioredis';
import { Locker, IoRedisAdapter } from '@kontsedal/locco';
const keeper = new Locker({ adapter: new IoRedisAdapter({ client: new Redis() }), retrySettings: { retryDelay: 100, retryTimes: 5 } });
export async function assign(seatId: string, holder: string) {
  const h = await keeper.lock('seat:' + seatId, 3000).acquire();
  try {
    ${unfenced}
  } finally {
    await h.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: 'locco: the callback acquire runs its callback under the lock',
      code: `${pg}import { Locker } from '@kontsedal/locco';
declare const adapter: any;
const keeper = new Locker({ adapter, retrySettings: { retryDelay: 100, retryTimes: 5 } });
export async function assign(seatId: string, holder: string) {
  await keeper.lock('seat:' + seatId, 3000).acquire(async () => {
    ${unfenced}
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8, suggestions: [] }],
    },
    {
      name: '@upstash/lock: a Lock object acquired, with an Upstash Redis client',
      code: `${pg}import { Lock } from '@upstash/lock';
import { Redis } from '@upstash/redis';
const redis = new Redis({ url: process.env.UPSTASH_URL!, token: process.env.UPSTASH_TOKEN! });
export async function assign(seatId: string, holder: string) {
  const gate = new Lock({ id: 'seat:' + seatId, lease: 5000, redis });
  if (!(await gate.acquire())) return;
  ${unfenced}
  await gate.release();
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: 'ioredis-lock: createLock(client) through require, acquire(key), release()',
      code: `${pg}const Redis = require('ioredis');
const redislock = require('ioredis-lock');
const client = new Redis();
export async function assign(seatId: string, holder: string) {
  const gate = redislock.createLock(client, { timeout: 20000 });
  await gate.acquire('seat:' + seatId);
  ${unfenced}
  await gate.release();
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: 'redlock-universal: using() runs its callback under the lock',
      code: `${pg}import { createLock, IoredisAdapter } from 'redlock-universal';
import Redis from 'ioredis';
const adapter = new IoredisAdapter(new Redis());
export async function assign(seatId: string, holder: string) {
  const gate = createLock({ adapter, key: 'seat:' + seatId, ttl: 5000 });
  await gate.using(async () => {
    ${unfenced}
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: 'redlock-universal: acquire() returns a handle the lock releases',
      code: `${pg}import { createLock, IoredisAdapter } from 'redlock-universal';
import Redis from 'ioredis';
const adapter = new IoredisAdapter(new Redis());
const gate = createLock({ adapter, key: 'seats', ttl: 5000 });
export async function assign(seatId: string, holder: string) {
  const handle = await gate.acquire();
  try {
    ${unfenced}
  } finally {
    await gate.release(handle);
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10, suggestions: [] }],
    },
    {
      name: '@anchan828/nest-redlock: the injected RedlockService is a Redlock',
      code: `${pg}import { Injectable } from '@nestjs/common';
import { RedlockService } from '@anchan828/nest-redlock';
@Injectable()
export class SeatService {
  constructor(private readonly redlock: RedlockService) {}
  async assign(seatId: string, holder: string) {
    await this.redlock.using(['seat:' + seatId], 5000, async () => {
      ${unfenced}
    });
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10, suggestions: [] }],
    },
    {
      name: '@anchan828/nest-redlock: the body of a method decorated with @Redlock runs under the lock',
      code: `${pg}import { Injectable } from '@nestjs/common';
import { Redlock } from '@anchan828/nest-redlock';
@Injectable()
export class SeatService {
  @Redlock((target: SeatService, seatId: string) => 'seat:' + seatId, 5000)
  async assign(seatId: string, holder: string) {
    ${unfenced}
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: '@nestjs-redis/lock: @Redlock(keys, ttl) around a method that writes Redis',
      code: `import { Injectable } from '@nestjs/common';
import { Redlock } from '@nestjs-redis/lock';
import type { RedisClientType } from 'redis';
@Injectable()
export class QuotaService {
  constructor(private readonly redis: RedisClientType) {}
  @Redlock(['quota:refill'], 2000)
  async refill(tenant: string, credits: number) {
    await this.redis.set('quota:' + tenant, String(credits));
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9, suggestions: [] }],
    },
    {
      name: '@redis-kit/lock: withLock(key, ttl, fn) runs fn under the lock',
      code: `${pg}import { Redlock } from '@redis-kit/lock';
declare const clients: any[];
const redlock = new Redlock(clients);
export async function assign(seatId: string, holder: string) {
  await redlock.withLock('seat:' + seatId, 5000, async () => {
    ${unfenced}
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8, suggestions: [] }],
    },
    {
      name: '@huangang/nestjs-simple-redis-lock: lock(name) ... unlock(name) on the injected service, and @RedisLock',
      code: `${pg}import { RedisLock, RedisLockService } from '@huangang/nestjs-simple-redis-lock';
export class SeatService {
  constructor(protected readonly lockService: RedisLockService) {}
  async assign(seatId: string, holder: string) {
    try {
      await this.lockService.lock('seat:' + seatId, 60000);
      ${unfenced}
    } finally {
      await this.lockService.unlock('seat:' + seatId);
    }
    await pool.query('UPDATE seats SET viewed_at = now() WHERE seat_id = $1', [seatId]);
  }
  @RedisLock('seats:sweep')
  async sweep(seatId: string, holder: string) {
    ${unfenced}
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 17, suggestions: [] },
      ],
    },
  ],
});
