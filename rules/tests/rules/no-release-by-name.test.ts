import rule from '../../src/rules/no-release-by-name.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const ioredis = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
`;

const pg = `import { Pool } from 'pg';
const pool = new Pool();
`;

const LUA_SINGLE = `'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end'`;

ruleTester.run('no-release-by-name', rule, {
  valid: [
    {
      name: 'compare-and-delete script releases only our own value',
      code: `${ioredis}
const RELEASE = \`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end\`;
export async function withLock(key: string, work: () => Promise<void>) {
  const id = randomUUID();
  if ((await redis.set(key, id, 'PX', 10000, 'NX')) !== 'OK') return;
  try { await work(); } finally { await redis.eval(RELEASE, 1, key, id); }
}`,
    },
    {
      name: 'promisified delAsync of a data key under redlock, after an existence check: no lock is released',
      code: `import Redlock from 'redlock';
import { promisifyAll } from 'bluebird';
import { RedisClient } from 'redis';
promisifyAll(RedisClient.prototype);
export async function forget(client: RedisClient, redlock: Redlock, docId: string) {
  const lock = await redlock.lock(\`doc-\${docId}-lock\`, 3000);
  try {
    if ((await client.getAsync(\`doc-\${docId}\`)) !== null) await client.delAsync(\`doc-\${docId}\`);
  } finally {
    await lock.unlock();
  }
}`,
    },
    {
      name: 'DEL of a cache key in a file that also takes a lock',
      code: `${ioredis}
export async function refresh(userId: string) {
  const lockKey = \`lock:profile:\${userId}\`;
  const owner = randomUUID();
  if (!(await redis.set(lockKey, owner, 'EX', 5, 'NX'))) return;
  await redis.del(\`profile-cache:\${userId}\`);
}`,
    },
    {
      name: 'DEL without any lock in the file: ordinary cache invalidation',
      code: `${ioredis}
export async function forget(sessionId: string) {
  await redis.del(\`session:\${sessionId}\`);
}`,
    },
    {
      name: 'a list of held seats, named like a lock and cleared in an unlock method, is data: its DEL releases nothing',
      code: `import Redis from 'ioredis';
export class Booking {
  constructor(private readonly redis: Redis, private readonly guest: string) {}
  async takeGuard(): Promise<boolean> {
    const key = 'booking-guard:' + this.guest;
    if (!(await this.redis.setnx(key, String(Date.now())))) return false;
    await this.redis.expire(key, 120);
    return true;
  }
  async holdSeat(seat: string) {
    await this.redis.rpush('locked_seats_of_' + this.guest, seat);
  }
  async unlockSeat(seat: string) {
    const held = await this.redis.lrange('locked_seats_of_' + this.guest, 0, -1);
    await this.redis.del('locked_seats_of_' + this.guest);
    for (const other of held) if (other !== seat) await this.redis.rpush('locked_seats_of_' + this.guest, other);
  }
  async dropLockQueue(room: string) {
    await this.redis.sadd(\`lock-queue:\${room}\`, this.guest);
    await this.redis.del(\`lock-queue:\${room}\`);
  }
}`,
    },
    {
      name: 'redlock release on the handle is a library release',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
export async function run(id: string) {
  const lock = await redlock.acquire([\`lock:\${id}\`], 5000);
  try { /* work */ } finally { await lock.release(); }
}`,
    },
    {
      name: 'redlock.release(lock) passes the handle',
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function run(id: string) {
  const lock = await redlock.acquire([\`lock:\${id}\`], 5000);
  await redlock.release(lock);
}`,
    },
    {
      name: 'redis-semaphore mutex release',
      code: `import { Mutex } from 'redis-semaphore';
import Redis from 'ioredis';
const client = new Redis();
export async function run(id: string) {
  const mutex = new Mutex(client, \`lock:\${id}\`);
  await mutex.acquire();
  try { /* work */ } finally { await mutex.release(); }
}`,
    },
    {
      name: 'etcd3 Lock release',
      code: `import { Etcd3 } from 'etcd3';
const client = new Etcd3();
export async function run(name: string) {
  const lock = client.lock(\`locks/\${name}\`);
  await lock.acquire();
  try { /* work */ } finally { await lock.release(); }
}`,
    },
    {
      name: 'etcd3 delete inside a transaction that compares the lease',
      code: `import { Etcd3 } from 'etcd3';
const client = new Etcd3();
export async function unlock(lockKey: string, leaseId: string) {
  await client.if(lockKey, 'Lease', '==', leaseId).then(client.delete().key(lockKey)).commit();
}`,
    },
    {
      name: 'lock table release with owner and lease predicates',
      code: `${pg}
export async function unlock(name: string, ownerId: string, leaseId: string) {
  await pool.query('DELETE FROM job_locks WHERE name = $1 AND owner_id = $2 AND lease_id = $3', [name, ownerId, leaseId]);
}`,
    },
    {
      name: 'lock table release compared with the token',
      code: `${pg}
export async function unlock(name: string, token: bigint) {
  await pool.query('DELETE FROM leases WHERE resource = $1 AND fence_token = $2', [name, token]);
}`,
    },
    {
      name: 'reaping expired lock rows',
      code: `${pg}
export async function reap(name: string) {
  await pool.query('DELETE FROM locks WHERE name = $1 AND expires_at < now()', [name]);
  await pool.query('DELETE FROM locks WHERE expires_at < now()');
}`,
    },
    {
      name: 'DELETE by name from a table that is not a lock table',
      code: `${pg}
export async function removeTag(name: string) {
  await pool.query('DELETE FROM tags WHERE name = $1', [name]);
}`,
    },
    {
      name: 'custom authority released with the handle',
      code: `import { LeaseAuthority } from './authority';
const authority = new LeaseAuthority();
export async function run(resourceKey: string) {
  const lease = await authority.acquire(resourceKey);
  try { /* work */ } finally { await authority.release(lease); }
}`,
    },
    {
      name: 'custom authority released with the key and the lease id',
      code: `import { LeaseAuthority } from './authority';
const authority = new LeaseAuthority();
export async function run(resourceKey: string) {
  const { leaseId, fenceToken } = await authority.acquire(resourceKey);
  try { void fenceToken; } finally { await authority.release(resourceKey, leaseId); }
}`,
    },
    {
      name: 'WATCH / MULTI / EXEC makes the delete conditional',
      code: `${ioredis}
export async function unlock(lockKey: string, owner: string) {
  await redis.watch(lockKey);
  if ((await redis.get(lockKey)) === owner) {
    await redis.multi().del(lockKey).exec();
  }
}`,
    },
    {
      name: 'GET compared with null is an existence check, and the key is not a lock',
      code: `${ioredis}
export async function clearIfPresent(cacheKey: string) {
  const cached = await redis.get(cacheKey);
  if (cached !== null) await redis.del(cacheKey);
}`,
    },
    {
      name: 'MySQL named locks belong to the session',
      code: `import mysql from 'mysql2/promise';
const conn = await mysql.createConnection({});
export async function unlock(name: string) {
  await conn.query('SELECT RELEASE_LOCK(?)', [name]);
}`,
    },
    {
      name: 'an UPDATE of a lock table that renews by owner',
      code: `${pg}
export async function renew(name: string, ownerId: string) {
  await pool.query('UPDATE locks SET expires_at = now() + interval \\'30 seconds\\' WHERE name = $1 AND owner_id = $2', [name, ownerId]);
}`,
    },
    {
      name: 'knex delete of a lock row that names its owner',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function release(name: string, owner: string) {
  await db('job_locks').where({ name, owner }).del();
}`,
    },
    {
      name: 'Prisma deleteMany of a lock by key and holder',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function unlock(key: string, holder: string) {
  await prisma.lock.deleteMany({ where: { key, holder } });
}`,
    },
    {
      name: 'DynamoDB delete of a lock item with a ConditionExpression on the owner',
      code: `import { DynamoDBDocumentClient, DeleteCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
export async function release(lockId: string, owner: string) {
  await ddb.send(new DeleteCommand({ TableName: 'locks', Key: { lockId }, ConditionExpression: '#o = :o', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':o': owner } }));
}`,
    },
    {
      name: 'tables that only look like lock tables: lock_events, blocks',
      code: `${pg}
export async function purge(name: string) {
  await pool.query('DELETE FROM lock_events WHERE lock_name = $1', [name]);
  await pool.query('DELETE FROM blocks WHERE name = $1', [name]);
}`,
    },
    {
      name: 'class-based ioredis lock released with a compare-and-delete script',
      code: `import Redis from 'ioredis';
const UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
export class RedisMutex {
  constructor(private readonly redis: Redis, private readonly key: string, private readonly token: string) {}
  async lock(ttlMs: number) { return (await this.redis.set(this.key, this.token, 'PX', ttlMs, 'NX')) === 'OK'; }
  async unlock() { await this.redis.eval(UNLOCK, 1, this.key, this.token); }
}`,
    },
    {
      name: 'a rental leases table: deleting a lease contract is not a lock release',
      code: `${pg}
export async function cancelContract(leaseId: string) {
  await pool.query('DELETE FROM leases WHERE id = $1', [leaseId]);
}`,
    },
    {
      name: 'a login lockout key is not a distributed lock',
      code: `${ioredis}
export async function clearLockout(userId: string) {
  await redis.del(\`lockout:\${userId}\`);
  await redis.del(\`account-locked:\${userId}\`);
}`,
    },
    {
      name: 'a compare-and-delete script passed inline to eval',
      code: `${ioredis}
export async function release(lockKey: string, owner: string) {
  await redis.set(lockKey, owner, 'PX', 1000, 'NX');
  await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, lockKey, owner);
}`,
    },
    {
      name: 'an idempotency marker taken with SET NX and a constant value, deleted on failure',
      code: `${ioredis}
export async function handle(opId: string, apply: () => Promise<void>) {
  const first = await redis.set(\`idem:\${opId}\`, '1', 'EX', 86400, 'NX');
  if (!first) return;
  try { await apply(); } catch (err) { await redis.del(\`idem:\${opId}\`); throw err; }
}`,
    },
  ],
  invalid: [
    {
      name: 'redis.del of the key taken with SET NX; the suggestion compares the SET value',
      code: `${ioredis}
export async function withLock(key: string, work: () => Promise<void>) {
  const id = randomUUID();
  if ((await redis.set(key, id, 'PX', 10000, 'NX')) !== 'OK') return;
  try { await work(); } finally { await redis.del(key); }
}`,
      errors: [
        {
          messageId: 'redisDelete',
          line: 8,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `${ioredis}
export async function withLock(key: string, work: () => Promise<void>) {
  const id = randomUUID();
  if ((await redis.set(key, id, 'PX', 10000, 'NX')) !== 'OK') return;
  try { await work(); } finally { await redis.eval(${LUA_SINGLE}, 1, key, id); }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'GET then DEL: check-then-release, the suggestion uses the compared owner value',
      code: `${ioredis}
export class RedisLock {
  constructor(readonly key: string, readonly owner: string) {}
  async release() {
    const holder = await redis.get(this.key);
    if (holder === this.owner) {
      await redis.del(this.key);
    }
  }
}`,
      errors: [
        {
          line: 10,
          messageId: 'redisCheckThenDelete', data: { checkAt: ' (line 8)' },
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `${ioredis}
export class RedisLock {
  constructor(readonly key: string, readonly owner: string) {}
  async release() {
    const holder = await redis.get(this.key);
    if (holder === this.owner) {
      await redis.eval(${LUA_SINGLE}, 1, this.key, this.owner);
    }
  }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'promisified node-redis 3 client: getAsync, compare in JS, delAsync of the key claimed under redlock',
      code: `import Redlock from 'redlock';
import { promisifyAll } from 'bluebird';
import { RedisClient } from 'redis';
promisifyAll(RedisClient.prototype);
export class Nominations {
  constructor(private readonly client: RedisClient, private readonly redlock: Redlock) {}
  async withdraw(name: string, ticket: string) {
    const key = \`nominee:\${name}\`;
    const lock = await this.redlock.lock(\`\${key}:lock\`, 3000);
    try {
      const holder = await this.client.getAsync(key);
      if (holder === ticket) await this.client.delAsync(key);
    } finally {
      await lock.unlock();
    }
  }
}`,
      errors: [
        {
          line: 12,
          messageId: 'redisCheckThenDelete', data: { checkAt: ' (line 11)' },
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `import Redlock from 'redlock';
import { promisifyAll } from 'bluebird';
import { RedisClient } from 'redis';
promisifyAll(RedisClient.prototype);
export class Nominations {
  constructor(private readonly client: RedisClient, private readonly redlock: Redlock) {}
  async withdraw(name: string, ticket: string) {
    const key = \`nominee:\${name}\`;
    const lock = await this.redlock.lock(\`\${key}:lock\`, 3000);
    try {
      const holder = await this.client.getAsync(key);
      if (holder === ticket) await this.client.evalAsync(${LUA_SINGLE}, 1, key, ticket);
    } finally {
      await lock.unlock();
    }
  }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'GET then early return then DEL',
      code: `${ioredis}
export async function unlock(lockKey: string, me: string) {
  if ((await redis.get(lockKey)) !== me) return false;
  await redis.del(lockKey);
  return true;
}`,
      errors: [
        {
          messageId: 'redisCheckThenDelete',
          line: 7,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `${ioredis}
export async function unlock(lockKey: string, me: string) {
  if ((await redis.get(lockKey)) !== me) return false;
  await redis.eval(${LUA_SINGLE}, 1, lockKey, me);
  return true;
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'node-redis: SET with { NX: true } then del; the suggestion uses the options form of eval',
      code: `import { createClient } from 'redis';
const client = createClient();
export async function runExclusive(jobId: string, token: string, fn: () => Promise<void>) {
  const ok = await client.set(\`job-lock:\${jobId}\`, token, { NX: true, PX: 30000 });
  if (!ok) return;
  try { await fn(); } finally { await client.del(\`job-lock:\${jobId}\`); }
}`,
      errors: [
        {
          messageId: 'redisDelete',
          line: 6,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `import { createClient } from 'redis';
const client = createClient();
export async function runExclusive(jobId: string, token: string, fn: () => Promise<void>) {
  const ok = await client.set(\`job-lock:\${jobId}\`, token, { NX: true, PX: 30000 });
  if (!ok) return;
  try { await fn(); } finally { await client.eval(${LUA_SINGLE}, { keys: [\`job-lock:\${jobId}\`], arguments: [token] }); }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'SET NX with a constant value: reported, no suggestion (nothing owner-specific to compare)',
      code: `${ioredis}
export async function once(name: string, fn: () => Promise<void>) {
  const lockKey = 'lock:' + name;
  if (!(await redis.set(lockKey, '1', 'EX', 60, 'NX'))) return;
  try { await fn(); } finally { await redis.del(lockKey); }
}`,
      errors: [{ messageId: 'redisDelete', line: 8, suggestions: [] }],
    },
    {
      name: 'the key written through a const: DEL of the same template',
      code: `${ioredis}
export async function checkout(cartId: string) {
  const key = \`lock:cart:\${cartId}\`;
  const owner = randomUUID();
  await redis.set(key, owner, 'PX', 8000, 'NX');
  try { /* work */ } catch (err) {
    await redis.del(\`lock:cart:\${cartId}\`);
    throw err;
  }
}`,
      errors: [
        {
          messageId: 'redisDelete',
          line: 10,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `${ioredis}
export async function checkout(cartId: string) {
  const key = \`lock:cart:\${cartId}\`;
  const owner = randomUUID();
  await redis.set(key, owner, 'PX', 8000, 'NX');
  try { /* work */ } catch (err) {
    await redis.eval(${LUA_SINGLE}, 1, \`lock:cart:\${cartId}\`, owner);
    throw err;
  }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'setnx then unlink',
      code: `${ioredis}
export async function leader(nodeId: string) {
  const got = await redis.setnx('leader-lock', nodeId);
  if (got) {
    await redis.unlink('leader-lock');
  }
}`,
      errors: [
        {
          messageId: 'redisDelete',
          line: 8,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `${ioredis}
export async function leader(nodeId: string) {
  const got = await redis.setnx('leader-lock', nodeId);
  if (got) {
    await redis.eval(${LUA_SINGLE}, 1, 'leader-lock', nodeId);
  }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'a release helper deletes a lock-named key of a known Redis client',
      code: `${ioredis}
export async function releaseLock(lockKey: string): Promise<void> {
  await redis.del(lockKey);
}`,
      errors: [{ messageId: 'redisDelete', line: 6, suggestions: [] }],
    },
    {
      name: 'the issue: DELETE FROM locks WHERE name = $1; suggestion with the handle owner and lease',
      code: `${pg}
interface LockHandle { name: string; ownerId: string; leaseId: string }
export async function unlock(handle: LockHandle) {
  await pool.query('DELETE FROM locks WHERE name = $1', [handle.name]);
}`,
      errors: [
        {
          messageId: 'sqlRelease',
          line: 6,
          data: { columns: '`name`' },
          suggestions: [
            {
              messageId: 'addHolderCondition',
              output: `${pg}
interface LockHandle { name: string; ownerId: string; leaseId: string }
export async function unlock(handle: LockHandle) {
  await pool.query('DELETE FROM locks WHERE name = $1 AND owner_id = $2 AND lease_id = $3', [handle.name, handle.ownerId, handle.leaseId]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'only an owner id is in scope: the suggestion adds only the owner condition, with the file\'s column name',
      code: `${pg}
const workerId = process.env.WORKER_ID!;
export async function lock(name: string) {
  await pool.query('INSERT INTO leases (resource, holder, expires_at) VALUES ($1, $2, now() + interval \\'1 minute\\')', [name, workerId]);
}
export async function unlock(name: string) {
  await pool.query('DELETE FROM leases WHERE resource = $1', [name]);
}`,
      errors: [
        {
          messageId: 'sqlRelease',
          line: 9,
          suggestions: [
            {
              messageId: 'addHolderCondition',
              output: `${pg}
const workerId = process.env.WORKER_ID!;
export async function lock(name: string) {
  await pool.query('INSERT INTO leases (resource, holder, expires_at) VALUES ($1, $2, now() + interval \\'1 minute\\')', [name, workerId]);
}
export async function unlock(name: string) {
  await pool.query('DELETE FROM leases WHERE resource = $1 AND holder = $2', [name, workerId]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'no owner or lease value in scope: reported without a suggestion (no invented variable)',
      code: `${pg}
export async function unlock(name: string) {
  await pool.query('DELETE FROM distributed_locks WHERE lock_name = $1', [name]);
}`,
      errors: [{ messageId: 'sqlRelease', data: { columns: '`lock_name`' }, suggestions: [] }],
    },
    {
      name: 'postgres.js tagged template release by key; suggestion interpolates the lease id',
      code: `import postgres from 'postgres';
const sql = postgres();
export async function unlock(key: string, leaseId: string) {
  await sql\`DELETE FROM resource_locks WHERE resource_key = \${key}\`;
}`,
      errors: [
        {
          messageId: 'sqlRelease',
          line: 4,
          suggestions: [
            {
              messageId: 'addHolderCondition',
              output: `import postgres from 'postgres';
const sql = postgres();
export async function unlock(key: string, leaseId: string) {
  await sql\`DELETE FROM resource_locks WHERE resource_key = \${key} AND lease_id = \${leaseId}\`;
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'an UPDATE that clears the holder by name only',
      code: `${pg}
export async function unlock(name: string) {
  await pool.query('UPDATE mutexes SET owner = NULL, expires_at = NULL WHERE name = $1', [name]);
}`,
      errors: [{ messageId: 'sqlRelease', suggestions: [] }],
    },
    {
      name: 'mysql2 release by name, suggestion with ? placeholders',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
export async function unlock(name: string, ownerId: string) {
  await db.execute('DELETE FROM app_locks WHERE name = ?', [name]);
}`,
      errors: [
        {
          messageId: 'sqlRelease',
          suggestions: [
            {
              messageId: 'addHolderCondition',
              output: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
export async function unlock(name: string, ownerId: string) {
  await db.execute('DELETE FROM app_locks WHERE name = ? AND owner_id = ?', [name, ownerId]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'etcd3 delete().key(lockName)',
      code: `import { Etcd3 } from 'etcd3';
const client = new Etcd3();
export async function unlock(lockName: string) {
  await client.delete().key(lockName);
}`,
      errors: [{ messageId: 'etcdDelete', line: 4 }],
    },
    {
      name: 'custom authority released by its resource key although acquire returned a handle',
      code: `import { LeaseAuthority } from './authority';
const authority = new LeaseAuthority();
export async function run(resourceKey: string) {
  const lease = await authority.acquire(resourceKey);
  try { console.log(lease.fenceToken); } finally { await authority.release(resourceKey); }
}`,
      errors: [{ line: 5, messageId: 'authorityByKey', data: { call: '`authority.release(resourceKey)`', acquire: 'line 4' } }],
    },
    {
      name: 'custom lock service: destructured handle, release by template key',
      code: `import { LockClient } from '@acme/locks';
const locks = new LockClient();
export async function publish(docId: string) {
  const { leaseId, token } = await locks.acquire(\`doc:\${docId}\`, { ttlMs: 5000 });
  try { void leaseId; void token; } finally { await locks.unlock(\`doc:\${docId}\`); }
}`,
      errors: [{ messageId: 'authorityByKey', line: 5 }],
    },
    {
      name: 'class-based ioredis lock: unlock() deletes this.key by name; the suggestion uses this.token',
      code: `import Redis from 'ioredis';
export class RedisMutex {
  constructor(private readonly redis: Redis, private readonly key: string, private readonly token: string) {}
  async lock(ttlMs: number) { return (await this.redis.set(this.key, this.token, 'PX', ttlMs, 'NX')) === 'OK'; }
  async unlock() { await this.redis.del(this.key); }
}`,
      errors: [
        {
          messageId: 'redisDelete',
          line: 5,
          suggestions: [
            {
              messageId: 'useCompareAndDelete',
              output: `import Redis from 'ioredis';
export class RedisMutex {
  constructor(private readonly redis: Redis, private readonly key: string, private readonly token: string) {}
  async lock(ttlMs: number) { return (await this.redis.set(this.key, this.token, 'PX', ttlMs, 'NX')) === 'OK'; }
  async unlock() { await this.redis.eval(${LUA_SINGLE}, 1, this.key, this.token); }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'knex delete of a lock row by name only',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function release(name: string) {
  await db('job_locks').where({ name }).del();
}`,
      errors: [{ messageId: 'recordRelease', line: 4, data: { columns: '`name`' } }],
    },
    {
      name: 'Prisma delete of a lock by key only',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function unlock(key: string) {
  await prisma.distributedLock.delete({ where: { key } });
}`,
      errors: [{ line: 4, messageId: 'recordRelease', data: { columns: '`key`' } }],
    },
    {
      name: 'MongoDB deleteOne on the locks collection by _id',
      code: `import { MongoClient } from 'mongodb';
const db = new MongoClient('mongodb://127.0.0.1').db('app');
export async function release(resource: string) {
  await db.collection('locks').deleteOne({ _id: resource });
}`,
      errors: [{ line: 4, messageId: 'recordRelease', data: { columns: '`_id`' } }],
    },
    {
      name: 'DynamoDB DeleteCommand on the lock table without a condition',
      code: `import { DynamoDBDocumentClient, DeleteCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
export async function release(lockId: string) {
  await ddb.send(new DeleteCommand({ TableName: 'locks', Key: { lockId } }));
}`,
      errors: [{ line: 4, messageId: 'recordRelease', data: { columns: '`lockId`' } }],
    },
    {
      name: 'Sequelize destroy of a Lock model by name',
      code: `import { Model } from 'sequelize';
class Lock extends Model {}
export async function unlock(name: string) {
  await Lock.destroy({ where: { name } });
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'a custom authority on this: release(jobId) after acquire(jobId) returned a lease',
      code: `import { LeaseClient } from '@corp/leases';
export class Worker {
  private leases = new LeaseClient();
  async run(jobId: string) {
    const lease = await this.leases.acquire(jobId, { ttl: 30 });
    try { console.log(lease.fencingToken); } finally { await this.leases.release(jobId); }
  }
}`,
      errors: [{ messageId: 'authorityByKey', line: 6 }],
    },
    {
      name: 'node-redis sendCommand DEL of the SET NX key',
      code: `import { createClient } from 'redis';
const client = createClient();
export async function withLock(name: string, owner: string, fn: () => Promise<void>) {
  const lockKey = \`lock:\${name}\`;
  await client.sendCommand(['SET', lockKey, owner, 'NX', 'PX', '5000']);
  try { await fn(); } finally { await client.sendCommand(['DEL', lockKey]); }
}`,
      errors: [{ messageId: 'redisDelete', line: 6, suggestions: [] }],
    },
    {
      name: 'a Lua script that deletes the lock key without comparing its value',
      code: `${ioredis}
const RELEASE = "return redis.call('del', KEYS[1])";
export async function release(lockKey: string) {
  await redis.eval(RELEASE, 1, lockKey);
}`,
      errors: [{ messageId: 'redisDelete', line: 7, suggestions: [] }],
    },
    {
      name: 'a wrapped Redis client (known by name) deletes a lock-named key',
      code: `export class JobRunner {
  constructor(private readonly redisClient: { del(key: string): Promise<number> }) {}
  async finish(jobId: string) {
    await this.redisClient.del(\`job:\${jobId}:lock\`);
  }
}`,
      errors: [{ messageId: 'redisDelete', line: 4, suggestions: [] }],
    },
  ],
});

// SET NX is a lock only when it takes a lease: an expiry, a reply that decides whether the caller
// goes on, and a value that tells holders apart. Markers and store primitives are not locks.
ruleTester.run('no-release-by-name', rule, {
  valid: [
    {
      name: 'a key-value store: putIfAbsent takes key and value from its caller, remove deletes any key',
      code: `${ioredis}
export class SessionStore {
  async putIfAbsent(key: string, value: string, ttlSeconds: number) {
    return redis.set(key, value, 'EX', ttlSeconds, 'NX');
  }
  async remove(key: string) {
    await redis.del(key);
  }
  async removeAll(keys: string[]) {
    for (const key of keys) await redis.del(key);
  }
}`,
    },
    {
      name: 'a namespaced store: the same template of parameters in the set-if-absent and in the delete',
      code: `${ioredis}
export async function storeOnce(bucket: string, key: string, value: string) {
  const stored = await redis.set(\`\${bucket}:\${key}\`, value, 'PX', 60000, 'NX');
  return stored === 'OK';
}
export async function drop(bucket: string, key: string) {
  await redis.del(\`\${bucket}:\${key}\`);
}`,
    },
    {
      name: 'a first-edit timestamp kept with SET NX and no expiry, cleared once the draft is saved',
      code: `${ioredis}
const draftKey = (id: string) => \`draft:\${id}:firstEditAt\`;
export async function noteEdit(id: string) {
  await redis.set(draftKey(id), Date.now(), 'NX');
}
export async function saved(id: string) {
  await redis.del(draftKey(id));
}`,
    },
    {
      name: 'setnx of the current time without an expiry: a marker, not a lease',
      code: `${ioredis}
export async function firstSeen(feed: string) {
  const key = \`feed:\${feed}:since\`;
  if (await redis.setnx(key, new Date().toISOString())) console.log('new feed');
  return key;
}
export async function reset(feed: string) {
  await redis.del(\`feed:\${feed}:since\`);
}`,
    },
    {
      name: 'a "not found" cache entry written with SET NX EX whose reply nobody reads, evicted on error',
      code: `${ioredis}
const ABSENT = '__absent__';
const entryKey = (zone: string, host: string) => \`dns:\${zone}:\${host}\`;
export async function rememberAbsent(zone: string, host: string) {
  await redis.set(entryKey(zone, host), ABSENT, 'EX', 30, 'NX').catch(() => undefined);
}
export async function evict(zone: string, host: string) {
  await redis.del(entryKey(zone, host));
}`,
    },
  ],
  invalid: [
    {
      name: 'a claim with a random owner and an expiry, taken in one method and deleted by name in another',
      code: `${ioredis}
export class ImportClaims {
  private claimKey(batch: string) { return \`import-claim:\${batch}\`; }
  async claim(batch: string) {
    const key = this.claimKey(batch);
    const ok = await redis.set(key, \`worker:\${randomUUID()}\`, 'PX', 20000, 'NX');
    return ok === 'OK';
  }
  async finish(batch: string) {
    const key = this.claimKey(batch);
    await redis.del(key);
  }
}`,
      // The owner value lives in another method: reported without a suggestion.
      errors: [{ messageId: 'redisDelete', line: 14, suggestions: [] }],
    },
    {
      name: 'setnx, then an expire of the same key: a lease taken in two commands',
      code: `${ioredis}
export async function runReport(day: string) {
  const key = \`report-run:\${day}\`;
  const owner = randomUUID();
  if (!(await redis.setnx(key, owner))) return;
  await redis.expire(key, 120);
  try { /* build the report */ } finally { await redis.del(key); }
}`,
      errors: [{ messageId: 'redisDelete', line: 10, suggestions: [{ messageId: 'useCompareAndDelete', output: `${ioredis}
export async function runReport(day: string) {
  const key = \`report-run:\${day}\`;
  const owner = randomUUID();
  if (!(await redis.setnx(key, owner))) return;
  await redis.expire(key, 120);
  try { /* build the report */ } finally { await redis.eval(${LUA_SINGLE}, 1, key, owner); }
}` }] }],
    },
    {
      name: 'a helper pair: acquire generates the owner, release deletes the key it is given',
      code: `${ioredis}
export async function acquire(key: string, ttlMs: number) {
  const owner = randomUUID();
  return (await redis.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK' ? owner : undefined;
}
export async function release(key: string) {
  await redis.del(key);
}`,
      errors: [{ messageId: 'redisDelete', line: 10 }],
    },
  ],
});

const ddbDocument = `import { DynamoDBDocumentClient, DeleteCommand, UpdateCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
`;
const ddbLowLevel = `import { DynamoDBClient, DeleteItemCommand } from '@aws-sdk/client-dynamodb';
const client = new DynamoDBClient({});
`;
const ddbV2 = `import AWS from 'aws-sdk';
const docClient = new AWS.DynamoDB.DocumentClient();
`;

ruleTester.run('no-release-by-name: DynamoDB lock tables', rule, {
  valid: [
    {
      name: 'low-level DeleteItemCommand with a condition on the owner',
      code: `${ddbLowLevel}export async function release(lockId: string, owner: string) {
  await client.send(new DeleteItemCommand({ TableName: 'locks', Key: { lockId: { S: lockId } }, ConditionExpression: 'ownerId = :o', ExpressionAttributeValues: { ':o': { S: owner } } }));
}`,
    },
    {
      name: 'v2 DocumentClient delete with a condition on the owner',
      code: `${ddbV2}export async function release(lockId: string, owner: string) {
  await docClient.delete({ TableName: 'locks', Key: { lockId }, ConditionExpression: '#o = :o', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':o': owner } }).promise();
}`,
    },
    {
      name: 'the DynamoDB lock client releases through its handle',
      code: `import DynamoDBLockClient from 'dynamodb-lock-client';
const locks = new DynamoDBLockClient.FailOpen({ dynamodb: {} as never, lockTable: 'locks', partitionKey: 'id' });
export async function run(id: string) {
  const lock = await locks.acquireLock(id);
  try { /* work */ } finally { await lock.release(); }
}`,
    },
    {
      name: 'a delete from a table that holds no locks',
      code: `${ddbDocument}export async function remove(orderId: string) {
  await ddb.send(new DeleteCommand({ TableName: 'orders', Key: { orderId } }));
}`,
    },
    {
      name: 'an UpdateCommand that clears the owner only where the owner is still us',
      code: `${ddbDocument}export async function release(lockId: string, owner: string) {
  await ddb.send(new UpdateCommand({ TableName: 'locks', Key: { lockId }, UpdateExpression: 'REMOVE ownerId, leaseUntil', ConditionExpression: 'ownerId = :o', ExpressionAttributeValues: { ':o': owner } }));
}`,
    },
    {
      name: 'a delete conditioned on the record version the holder saw',
      code: `${ddbDocument}export async function release(lockId: string, rvn: string) {
  await ddb.send(new DeleteCommand({ TableName: 'lock-table', Key: { lockId }, ConditionExpression: 'recordVersionNumber = :rvn', ExpressionAttributeValues: { ':rvn': rvn } }));
}`,
    },
    {
      name: 'a TransactWriteCommand whose Delete compares the owner',
      code: `${ddbDocument}export async function release(lockId: string, owner: string) {
  await ddb.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: 'locks', Key: { lockId }, ConditionExpression: 'owner = :o', ExpressionAttributeValues: { ':o': owner } } }] }));
}`,
    },
  ],
  invalid: [
    {
      name: 'low-level DeleteItemCommand on the lock table by key only',
      code: `${ddbLowLevel}export async function release(lockId: string) {
  await client.send(new DeleteItemCommand({ TableName: 'locks', Key: { lockId: { S: lockId } } }));
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'v2 DocumentClient delete of a lock by id',
      code: `${ddbV2}export async function release(lockId: string) {
  await docClient.delete({ TableName: 'locks', Key: { lockId } }).promise();
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'attribute_exists(lockId) only asks that the item exists; a takeover keeps it',
      code: `${ddbDocument}export async function release(lockId: string) {
  await ddb.send(new DeleteCommand({ TableName: 'locks', Key: { lockId }, ConditionExpression: 'attribute_exists(lockId)' }));
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'an UpdateCommand that REMOVEs the owner without a condition',
      code: `${ddbDocument}export async function release(lockId: string) {
  await ddb.send(new UpdateCommand({ TableName: 'locks', Key: { lockId }, UpdateExpression: 'REMOVE ownerId, leaseUntil' }));
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'a TransactWriteCommand whose Delete names the lock only',
      code: `${ddbDocument}export async function release(lockId: string) {
  await ddb.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: 'locks', Key: { lockId } } }] }));
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
    {
      name: 'the lock table named through a const with an env fallback',
      code: `${ddbDocument}const LOCK_TABLE = process.env.LOCK_TABLE ?? 'service-locks';
export async function release(lockId: string) {
  await ddb.send(new DeleteCommand({ TableName: LOCK_TABLE, Key: { lockId } }));
}`,
      errors: [{ messageId: 'recordRelease', line: 5 }],
    },
    {
      name: 'a mutexes table deleted by name',
      code: `${ddbDocument}export async function release(name: string) {
  await ddb.send(new DeleteCommand({ TableName: 'mutexes', Key: { name } }));
}`,
      errors: [{ messageId: 'recordRelease', line: 4 }],
    },
  ],
});

const etcdHeader = `import { Etcd3 } from 'etcd3';
const client = new Etcd3();
`;

ruleTester.run('no-release-by-name: etcd lock keys', rule, {
  valid: [
    {
      name: 'etcd3 Lock#release on the handle',
      code: `${etcdHeader}export async function run(name: string) {
  const lock = client.lock(name);
  await lock.acquire();
  try { /* work */ } finally { await lock.release(); }
}`,
    },
    {
      name: 'a key put under a lease, freed by revoking the lease',
      code: `${etcdHeader}export async function run(name: string, id: string) {
  const lease = client.lease(10);
  await lease.put(\`election/\${name}\`).value(id);
  try { /* work */ } finally { await lease.revoke(); }
}`,
    },
    {
      name: 'a transaction compares the value before the delete',
      code: `${etcdHeader}export async function unlock(lockKey: string, me: string) {
  await client.if(lockKey, 'Value', '==', me).then(client.delete().key(lockKey)).commit();
}`,
    },
    {
      name: 'delete of a config key',
      code: `${etcdHeader}export async function clear(name: string) {
  await client.delete().key(\`config/\${name}\`);
}`,
    },
    {
      name: 'delete of a cache prefix',
      code: `${etcdHeader}export async function purge(tenant: string) {
  await client.delete().prefix(\`cache/\${tenant}/\`);
}`,
    },
    {
      name: 'lock().do(cb) releases itself',
      code: `${etcdHeader}export async function run(name: string) {
  await client.lock(name).ttl(10).do(async () => { /* work */ });
}`,
    },
    {
      name: 'a namespaced lease revoked',
      code: `${etcdHeader}const locks = client.namespace('locks/');
export async function run(name: string, me: string) {
  const lease = locks.lease(5);
  await lease.put(name).value(me).exec();
  try { /* work */ } finally { await lease.revoke(); }
}`,
    },
  ],
  invalid: [
    {
      name: 'delete().key(lockName)',
      code: `${etcdHeader}export async function unlock(lockName: string) {
  await client.delete().key(lockName);
}`,
      errors: [{ messageId: 'etcdDelete', line: 4 }],
    },
    {
      name: 'delete().key of a templated lock key',
      code: `${etcdHeader}export async function unlock(job: string) {
  await client.delete().key(\`locks/\${job}\`);
}`,
      errors: [{ messageId: 'etcdDelete', line: 4 }],
    },
    {
      name: 'delete through a locks/ namespace',
      code: `${etcdHeader}const locks = client.namespace('locks/');
export async function unlock(name: string) {
  await locks.delete().key(name);
}`,
      errors: [{ messageId: 'etcdDelete', line: 5 }],
    },
    {
      name: 'a key put under a lease deleted by name instead of revoking the lease',
      code: `${etcdHeader}export async function run(job: string, me: string) {
  const lease = client.lease(10);
  await lease.put(\`jobs/\${job}/owner\`).value(me);
  try { /* work */ } finally { await client.delete().key(\`jobs/\${job}/owner\`); }
}`,
      errors: [{ messageId: 'etcdDelete', line: 6 }],
    },
    {
      name: 'an unlock() method deletes this.key on an etcd client',
      code: `${etcdHeader}export class EtcdMutex {
  constructor(private readonly etcd: Etcd3, private readonly key: string) {}
  async unlock() { await this.etcd.delete().key(this.key); }
}`,
      errors: [{ messageId: 'etcdDelete', line: 5 }],
    },
    {
      name: 'the leader lock key from a const',
      code: `${etcdHeader}const LOCK_KEY = 'scheduler/leader-lock';
export async function stepDown() {
  await client.delete().key(LOCK_KEY);
}`,
      errors: [{ messageId: 'etcdDelete', line: 5 }],
    },
    {
      name: 'delete().prefix of a lock prefix',
      code: `${etcdHeader}export async function unlockAll(job: string) {
  await client.delete().prefix(\`locks/\${job}\`);
}`,
      errors: [{ messageId: 'etcdDelete', line: 4 }],
    },
  ],
});

const ioredisOnly = `import Redis from 'ioredis';
const redis = new Redis();
`;

ruleTester.run('no-release-by-name: Redis DEL and UNLINK through wrappers', rule, {
  valid: [
    {
      name: 'a wrapper class deletes a cache key',
      code: `${ioredisOnly}export class Cache {
  constructor(private readonly client: Redis) {}
  async evict(id: string) { await this.client.del(\`user:\${id}\`); }
}`,
    },
    {
      name: 'a wrapper class releases with compare-and-delete',
      code: `${ioredisOnly}const UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
export class Locker {
  constructor(private readonly client: Redis) {}
  async unlock(key: string, token: string) { return this.client.eval(UNLOCK, 1, \`lock:\${key}\`, token); }
}`,
    },
    {
      name: 'a Map entry named lock deleted in memory',
      code: `const locks = new Map<string, string>();
export function release(name: string) { locks.delete(\`lock:\${name}\`); }`,
    },
    {
      name: 'fs.unlink of a lock file is not Redis',
      code: `import { unlink } from 'node:fs/promises';
import * as fs from 'node:fs/promises';
export async function releaseLockFile(dir: string) { await fs.unlink(\`\${dir}/app.lock\`); }`,
    },
    {
      name: 'node-redis unLink of a session key',
      code: `import { createClient } from 'redis';
const client = createClient();
export async function logout(id: string) { await client.unLink(\`session:\${id}\`); }`,
    },
    {
      name: 'WATCH, compare, MULTI DEL: EXEC fails if the key changed',
      code: `${ioredisOnly}export async function unlock(lockKey: string, me: string) {
  await redis.watch(lockKey);
  if ((await redis.get(lockKey)) !== me) { await redis.unwatch(); return; }
  await redis.multi().del(lockKey).exec();
}`,
    },
    {
      name: 'a wrapper around redis-semaphore releases through the mutex',
      code: `import { Mutex } from 'redis-semaphore';
export class JobLock {
  private mutex?: Mutex;
  constructor(private readonly redis: any, private readonly id: string) {}
  async take() { this.mutex = new Mutex(this.redis, \`lock:\${this.id}\`); await this.mutex.acquire(); }
  async free() { await this.mutex?.release(); }
}`,
    },
    {
      name: 'a nested Redis client deletes a rate-limit key',
      code: `export class RateLimiter {
  constructor(private readonly cacheService: { redis: { del(k: string): Promise<number> } }) {}
  async reset(ip: string) { await this.cacheService.redis.del(\`rate:\${ip}\`); }
}`,
    },
  ],
  invalid: [
    {
      name: 'UNLINK of a lock key',
      code: `${ioredisOnly}export async function release(name: string) { await redis.unlink(\`lock:\${name}\`); }`,
      errors: [{ messageId: 'redisDelete', line: 3 }],
    },
    {
      name: 'a nested Redis client (this.cache.redis) deletes a lock key',
      code: `export class JobLock {
  constructor(private readonly cache: { redis: { del(k: string): Promise<number> } }) {}
  async release(id: string) { await this.cache.redis.del(\`lock:job:\${id}\`); }
}`,
      errors: [{ messageId: 'redisDelete', line: 3 }],
    },
    {
      name: 'a wrapper class holding an ioredis client deletes the lock key',
      code: `${ioredisOnly}export class Locker {
  constructor(private readonly client: Redis) {}
  async unlock(key: string) { await this.client.del(\`lock:\${key}\`); }
}`,
      errors: [{ messageId: 'redisDelete', line: 5 }],
    },
    {
      name: 'a same-file removeKey(key) wrapper called with the SET NX key',
      code: `${ioredisOnly}async function removeKey(key: string) { await redis.del(key); }
export async function withLock(name: string, me: string, fn: () => Promise<void>) {
  if ((await redis.set(\`lock:\${name}\`, me, 'PX', 5000, 'NX')) !== 'OK') return;
  try { await fn(); } finally { await removeKey(\`lock:\${name}\`); }
}`,
      errors: [{ messageId: 'redisDelete', line: 6 }],
    },
    {
      name: 'a pipeline DEL of lock keys',
      code: `${ioredisOnly}export async function releaseAll(names: string[]) {
  const p = redis.pipeline();
  for (const n of names) p.del(\`lock:\${n}\`);
  await p.exec();
}`,
      errors: [{ messageId: 'redisDelete', line: 5 }],
    },
    {
      name: 'a getter returning the node-redis client, then del of a lock key',
      code: `import { createClient } from 'redis';
const client = createClient();
function redisClient() { return client; }
export async function unlock(resource: string) { await redisClient().del(\`\${resource}:lock\`); }`,
      errors: [{ messageId: 'redisDelete', line: 4 }],
    },
    {
      name: 'MULTI DEL of the lock key without WATCH',
      code: `${ioredisOnly}export async function unlock(lockKey: string) {
  await redis.multi().del(lockKey).exec();
}`,
      errors: [{ messageId: 'redisDelete', line: 4 }],
    },
    {
      name: 'a Mutex class whose unlock() deletes its key',
      code: `${ioredisOnly}export class Mutex {
  private key: string;
  constructor(private readonly store: Redis, name: string) { this.key = \`mutex:\${name}\`; }
  async unlock() { await this.store.del(this.key); }
}`,
      errors: [{ messageId: 'redisDelete', line: 6 }],
    },
  ],
});

// A lock built on the project's own key-value interface: its set-if-absent is an options object.
ruleTester.run('no-release-by-name: locks over a key-value interface', rule, {
  valid: [
    {
      name: 'a cache that sets a constant without overwriting and deletes it on invalidation is no lock',
      code: `interface Cache { set(k: string, v: string, o: { canOverride: boolean; ttlMs: number }): Promise<void>; delete(k: string): Promise<void> }
export class SeenEvents {
  constructor(private readonly cache: Cache) {}
  async remember(eventId: string) {
    await this.cache.set(\`seen:\${eventId}\`, '1', { canOverride: false, ttlMs: 60_000 });
  }
  async release(eventId: string) {
    await this.cache.delete(\`seen:\${eventId}\`);
  }
}`,
    },
    {
      name: 'the release deletes only its own value through the store',
      code: `interface Store { set(k: string, v: string, o: { overwrite: boolean; ttl: number }): Promise<void>; deleteIfEquals(k: string, v: string): Promise<boolean> }
export class Leases {
  constructor(private readonly store: Store) {}
  async acquire(name: string, holder: string) {
    await this.store.set(name, holder, { overwrite: false, ttl: 30 });
    return { name, holder };
  }
  async release(lease: { name: string; holder: string }) {
    await this.store.deleteIfEquals(lease.name, lease.holder);
  }
}`,
    },
    {
      name: 'a delete of every key under a prefix in another method is not the release of one handle',
      code: `interface Store { set(k: string, v: string, o: { canOverride: boolean; ttlMs: number }): Promise<void>; delete(k: string): Promise<void>; keys(p: string): Promise<string[]> }
export class Mutexes {
  constructor(private readonly store: Store) {}
  async acquire(key: string, ttlMs: number) {
    await this.store.set(key, 'held', { canOverride: false, ttlMs });
    return { key };
  }
  async purge(prefix: string) {
    for (const key of await this.store.keys(prefix)) await this.store.delete(key);
  }
}`,
    },
  ],
  invalid: [
    {
      name: "acquire sets a constant with canOverride: false and a TTL; release deletes the handle's key by name",
      code: `interface Store { set(k: string, v: string, o: { canOverride: boolean; ttlMs: number }): Promise<void>; delete(k: string): Promise<void> }
export class Mutexes {
  constructor(private readonly store: Store) {}
  async acquire(key: string, ttlMs: number) {
    await this.store.set(key, 'held', { canOverride: false, ttlMs });
    return { key };
  }
  async release(mutex: { key: string }) {
    await this.store.delete(mutex.key);
  }
}`,
      errors: [{ messageId: 'redisDelete', line: 9 }],
    },
  ],
});

// The release of a lease kept by hand in a record field: the field cleared by a filter on the record only.
ruleTester.run('no-release-by-name: lease fields kept by hand', rule, {
  valid: [
    {
      name: 'the release clears the start only where it is still this worker\'s start',
      code: `export class Parcels {
  constructor(private readonly parcelRepository: any) {}
  async lock(parcel: { id: string; claimedAt: number | null }) {
    if (parcel.claimedAt && Date.now() - parcel.claimedAt < 60_000) throw new Error('busy');
    await this.parcelRepository.update({ id: parcel.id, claimedAt: parcel.claimedAt }, { claimedAt: Date.now() });
  }
  async unlock(parcel: { id: string; claimedAt: number }) {
    await this.parcelRepository.update({ id: parcel.id, claimedAt: parcel.claimedAt }, { claimedAt: null });
  }
}`,
    },
    {
      name: 'a field set to null in a file that never checks it against the clock is no lease',
      code: `export class Parcels {
  constructor(private readonly parcelRepository: any) {}
  async releaseHold(parcel: { id: string }) {
    await this.parcelRepository.update({ id: parcel.id }, { heldBy: null });
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'unlock() clears the start field by the record\'s key only, through an object API',
      code: `export class Parcels {
  constructor(private readonly parcelRepository: any) {}
  async lock(parcel: { id: string; claimedAt: number | null }) {
    if (parcel.claimedAt && Date.now() - parcel.claimedAt < 60_000) throw new Error('busy');
    await this.parcelRepository.update({ id: parcel.id }, { claimedAt: Date.now() });
  }
  async unlock(parcel: { id: string }, nextDepot: string) {
    await this.parcelRepository.update({ id: parcel.id }, { claimedAt: null, depot: nextDepot });
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 8 }],
    },
    {
      name: 'the same release in SQL: the column cleared WHERE the row\'s key only',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function takeParcelLease(parcel: { id: string; claimedAt: number | null }) {
  if (parcel.claimedAt !== null && Date.now() - parcel.claimedAt < 60_000) throw new Error('busy');
  await pool.query('UPDATE parcels SET claimed_at = $2 WHERE id = $1', [parcel.id, Date.now()]);
}
export async function releaseParcelLease(id: string) {
  await pool.query('UPDATE parcels SET claimed_at = NULL WHERE id = $1', [id]);
}`,
      errors: [{ messageId: 'leaseClear', line: 8 }],
    },
  ],
});

// A parameter called `key` in several methods of one store names a different key in each.
ruleTester.run('no-release-by-name: same parameter name, different keys', rule, {
  valid: [],
  invalid: [
    {
      name: 'only the release method frees the lock; dropping a bad cache entry under a same-named parameter is no release',
      code: `import { createClient } from 'redis';
type Client = ReturnType<typeof createClient>;
export class QuotaCache {
  constructor(private readonly client: Client) {}
  async tryTakeRefreshLock(key: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(key, 'x', { NX: true, PX: ttlMs })) !== null;
  }
  async releaseRefreshLock(key: string): Promise<void> {
    await this.client.del(key);
  }
  async read(key: string): Promise<number | undefined> {
    const raw = await this.client.get(key);
    if (raw !== null && Number.isNaN(Number(raw))) {
      await this.client.del(key);
      return undefined;
    }
    return raw === null ? undefined : Number(raw);
  }
}`,
      errors: [{ messageId: 'redisDelete', line: 9 }],
    },
  ],
});

// A lease claimed in a record field: one write stores the clock there on the condition that the field
// is empty; whoever holds it clears the field again. Clearing it by the record's key alone frees the
// claim of whoever took it over after this holder's run outlived the stale threshold.
ruleTester.run('no-release-by-name: record fields claimed while empty', rule, {
  valid: [
    {
      name: 'the claim value is in the clearing filter, so only this holder\'s claim is freed',
      code: `export class Sweeps {
  constructor(private readonly ds: any) {}
  async claim(name: string, at: Date) {
    const result = await this.ds.getRepository(Sweep).createQueryBuilder().update().set({ lockedAt: at }).where('name = :name', { name }).andWhere('lockedAt IS NULL').execute();
    return result.affected === 1;
  }
  async finish(name: string, at: Date) {
    await this.ds.getRepository(Sweep).update({ name, lockedAt: at }, { lockedAt: null });
  }
}
class Sweep {}`,
    },
    {
      name: 'a timestamp set unconditionally and cleared later is no claim',
      code: `export class Sweeps {
  constructor(private readonly ds: any) {}
  async touch(name: string) {
    await this.ds.getRepository(Sweep).update({ name }, { lockedAt: new Date() });
  }
  async forget(name: string) {
    await this.ds.getRepository(Sweep).update({ name }, { lockedAt: null });
  }
}
class Sweep {}`,
    },
  ],
  invalid: [
    {
      name: 'claimed by a builder update while empty, cleared by name after the run and on shutdown',
      code: `export class Sweeps {
  constructor(private readonly ds: any) {}
  async run(name: string, job: () => Promise<string>) {
    const result = await this.ds.getRepository(Sweep).createQueryBuilder().update().set({ lockedAt: new Date() }).where('name = :name', { name }).andWhere('lockedAt IS NULL').execute();
    if (!result.affected) return;
    const outcome = await job();
    await this.ds.getRepository(Sweep).update({ name }, { lockedAt: null, outcome });
  }
  async shutdown(names: string[]) {
    for (const name of names) await this.ds.getRepository(Sweep).update({ name }, { lockedAt: null });
  }
}
class Sweep {}`,
      errors: [{ messageId: 'leaseClear', line: 7 }, { messageId: 'leaseClear', line: 10 }],
    },
    {
      name: 'claimed through an object filter that asks for an empty field',
      code: `export class Exports {
  constructor(private readonly exportRepository: any) {}
  async start(id: string) {
    await this.exportRepository.update({ id, lockedAt: null }, { lockedAt: Date.now() });
    await this.exportRepository.update({ id }, { lockedAt: null, state: 'done' });
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 5 }],
    },
  ],
});

// A queue row claimed by moving it out of a state while the claim stores who holds it and when
// (`status: 'queued'` -> `'sending'`, `claimedBy`, `lockedAt`); a sweeper returns claims older than
// a threshold. The holder's final write clears the claim with `$unset` by the row's id alone, so a
// sender that outlived the threshold frees the claim of the sender that took the row over.
const mailQueue = `import { Collection } from 'mongodb';
interface Mail { _id: string; status: string; worker?: string; lockedAt?: Date }
export class MailQueue {
  constructor(private readonly mails: Collection<Mail>) {}
  async claim(worker: string) {
    const now = new Date();
    return this.mails.findOneAndUpdate({ status: 'queued' }, { $set: { status: 'sending', worker, lockedAt: now } });
  }
  async sweep(before: Date) {
    await this.mails.updateMany({ status: 'sending', lockedAt: { $lt: before } }, { $set: { status: 'queued' }, $unset: { worker: '', lockedAt: '' } });
  }
`;

ruleTester.run('no-release-by-name: queue rows claimed by a move out of a state', rule, {
  valid: [
    {
      name: 'the final write names the holder it clears, and the sweeper names the stale claim',
      code: `${mailQueue}
  async sent(id: string, worker: string) {
    await this.mails.updateOne({ _id: id, worker }, { $set: { status: 'sent' }, $unset: { worker: '', lockedAt: '' } });
  }
  async retry(id: string, lockedAt: Date) {
    await this.mails.updateOne({ _id: id, lockedAt }, { $set: { status: 'queued' }, $unset: { worker: '', lockedAt: '' } });
  }
}`,
    },
    {
      name: 'a soft delete is no claim, and restoring the record is no release',
      code: `import { Collection } from 'mongodb';
export class Boards {
  constructor(private readonly boards: Collection<{ _id: string; deletedAt?: Date }>) {}
  async trash(id: string) {
    await this.boards.updateOne({ _id: id, deletedAt: null }, { $set: { deletedAt: new Date() } });
  }
  async restore(id: string) {
    await this.boards.updateOne({ _id: id }, { $unset: { deletedAt: '' } });
  }
}`,
    },
    {
      name: 'a move out of a state that stores no holder claims nothing',
      code: `import { Collection } from 'mongodb';
export class Exports {
  constructor(private readonly exportsCol: Collection<{ _id: string; status: string; lockedAt?: Date }>) {}
  async start(id: string) {
    await this.exportsCol.updateOne({ _id: id, status: 'new' }, { $set: { status: 'running', lockedAt: new Date() } });
  }
  async done(id: string) {
    await this.exportsCol.updateOne({ _id: id }, { $set: { status: 'done' }, $unset: { lockedAt: '' } });
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'cleared by id after the send and on a failure',
      code: `${mailQueue}
  async sent(id: string) {
    await this.mails.updateOne({ _id: id }, { $set: { status: 'sent' }, $unset: { worker: '', lockedAt: '' } });
  }
  async retry(id: string, error: string) {
    await this.mails.updateOne({ _id: id }, { $set: { status: 'queued', error }, $inc: { attempts: 1 }, $unset: { worker: '', lockedAt: '' } });
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 14 }, { messageId: 'leaseClear', line: 17 }],
    },
    {
      name: 'a field claimed while empty and cleared with $unset by id',
      code: `import { Collection, ObjectId } from 'mongodb';
export class Jobs {
  constructor(private readonly jobs: Collection<{ _id: ObjectId; lockedAt?: Date | null }>) {}
  async lock(id: string) {
    const criteria = { _id: new ObjectId(id), lockedAt: null };
    return this.jobs.findOneAndUpdate(criteria, { $set: { lockedAt: new Date() } });
  }
  async unlockAll(ids: string[]) {
    await this.jobs.updateMany({ _id: { $in: ids.map((id) => new ObjectId(id)) } }, { $unset: { lockedAt: true } });
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 9 }],
    },
    {
      name: 'the run\'s state written back by id, the claimed field with it (empty once the run is over)',
      code: `import { Collection, ObjectId } from 'mongodb';
export class Jobs {
  constructor(private readonly jobs: Collection<{ _id: ObjectId; lockedAt?: Date | null }>) {}
  async lock(id: string) {
    return this.jobs.findOneAndUpdate({ _id: new ObjectId(id), lockedAt: null }, { $set: { lockedAt: new Date() } });
  }
  async saveState(job: { id: string; lockedAt?: Date; lastRunAt?: Date }) {
    const $set = { lockedAt: job.lockedAt || undefined, lastRunAt: job.lastRunAt };
    await this.jobs.updateOne({ _id: new ObjectId(job.id) }, { $set });
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 9 }],
    },
  ],
});

// The same lease in SQL text: one statement stores the clock in a column on the condition that it is
// empty; clearing it (or writing the run's state back with it) by the row's id alone is a release by name.
const ticketClaim = `${pg}export class Tickets {
  async claim(id: string) {
    const { rows } = await pool.query(
      'UPDATE tickets SET locked_at = NOW() WHERE id = (SELECT id FROM tickets WHERE id = $1 AND locked_at IS NULL FOR UPDATE SKIP LOCKED) RETURNING *',
      [id],
    );
    return rows[0];
  }
`;

ruleTester.run('no-release-by-name: columns claimed while empty in SQL', rule, {
  valid: [
    {
      name: 'the clearing statement names the claim it clears',
      code: `${ticketClaim}
  async finish(id: string, lockedAt: Date) {
    await pool.query('UPDATE tickets SET locked_at = NULL, done = true WHERE id = $1 AND locked_at = $2', [id, lockedAt]);
  }
}`,
    },
    {
      name: 'a soft delete stamps a column on the condition that it is empty, and is no claim',
      code: `${pg}export class Repos {
  async remove(url: string) {
    await pool.query('UPDATE repos SET deleted_at = NOW() WHERE url = $1 AND deleted_at IS NULL', [url]);
  }
  async restore(url: string) {
    await pool.query('UPDATE repos SET deleted_at = NULL, enabled = true WHERE url = $1', [url]);
  }
}`,
    },
    {
      name: 'a column stored unconditionally is no claim',
      code: `${pg}export class Tickets {
  async touch(id: string) {
    await pool.query('UPDATE tickets SET locked_at = NOW() WHERE id = $1', [id]);
  }
  async finish(id: string) {
    await pool.query('UPDATE tickets SET locked_at = NULL WHERE id = $1', [id]);
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'cleared by id on shutdown, and written back with the run\'s state',
      code: `${ticketClaim}
  async shutdown(ids: string[]) {
    await pool.query('UPDATE tickets SET locked_at = NULL WHERE id = ANY($1::uuid[])', [ids]);
  }
  async saveState(t: { id: string; lockedAt?: Date; progress: number }) {
    await pool.query('UPDATE tickets SET locked_at = $2, progress = $3 WHERE id = $1', [t.id, t.lockedAt || null, t.progress]);
  }
}`,
      errors: [{ messageId: 'leaseClear', line: 13 }, { messageId: 'leaseClear', line: 16 }],
    },
  ],
});
