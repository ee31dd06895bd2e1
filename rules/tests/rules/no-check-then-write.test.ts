import rule from '../../src/rules/no-check-then-write.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const pg = `import { Pool } from 'pg';
const pool = new Pool();
`;

const redlockPg = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
`;

const authorityPg = `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
`;

ruleTester.run('no-check-then-write', rule, {
  valid: [
    {
      name: 'the article: the comparison is inside the UPDATE, the earlier SELECT is for logging',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM resource_state WHERE resource_key = $1', [key]);
  if (rows[0].fence_token >= lease.fenceToken) console.warn('probably stale');
  const r = await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
  if (r.rowCount === 0) throw new Error('stale');
}`,
    },
    {
      name: 'stored token compared, then a conditional UPDATE that repeats the comparison',
      code: `${pg}
export async function apply(id: string, fenceToken: number, body: string) {
  const { rows } = await pool.query('SELECT fence_token FROM documents WHERE id = $1', [id]);
  if (rows[0].fence_token >= fenceToken) return 'stale';
  await pool.query('UPDATE documents SET body = $1, fence_token = $2 WHERE id = $3 AND fence_token < $2', [body, fenceToken, id]);
  return 'ok';
}`,
    },
    {
      name: 'SELECT ... FOR UPDATE and the UPDATE in one transaction on the same client',
      code: `${pg}
export async function apply(id: string, fenceToken: number, body: string) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT fence_token FROM documents WHERE id = $1 FOR UPDATE', [id]);
    if (rows[0].fence_token >= fenceToken) { await client.query('ROLLBACK'); return; }
    await client.query('UPDATE documents SET body = $1, fence_token = $2 WHERE id = $3', [body, fenceToken, id]);
    await client.query('COMMIT');
  } finally { client.release(); }
}`,
    },
    {
      name: 'a SERIALIZABLE transaction makes the read and the write one unit',
      code: `${pg}
export async function apply(id: string, fenceToken: number, body: string) {
  const client = await pool.connect();
  await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
  const { rows } = await client.query('SELECT fence_token FROM documents WHERE id = $1', [id]);
  if (rows[0].fence_token >= fenceToken) throw new Error('stale');
  await client.query('UPDATE documents SET body = $1, fence_token = $2 WHERE id = $3', [body, fenceToken, id]);
  await client.query('COMMIT');
}`,
    },
    {
      name: 'an expiry check that only logs does not guard the write, and the write is fenced',
      code: `${redlockPg}
export async function refresh(id: string, snippet: string, token: number) {
  const lock = await redlock.acquire([\`snippet:\${id}\`], 5000);
  try {
    if (lock.expiration <= Date.now()) {
      console.warn('lock expired; the fenced write decides');
    }
    await pool.query('UPDATE documents SET snippet = $2, snippet_fence_token = $3 WHERE id = $1 AND snippet_fence_token < $3', [id, snippet, token]);
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'a non-token column compared in code (status) is business logic, not a fence',
      code: `${pg}
export async function close(id: string) {
  const { rows } = await pool.query('SELECT status FROM orders WHERE id = $1', [id]);
  if (rows[0].status !== 'open') throw new Error('not open');
  await pool.query('UPDATE orders SET status = $2 WHERE id = $1', [id, 'closed']);
}`,
    },
    {
      name: 'Prisma optimistic concurrency: the version is in the update filter',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function rename(id: string, name: string, expected: number) {
  const doc = await prisma.document.findUnique({ where: { id } });
  if (!doc || doc.version !== expected) throw new Error('conflict');
  await prisma.document.updateMany({ where: { id, version: expected }, data: { name, version: { increment: 1 } } });
}`,
    },
    {
      name: 'MongoDB: the fence token is in the updateOne filter',
      code: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('mongodb://127.0.0.1').db('app').collection('docs');
export async function save(id: string, fenceToken: number, body: string) {
  const current = await docs.findOne({ _id: id });
  if (current && current.fenceToken >= fenceToken) return;
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
}`,
    },
    {
      name: 'Date.now() for a deadline: not a lease check',
      code: `${pg}
export async function drain(id: string) {
  const deadline = Date.now() + 5000;
  if (Date.now() > deadline) throw new Error('timeout');
  await pool.query('UPDATE queues SET drained = true WHERE id = $1', [id]);
}`,
    },
    {
      name: 'a cache entry expiry compared with the clock is not a lease',
      code: `${pg}
const cache = new Map<string, { expiresAt: number; value: string }>();
export async function lookup(key: string) {
  const entry = cache.get(key);
  if (entry && entry.expiresAt > Date.now()) return entry.value;
  await pool.query('UPDATE lookups SET misses = misses + 1 WHERE key = $1', [key]);
  return undefined;
}`,
    },
    {
      name: 'a lease check before a write that carries the token comparison',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (!(await lease.isValid())) throw new Error('lease lost');
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
}`,
    },
    {
      name: 'GET of a cache key compared, then SET: no token and no lock',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function remember(userId: string, etag: string, body: string) {
  const current = await redis.get(\`profile:\${userId}:etag\`);
  if (current === etag) return;
  await redis.set(\`profile:\${userId}\`, body);
}`,
    },
    {
      name: 'stored token read from one table, unrelated write to another table',
      code: `${pg}
export async function audit(id: string, fenceToken: number) {
  const { rows } = await pool.query('SELECT fence_token FROM documents WHERE id = $1', [id]);
  if (rows[0].fence_token >= fenceToken) {
    await pool.query('UPDATE audit_counters SET stale_attempts = stale_attempts + 1 WHERE name = $1', ['documents']);
  }
}`,
    },
    {
      name: 'extend followed by a fenced write',
      code: `${redlockPg}
export async function step(id: string, token: number) {
  let lock = await redlock.acquire([\`job:\${id}\`], 5000);
  lock = await lock.extend(5000);
  await pool.query('UPDATE jobs SET step = step + 1, fence_token = $2 WHERE id = $1 AND fence_token < $2', [id, token]);
  await lock.release();
}`,
    },
    {
      name: 'a lease check guarding only the release, not a write',
      code: `${redlockPg}
export async function finish(id: string) {
  const lock = await redlock.acquire([\`job:\${id}\`], 5000);
  if (lock.expiration > Date.now()) {
    await lock.release();
  }
}`,
    },
    {
      name: 'token compared with a stored token that came from the request, not from a read',
      code: `${pg}
export async function accept(req: { body: { fenceToken: number; id: string } }, current: { fenceToken: number }) {
  if (req.body.fenceToken <= current.fenceToken) throw new Error('stale');
  await pool.query('UPDATE documents SET body = $1, fence_token = $2 WHERE id = $3 AND fence_token < $2', ['x', req.body.fenceToken, req.body.id]);
}`,
    },
    {
      name: 'a refresh token compared for equality is authentication, not a fence',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function rotate(userId: string, presented: string, next: string) {
  await redis.set(\`lock:rotate:\${userId}\`, '1', 'EX', 5, 'NX');
  const { rows } = await pool.query('SELECT token FROM refresh_tokens WHERE user_id = $1', [userId]);
  if (rows[0].token !== presented) throw new Error('unauthorized');
  await pool.query('UPDATE refresh_tokens SET token = $2 WHERE user_id = $1', [userId, next]);
}`,
    },
    {
      name: 'a version compared for equality without bumping it is a cache check',
      code: `${pg}
export async function render(id: string, knownVersion: number, fenceToken: number) {
  const { rows } = await pool.query('SELECT version FROM docs WHERE id = $1', [id]);
  if (rows[0].version === knownVersion) return 'not modified';
  await pool.query('UPDATE doc_views SET views = views + 1 WHERE id = $1', [id]);
  return fenceToken;
}`,
    },
    {
      name: 'SET XX on the lock key after GET === me is lock upkeep, not the guarded write',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function renew(lockKey: string, me: string) {
  if (!(await redis.set(lockKey, me, 'PX', 5000, 'NX'))) return;
  if ((await redis.get(lockKey)) === me) {
    await redis.set(lockKey, me, 'PX', 5000, 'XX');
  }
}`,
    },
    {
      name: 'the remaining time is only logged',
      code: `${redlockPg}
export async function job(id: string) {
  const lock = await redlock.acquire([\`job:\${id}\`], 10000);
  const left = lock.expiration - Date.now();
  console.log('ms left', left);
  await pool.query('UPDATE jobs SET done = true WHERE id = $1', [id]);
}`,
    },
    {
      name: 'a rental lease object checked for activity in a file that takes no lock',
      code: `${pg}
export async function raiseRent(lease: { id: string; isActive(): boolean; expiresAt: Date }, rent: number) {
  if (!lease.isActive() || lease.expiresAt < new Date()) throw new Error('inactive lease');
  await pool.query('UPDATE rental_leases SET rent = $1 WHERE id = $2', [rent, lease.id]);
}`,
    },
    {
      name: 'extend long before the write: not "right before"',
      code: `${redlockPg}
export async function step(id: string, a: () => Promise<void>, b: () => Promise<void>, c: () => Promise<void>) {
  const lock = await redlock.acquire([\`job:\${id}\`], 5000);
  await lock.extend(5000);
  await a();
  await b();
  await c();
  await pool.query('UPDATE jobs SET step = step + 1 WHERE id = $1', [id]);
}`,
    },
    {
      name: 'a schema version read by a helper is not a stored token',
      code: `${pg}
async function getSchemaVersion() { return 4; }
export async function migrate() {
  await pool.query('SELECT pg_advisory_lock(42)');
  const v = await getSchemaVersion();
  if (v < 5) {
    await pool.query("UPDATE settings SET value = 'x' WHERE key = 'k'");
  }
}`,
    },
    {
      name: 'redlock using: the abort signal is checked, and the write is fenced',
      code: `${redlockPg}
export async function sync(id: string, token: number) {
  await redlock.using([\`sync:\${id}\`], 5000, async (signal) => {
    if (signal.aborted) throw signal.error;
    await pool.query('UPDATE mirrors SET data = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', ['x', id, token]);
  });
}`,
    },
    {
      name: 'knex transaction: forUpdate read and update on the same trx',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function apply(id: string, fenceToken: number, body: string) {
  await db.transaction(async (trx) => {
    const row = await trx('documents').where({ id }).forUpdate().first('fence_token');
    if (row && row.fence_token >= fenceToken) throw new Error('stale');
    await trx('documents').where({ id }).update({ body, fence_token: fenceToken });
  });
}`,
    },
    {
      name: 'postgres.js sql.begin: FOR UPDATE and UPDATE on the transaction',
      code: `import postgres from 'postgres';
const sql = postgres();
export async function apply(id: string, fenceToken: number, body: string) {
  await sql.begin(async (tx) => {
    const [row] = await tx\`SELECT fence_token FROM documents WHERE id = \${id} FOR UPDATE\`;
    if (row.fence_token >= fenceToken) throw new Error('stale');
    await tx\`UPDATE documents SET body = \${body}, fence_token = \${fenceToken} WHERE id = \${id}\`;
  });
}`,
    },
    {
      name: 'Prisma interactive transaction: raw FOR UPDATE, then update on tx',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function apply(id: string, fenceToken: number, body: string) {
  await prisma.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ fence_token: number }[]>\`SELECT fence_token FROM documents WHERE id = \${id} FOR UPDATE\`;
    if (row.fence_token >= fenceToken) throw new Error('stale');
    await tx.document.update({ where: { id }, data: { body, fenceToken } });
  });
}`,
    },
    {
      name: 'a lock-named helper in a file that takes no lock (an account lock flag)',
      code: `${pg}
async function isAccountLockActive(id: string) { return id.length > 0; }
export async function unlockAccount(id: string) {
  if (!(await isAccountLockActive(id))) return;
  await pool.query('UPDATE accounts SET locked = false WHERE id = $1', [id]);
}`,
    },
  ],
  invalid: [
    {
      name: 'the article: SELECT fence_token, compare in code, separate UPDATE',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM resource_state WHERE resource_key = $1', [key]);
  const stored = rows[0]?.fence_token ?? 0;
  if (stored >= lease.fenceToken) throw new Error('stale');
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3', [value, lease.fenceToken, key]);
}`,
      errors: [
        {
          line: 11,
          column: 9,
          endColumn: 19,
          messageId: 'storedTokenCheck', data: { write: 'This UPDATE', field: '`fence_token`', checkAt: ' (line 10)' },
          suggestions: [
            {
              messageId: 'addFenceCondition',
              data: { column: '`fence_token`', token: '`lease.fenceToken`' },
              output: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM resource_state WHERE resource_key = $1', [key]);
  const stored = rows[0]?.fence_token ?? 0;
  if (stored >= lease.fenceToken) throw new Error('stale');
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'redlock: lock.expiration > Date.now() guards the write inside the branch',
      code: `${redlockPg}
export async function save(id: string, body: string) {
  const lock = await redlock.acquire([\`doc:\${id}\`], 5000);
  try {
    if (lock.expiration > Date.now()) {
      await pool.query('UPDATE documents SET body = $1 WHERE id = $2', [body, id]);
    }
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'expiry check that throws, then the write after it',
      code: `${redlockPg}
export async function save(id: string, body: string) {
  const lock = await redlock.acquire([\`doc:\${id}\`], 5000);
  if (lock.expiration <= Date.now()) throw new Error('expired');
  await pool.query('UPDATE documents SET body = $1 WHERE id = $2', [body, id]);
  await lock.release();
}`,
      errors: [
        {
          line: 9,
          messageId: 'leaseValidityCheck', data: { write: 'This UPDATE', check: '`lock.expiration <= Date.now()`', checkAt: ' (line 8)' },
        },
      ],
    },
    {
      name: 'await lease.isValid() through a variable',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const stillOurs = await lease.isValid();
  if (!stillOurs) return;
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'redis-semaphore: isAcquired read as a property',
      code: `import { Mutex } from 'redis-semaphore';
import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
const client = new Redis();
export async function rebuild(id: string) {
  const mutex = new Mutex(client, \`rebuild:\${id}\`);
  await mutex.acquire();
  if (!mutex.isAcquired) throw new Error('lost');
  await pool.query('UPDATE indexes SET built_at = now() WHERE id = $1', [id]);
  await mutex.release();
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'etcd3 lease.ttl() checked before the write',
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const pool = new Pool();
const client = new Etcd3();
export async function lead(shard: string) {
  const lease = client.lease(10);
  await lease.put(\`leader/\${shard}\`).value('me');
  if ((await lease.ttl()) <= 0) return;
  await pool.query('UPDATE shards SET leader = $1 WHERE id = $2', ['me', shard]);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'SET NX lock: (await redis.get(lockKey)) === myId, then the write',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function pay(orderId: string, myId: string) {
  const lockKey = \`lock:order:\${orderId}\`;
  if (!(await redis.set(lockKey, myId, 'PX', 5000, 'NX'))) return;
  if ((await redis.get(lockKey)) === myId) {
    await pool.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
  }
}`,
      errors: [
        {
          line: 9,
          messageId: 'leaseValidityCheck', data: { write: 'This UPDATE', check: '`(await redis.get(lockKey)) === myId`', checkAt: ' (line 8)' },
        },
      ],
    },
    {
      name: 'lock.extend() right before the write',
      code: `${redlockPg}
export async function step(id: string) {
  let lock = await redlock.acquire([\`job:\${id}\`], 5000);
  lock = await lock.extend(5000);
  await pool.query('UPDATE jobs SET step = step + 1 WHERE id = $1', [id]);
  await pool.query('UPDATE jobs SET touched_at = now() WHERE id = $1', [id]);
  await lock.release();
}`,
      errors: [{ messageId: 'leaseExtendCheck', line: 9 }],
    },
    {
      name: 'Prisma: findUnique, compare the stored token, update by id only',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function publish(id: string, fenceToken: bigint, html: string) {
  const doc = await prisma.document.findUnique({ where: { id }, select: { fenceToken: true } });
  if (doc && doc.fenceToken >= fenceToken) throw new Error('stale');
  await prisma.document.update({ where: { id }, data: { html, fenceToken } });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 6 }],
    },
    {
      name: 'MongoDB: findOne, compare the version, updateOne by _id',
      code: `import { MongoClient } from 'mongodb';
const accounts = new MongoClient('mongodb://127.0.0.1').db('bank').collection('accounts');
export async function credit(id: string, amount: number, lockVersion: number) {
  const account = await accounts.findOne({ _id: id });
  if (!account || account.version !== lockVersion) throw new Error('conflict');
  await accounts.updateOne({ _id: id }, { $inc: { balance: amount, version: 1 } });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 6 }],
    },
    {
      name: 'Redis: GET the stored token, compare, SET it',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function accept(resource: string, token: number, value: string) {
  const stored = Number(await redis.get(\`fence:\${resource}\`));
  if (token <= stored) return false;
  await redis.set(\`fence:\${resource}\`, token);
  await redis.set(\`value:\${resource}\`, value);
  return true;
}`,
      errors: [
        { messageId: 'storedTokenCheck', line: 6 },
        { messageId: 'storedTokenCheck', line: 7 },
      ],
    },
    {
      name: 'postgres.js: tagged SELECT then tagged UPDATE',
      code: `import postgres from 'postgres';
const sql = postgres();
export async function apply(id: string, fenceToken: number, body: string) {
  const [row] = await sql\`SELECT fence_token FROM documents WHERE id = \${id}\`;
  if (row && row.fence_token >= fenceToken) return;
  await sql\`UPDATE documents SET body = \${body}, fence_token = \${fenceToken} WHERE id = \${id}\`;
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 6 }],
    },
    {
      name: 'optimistic version read and compared in code, UPDATE by id only',
      code: `${pg}
export async function withdraw(id: string, amount: number, expectedVersion: number) {
  const res = await pool.query('SELECT balance, lock_version FROM accounts WHERE id = $1', [id]);
  if (res.rows[0].lock_version !== expectedVersion) throw new Error('conflict');
  await pool.query('UPDATE accounts SET balance = balance - $1, lock_version = lock_version + 1 WHERE id = $2', [amount, id]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 7 }],
    },
    {
      name: 'FOR UPDATE on one client, the UPDATE on the pool: the row lock does not cover the write',
      code: `${pg}
export async function apply(id: string, fenceToken: number, body: string) {
  const client = await pool.connect();
  await client.query('BEGIN');
  const { rows } = await client.query('SELECT fence_token FROM documents WHERE id = $1 FOR UPDATE', [id]);
  if (rows[0].fence_token >= fenceToken) throw new Error('stale');
  await pool.query('UPDATE documents SET body = $1 WHERE id = $2', [body, id]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'lease.expiresAt.getTime() compared with Date.now(), write through knex',
      code: `import knex from 'knex';
import { LeaseAuthority } from './lease-authority';
const db = knex({ client: 'pg' });
const authority = new LeaseAuthority();
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (lease.expiresAt.getTime() - 500 < Date.now()) throw new Error('about to expire');
  await db('resource_state').where({ resource_key: key }).update({ value });
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 8 }],
    },
    {
      name: 'assert(await lock.isValid()) before a DynamoDB update without a condition',
      code: `import assert from 'node:assert';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LockService } from './locks';
const ddb = DynamoDBDocumentClient.from({} as never);
const locks = new LockService();
export async function bump(id: string) {
  const lock = await locks.acquire(\`counter:\${id}\`);
  assert(await lock.isValid());
  await ddb.send(new UpdateCommand({ TableName: 'counters', Key: { id }, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': 1 } }));
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'the expiry compared with new Date()',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (lease.expiresAt < new Date()) return;
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'pg-promise: oneOrNone read, compare, none write',
      code: `import pgp from 'pg-promise';
const db = pgp()('postgres://127.0.0.1/app');
export async function save(id: string, fencingToken: number, payload: string) {
  const current = await db.oneOrNone('SELECT fence_token FROM items WHERE id = $1', [id]);
  if (current && current.fence_token >= fencingToken) return false;
  await db.none('UPDATE items SET payload = $1, fence_token = $2 WHERE id = $3', [payload, fencingToken, id]);
  return true;
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 6 }],
    },
    {
      name: 'mysql2: [rows] destructuring, compare, execute UPDATE',
      code: `import mysql from 'mysql2/promise';
const pool = mysql.createPool({});
export async function save(id: string, fenceToken: number, payload: string) {
  const [rows] = await pool.execute('SELECT fence_token FROM items WHERE id = ?', [id]);
  const row = (rows as Array<{ fence_token: number }>)[0];
  if (row.fence_token >= fenceToken) throw new Error('stale');
  await pool.execute('UPDATE items SET payload = ?, fence_token = ? WHERE id = ?', [payload, fenceToken, id]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 7 }],
    },
    {
      name: 'TypeORM: findOneBy, compare, repo.update by id',
      code: `import { Repository } from 'typeorm';
declare const repo: Repository<{ id: string; value: string; fenceToken: number }>;
export async function save(id: string, fenceToken: number, value: string) {
  const item = await repo.findOneBy({ id });
  if (item && item.fenceToken >= fenceToken) throw new Error('stale');
  await repo.update({ id }, { value, fenceToken });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 6 }],
    },
    {
      name: 'resource side: an HTTP handler compares the request token with the stored one, then updates',
      code: `import express from 'express';
import { Pool } from 'pg';
const pool = new Pool();
const app = express();
app.put('/docs/:id', async (req, res) => {
  const { fenceToken, body } = req.body;
  const { rows } = await pool.query('SELECT fence_token FROM docs WHERE id = $1', [req.params.id]);
  if (rows.length && fenceToken <= rows[0].fence_token) return res.status(409).end();
  await pool.query('UPDATE docs SET body = $1, fence_token = $2 WHERE id = $3', [body, fenceToken, req.params.id]);
  res.status(204).end();
});`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'Drizzle: select the token, compare, update by id',
      code: `import { eq } from 'drizzle-orm';
import { db } from './db';
import { documents } from './schema';
import { LeaseAuthority } from './authority';
const authority = new LeaseAuthority();
export async function publish(id: string, html: string) {
  const lease = await authority.acquire(\`doc:\${id}\`);
  const [doc] = await db.select({ fenceToken: documents.fenceToken }).from(documents).where(eq(documents.id, id));
  if (doc.fenceToken >= lease.fenceToken) throw new Error('stale');
  await db.update(documents).set({ html, fenceToken: lease.fenceToken }).where(eq(documents.id, id));
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 10 }],
    },
    {
      name: 'while the lease looks valid, keep deleting',
      code: `${redlockPg}
export async function drain(queue: string) {
  const lock = await redlock.acquire([\`drain:\${queue}\`], 10000);
  while (lock.expiration > Date.now() + 1000) {
    await pool.query('DELETE FROM jobs WHERE queue = $1', [queue]);
  }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'redis.pttl(lockKey) stored in a variable and checked',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function pay(orderId: string, me: string) {
  const key = \`lock:pay:\${orderId}\`;
  if (!(await redis.set(key, me, 'PX', 3000, 'NX'))) return;
  const remaining = await redis.pttl(key);
  if (remaining < 500) throw new Error('lock about to expire');
  await pool.query('UPDATE orders SET paid_at = now() WHERE id = $1', [orderId]);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'a custom lease renewed right before the write',
      code: `import { Pool } from 'pg';
import { LeaseManager } from './lease-manager';
const pool = new Pool();
const leases = new LeaseManager();
export async function tick(shard: string) {
  const lease = await leases.acquireLease(shard);
  await lease.renew();
  await pool.query('UPDATE shard_state SET tick = tick + 1 WHERE shard = $1', [shard]);
}`,
      errors: [{ messageId: 'leaseExtendCheck', line: 8 }],
    },
    {
      name: 'the expiry destructured from the acquire result',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const { expiresAt, fenceToken } = await authority.acquire(key);
  if (expiresAt <= Date.now()) throw new Error('expired');
  await pool.query('UPDATE kv SET value = $1 WHERE key = $2', [value, key]);
  void fenceToken;
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9, suggestions: [{ messageId: 'addFenceCondition', output: `${authorityPg}
export async function save(key: string, value: string) {
  const { expiresAt, fenceToken } = await authority.acquire(key);
  if (expiresAt <= Date.now()) throw new Error('expired');
  await pool.query('UPDATE kv SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, fenceToken]);
  void fenceToken;
}` }] }],
    },
    {
      name: 'redlock using: signal.aborted checked, then an unfenced write',
      code: `${redlockPg}
export async function sync(id: string, load: () => Promise<string>) {
  await redlock.using([\`sync:\${id}\`], 5000, async (signal) => {
    const data = await load();
    if (signal.aborted) throw signal.error;
    await pool.query('UPDATE mirrors SET data = $1 WHERE id = $2', [data, id]);
  });
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'Mongoose: findById, compare the token, doc.save()',
      code: `import mongoose from 'mongoose';
const Doc = mongoose.model('Doc', new mongoose.Schema({ body: String, fenceToken: Number }));
export async function save(id: string, fenceToken: number, body: string) {
  const doc = await Doc.findById(id);
  if (!doc || doc.fenceToken >= fenceToken) return;
  doc.body = body;
  doc.fenceToken = fenceToken;
  await doc.save();
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 8 }],
    },
    {
      name: 'a same-file helper reads the stored token, the caller compares and writes',
      code: `${pg}
async function loadFenceToken(id: string): Promise<number> {
  const { rows } = await pool.query('SELECT fence_token FROM items WHERE id = $1', [id]);
  return rows[0]?.fence_token ?? 0;
}
export async function save(id: string, token: number, v: string) {
  const stored = await loadFenceToken(id);
  if (token <= stored) throw new Error('stale');
  await pool.query('UPDATE items SET v = $1, fence_token = $2 WHERE id = $3', [v, token, id]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 11 }],
    },
    {
      name: 'FOR UPDATE through the pool with no transaction: the row lock ends with the SELECT',
      code: `${pg}
export async function apply(id: string, fenceToken: number, body: string) {
  const { rows } = await pool.query('SELECT fence_token FROM documents WHERE id = $1 FOR UPDATE', [id]);
  if (rows[0].fence_token >= fenceToken) throw new Error('stale');
  await pool.query('UPDATE documents SET body = $1, fence_token = $2 WHERE id = $3', [body, fenceToken, id]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 7 }],
    },
    {
      name: 'an ownership helper guards the write, and an asserting helper too',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
async function isLockOwner(key: string, token: string) {
  return (await redis.get(key)) === token;
}
async function assertLockHeld(key: string, token: string) {
  if ((await redis.get(key)) !== token) throw new Error('lost');
}
export async function settle(id: string, token: string) {
  const key = \`lock:settle:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  if (!(await isLockOwner(key, token))) throw new Error('lost the lock');
  await pool.query('UPDATE invoices SET settled = true WHERE id = $1', [id]);
  await assertLockHeld(key, token);
  await pool.query('UPDATE invoices SET paid = true WHERE id = $1', [id]);
}`,
      errors: [
        { messageId: 'leaseValidityCheck', line: 15 },
        { messageId: 'leaseValidityCheck', line: 17 },
      ],
    },
    {
      name: 'the current token read from the authority table, compared, then a write to the resource',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM fence_authority WHERE resource_key = $1', [key]);
  if (rows[0].fence_token !== lease.fenceToken) throw new Error('lease superseded');
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 10, suggestions: [{ messageId: 'addFenceCondition', output: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM fence_authority WHERE resource_key = $1', [key]);
  if (rows[0].fence_token !== lease.fenceToken) throw new Error('lease superseded');
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, lease.fenceToken]);
}` }] }],
    },
  ],
});
