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

const prismaHeader = `import { PrismaClient } from '@prisma/client';
import { LeaseAuthority } from './lease-authority';
const store = new PrismaClient();
const authority = new LeaseAuthority();
`;

ruleTester.run('no-check-then-write: Prisma', rule, {
  valid: [
    {
      name: 'the token comparison is in the updateMany filter',
      code: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await store.document.findUnique({ where: { id } });
  if (doc && doc.fenceToken >= fenceToken) return;
  await store.document.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { html, fenceToken } });
}`,
    },
    {
      name: 'the version is in the update filter (optimistic concurrency done right)',
      code: `${prismaHeader}export async function rename(id: string, title: string) {
  const doc = await store.document.findUniqueOrThrow({ where: { id } });
  if (doc.version !== 3) return;
  await store.document.update({ where: { id, version: doc.version }, data: { title, version: { increment: 1 } } });
}`,
    },
    {
      name: 'a serializable interactive transaction makes the read and the write one unit',
      code: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  await store.$transaction(async (q) => {
    const doc = await q.document.findUnique({ where: { id } });
    if (doc && doc.fenceToken >= fenceToken) return;
    await q.document.update({ where: { id }, data: { html, fenceToken } });
  }, { isolationLevel: 'Serializable' });
}`,
    },
    {
      name: 'a status compared in code is business logic, not a fence',
      code: `${prismaHeader}export async function close(id: string) {
  const order = await store.order.findUnique({ where: { id } });
  if (order?.status !== 'open') return;
  await store.order.update({ where: { id }, data: { status: 'closed' } });
}`,
    },
  ],
  invalid: [
    {
      name: 'findUnique, compare the stored token, update by id',
      code: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await store.document.findUnique({ where: { id } });
  if (doc && doc.fenceToken >= fenceToken) return;
  await store.document.update({ where: { id }, data: { html, fenceToken } });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 , suggestions: [{ messageId: 'addFenceCondition', output: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await store.document.findUnique({ where: { id } });
  if (doc && doc.fenceToken >= fenceToken) return;
  await store.document.update({ where: { id, fenceToken: { lt: fenceToken } }, data: { html, fenceToken } });
}` }] }],
    },
    {
      name: 'findFirst inside $transaction (read committed): the pause fits between',
      code: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  await store.$transaction(async (q) => {
    const doc = await q.document.findFirst({ where: { id } });
    if (!doc || doc.fenceToken < fenceToken) {
      await q.document.update({ where: { id }, data: { html, fenceToken } });
    }
  });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 10 , suggestions: [{ messageId: 'addFenceCondition', output: `${prismaHeader}export async function publish(id: string, html: string) {
  const { fenceToken } = await authority.acquire(id);
  await store.$transaction(async (q) => {
    const doc = await q.document.findFirst({ where: { id } });
    if (!doc || doc.fenceToken < fenceToken) {
      await q.document.update({ where: { id, fenceToken: { lt: fenceToken } }, data: { html, fenceToken } });
    }
  });
}` }] }],
    },
    {
      name: 'the stored generation selected, compared, then updateMany by id',
      code: `${prismaHeader}export async function rebalance(shard: string, plan: string) {
  const { fenceToken } = await authority.acquire(shard);
  const current = await store.shard.findUnique({ where: { id: shard }, select: { generation: true } });
  if ((current?.generation ?? 0) > fenceToken) throw new Error('stale');
  await store.shard.updateMany({ where: { id: shard }, data: { plan, generation: fenceToken } });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 , suggestions: [{ messageId: 'addFenceCondition', output: `${prismaHeader}export async function rebalance(shard: string, plan: string) {
  const { fenceToken } = await authority.acquire(shard);
  const current = await store.shard.findUnique({ where: { id: shard }, select: { generation: true } });
  if ((current?.generation ?? 0) > fenceToken) throw new Error('stale');
  await store.shard.updateMany({ where: { id: shard, generation: { lt: fenceToken } }, data: { plan, generation: fenceToken } });
}` }] }],
    },
    {
      name: 'a lease validity check through the lock model before the Prisma write',
      code: `import Redlock from 'redlock';
import { PrismaClient } from '@prisma/client';
const store = new PrismaClient();
const redlock = new Redlock([]);
export async function publish(id: string, html: string) {
  const lock = await redlock.acquire([id], 5000);
  try {
    if (lock.expiration > Date.now()) {
      await store.document.update({ where: { id }, data: { html } });
    }
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
  ],
});

const mongoHeader = `import { MongoClient } from 'mongodb';
import { LeaseAuthority } from './lease-authority';
const docs = new MongoClient('mongodb://127.0.0.1').db('app').collection('docs');
const authority = new LeaseAuthority();
`;

ruleTester.run('no-check-then-write: MongoDB', rule, {
  valid: [
    {
      name: 'the token comparison is in the updateOne filter',
      code: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id });
  if (doc && doc.fenceToken >= fenceToken) return;
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
}`,
    },
    {
      name: 'findOneAndUpdate compares and writes in one step',
      code: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOneAndUpdate({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
  if (!doc) throw new Error('stale');
}`,
    },
    {
      name: 'a field compared in code that is not a token or version',
      code: `${mongoHeader}export async function archive(id: string) {
  const doc = await docs.findOne({ _id: id });
  if (doc?.state !== 'draft') return;
  await docs.updateOne({ _id: id }, { $set: { state: 'archived' } });
}`,
    },
    {
      name: 'a version compared for equality, not bumped: a cache check',
      code: `${mongoHeader}export async function warm(id: string, version: number) {
  const doc = await docs.findOne({ _id: id });
  if (doc?.version === version) return;
  await docs.updateOne({ _id: id }, { $set: { warmedAt: new Date() } });
}`,
    },
  ],
  invalid: [
    {
      name: 'findOne, compare the token, updateOne by _id',
      code: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id });
  if (doc && doc.fenceToken >= fenceToken) return;
  await docs.updateOne({ _id: id }, { $set: { body, fenceToken } });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 , suggestions: [{ messageId: 'addFenceCondition', output: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id });
  if (doc && doc.fenceToken >= fenceToken) return;
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
}` }] }],
    },
    {
      name: 'findOne, compare the epoch, replaceOne',
      code: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id }, { projection: { epoch: 1 } });
  if (doc && doc.epoch > fenceToken) throw new Error('stale');
  await docs.replaceOne({ _id: id }, { _id: id, body, epoch: fenceToken });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 , suggestions: [{ messageId: 'addFenceCondition', output: `${mongoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id }, { projection: { epoch: 1 } });
  if (doc && doc.epoch > fenceToken) throw new Error('stale');
  await docs.replaceOne({ _id: id, epoch: { $lt: fenceToken } }, { _id: id, body, epoch: fenceToken });
}` }] }],
    },
    {
      name: 'Mongoose under redlock: findById, compare the version, updateOne that bumps it',
      code: `import mongoose from 'mongoose';
import Redlock from 'redlock';
const redlock = new Redlock([]);
const Doc = mongoose.model('Doc', new mongoose.Schema({}));
export async function save(id: string, body: string, version: number) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    const doc = await Doc.findById(id);
    if (!doc || doc.version !== version) throw new Error('conflict');
    await Doc.updateOne({ _id: id }, { $set: { body }, $inc: { version: 1 } });
  });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'redis-semaphore isAcquired checked, then the Mongo write',
      code: `import { Mutex } from 'redis-semaphore';
import { MongoClient } from 'mongodb';
const docs = new MongoClient('mongodb://127.0.0.1').db('app').collection('docs');
export async function save(id: string, body: string, redis: any) {
  const mutex = new Mutex(redis, 'doc:' + id);
  await mutex.acquire();
  try {
    if (!mutex.isAcquired) return;
    await docs.updateOne({ _id: id }, { $set: { body } });
  } finally { await mutex.release(); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
  ],
});

const dynamoHeader = `import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LeaseAuthority } from './lease-authority';
const ddb = DynamoDBDocumentClient.from({} as never);
const authority = new LeaseAuthority();
`;

ruleTester.run('no-check-then-write: DynamoDB', rule, {
  valid: [
    {
      name: 'the comparison is in the PutCommand ConditionExpression',
      code: `${dynamoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  if (Item && Item.fence_token >= fenceToken) return;
  await ddb.send(new PutCommand({ TableName: 'docs', Item: { id, body, fence_token: fenceToken }, ConditionExpression: 'attribute_not_exists(id) OR fence_token < :t', ExpressionAttributeValues: { ':t': fenceToken } }));
}`,
    },
    {
      name: 'the comparison is in the UpdateCommand ConditionExpression',
      code: `${dynamoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  if (Item && Item.fence_token >= fenceToken) return;
  await ddb.send(new UpdateCommand({ TableName: 'docs', Key: { id }, UpdateExpression: 'SET body = :b, fence_token = :t', ConditionExpression: 'fence_token < :t', ExpressionAttributeValues: { ':b': body, ':t': fenceToken } }));
}`,
    },
    {
      name: 'an item attribute that is not a token compared in code',
      code: `${dynamoHeader}export async function ship(id: string) {
  const { Item } = await ddb.send(new GetCommand({ TableName: 'orders', Key: { id } }));
  if (Item?.status !== 'paid') return;
  await ddb.send(new UpdateCommand({ TableName: 'orders', Key: { id }, UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'shipped' } }));
}`,
    },
    {
      name: 'the read item is only logged',
      code: `${dynamoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  console.log('previous token', Item?.fence_token);
  await ddb.send(new UpdateCommand({ TableName: 'docs', Key: { id }, UpdateExpression: 'SET body = :b, fence_token = :t', ConditionExpression: 'fence_token < :t', ExpressionAttributeValues: { ':b': body, ':t': fenceToken } }));
}`,
    },
  ],
  invalid: [
    {
      name: 'GetCommand, compare the stored token, PutCommand without a condition',
      code: `${dynamoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  if (Item && Item.fence_token >= fenceToken) return;
  await ddb.send(new PutCommand({ TableName: 'docs', Item: { id, body, fence_token: fenceToken } }));
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'GetCommand result bound whole, compare the generation, UpdateCommand without a condition',
      code: `${dynamoHeader}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const current = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  if ((current.Item?.generation ?? 0) > fenceToken) throw new Error('stale');
  await ddb.send(new UpdateCommand({ TableName: 'docs', Key: { id }, UpdateExpression: 'SET body = :b, generation = :g', ExpressionAttributeValues: { ':b': body, ':g': fenceToken } }));
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'DocumentClient v2: get, compare, put',
      code: `import { DynamoDB } from 'aws-sdk';
import { LeaseAuthority } from './lease-authority';
const docClient = new DynamoDB.DocumentClient();
const authority = new LeaseAuthority();
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await docClient.get({ TableName: 'docs', Key: { id } }).promise();
  if (Item && Item.fence_token >= fenceToken) return;
  await docClient.put({ TableName: 'docs', Item: { id, body, fence_token: fenceToken } }).promise();
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'the DynamoDB lock client: isExpired checked, then an unconditional write',
      code: `import DynamoDBLockClient from 'dynamodb-lock-client';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
const locks = new DynamoDBLockClient.FailOpen({ dynamodb: ddb, lockTable: 'locks', partitionKey: 'id' });
export async function save(id: string, body: string) {
  const lock = await locks.acquireLock(id);
  try {
    if (lock.isExpired()) return;
    await ddb.send(new PutCommand({ TableName: 'docs', Item: { id, body } }));
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
  ],
});

const redisHeader = `import Redis from 'ioredis';
import { LeaseAuthority } from './lease-authority';
const redis = new Redis();
const authority = new LeaseAuthority();
`;

ruleTester.run('no-check-then-write: Redis', rule, {
  valid: [
    {
      name: 'a script compares and sets in one step',
      code: `${redisHeader}const FENCED = "if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[2]) then redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[2]) return 1 end return 0";
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const applied = await redis.eval(FENCED, 2, key, key + ':fence', value, fenceToken);
  if (!applied) throw new Error('stale');
}`,
    },
    {
      name: 'WATCH, GET, compare, MULTI/EXEC: the transaction fails if the key changed',
      code: `${redisHeader}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await redis.watch(\`fence:\${key}\`);
  const stored = Number(await redis.get(\`fence:\${key}\`));
  if (stored >= fenceToken) { await redis.unwatch(); return; }
  await redis.multi().set(\`fence:\${key}\`, fenceToken).set(key, value).exec();
}`,
    },
    {
      name: 'a cache value compared with GET, then SET: no token key',
      code: `${redisHeader}export async function warm(key: string, html: string) {
  const cached = await redis.get(\`page:\${key}\`);
  if (cached === html) return;
  await redis.set(\`page:\${key}\`, html);
}`,
    },
    {
      name: 'a Map get/set is not Redis',
      code: `const versions = new Map<string, number>();
export function remember(key: string, version: number) {
  const stored = versions.get(key) ?? 0;
  if (stored >= version) return;
  versions.set(key, version);
}`,
    },
  ],
  invalid: [
    {
      name: 'GET the stored token, compare, SET the value',
      code: `${redisHeader}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const stored = Number(await redis.get(\`fence:\${key}\`));
  if (stored >= fenceToken) return;
  await redis.set(key, value);
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'node-redis: GET the generation, compare, hSet',
      code: `import { createClient } from 'redis';
import { LeaseAuthority } from './lease-authority';
const client = createClient();
const authority = new LeaseAuthority();
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const generation = Number(await client.get(\`\${key}:generation\`));
  if (fenceToken <= generation) throw new Error('stale');
  await client.hSet(key, { value });
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 9 }],
    },
    {
      name: 'SET NX lock: GET the lock key, compare with my id, then write',
      code: `${redisHeader}export async function save(key: string, value: string, me: string) {
  if ((await redis.set(\`lock:\${key}\`, me, 'PX', 5000, 'NX')) !== 'OK') return;
  try {
    if ((await redis.get(\`lock:\${key}\`)) !== me) return;
    await redis.set(key, value);
  } finally { await redis.del(\`lock:\${key}\`); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'pttl of the lock key checked before the write',
      code: `${redisHeader}export async function save(key: string, value: string, me: string) {
  const lockKey = \`lock:\${key}\`;
  if ((await redis.set(lockKey, me, 'PX', 5000, 'NX')) !== 'OK') return;
  const left = await redis.pttl(lockKey);
  if (left < 1000) return;
  await redis.set(key, value);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
  ],
});

ruleTester.run('no-check-then-write: lease validity through any lock model', rule, {
  valid: [
    {
      name: 'an isValid check followed by a fenced write',
      code: `${authorityPg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (!(await authority.isValid(lease))) return;
  await pool.query('UPDATE t SET v = $1, fence_token = $2 WHERE k = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
}`,
    },
    {
      name: 'isValid on an unrelated object in a file that takes no lock',
      code: `${pg}export async function save(form: { isValid(): boolean }, id: string, v: string) {
  if (!form.isValid()) return;
  await pool.query('UPDATE t SET v = $1 WHERE id = $2', [v, id]);
}`,
    },
    {
      name: 'the validity check only guards a log line',
      code: `${authorityPg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (!(await authority.isValid(lease))) console.warn('lease looks expired; the fenced write decides');
  await pool.query('UPDATE t SET v = $1, fence_token = $2 WHERE k = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
}`,
    },
    {
      name: 'etcd3: the lock is held by do(); no separate check',
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const pool = new Pool();
const etcd = new Etcd3();
export async function save(key: string, value: string, fenceToken: number) {
  await etcd.lock(key).do(async () => {
    await pool.query('UPDATE t SET v = $1, fence_token = $2 WHERE k = $3 AND fence_token < $2', [value, fenceToken, key]);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'authority.isValid(lease) before an unfenced write',
      code: `${authorityPg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (!(await authority.isValid(lease))) return;
  await pool.query('UPDATE t SET v = $1 WHERE k = $2', [value, key]);
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 8 }],
    },
    {
      name: 'a helper isLeaseValid(lease) guards the write',
      code: `${authorityPg}declare function isLeaseValid(lease: unknown): Promise<boolean>;
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (await isLeaseValid(lease)) {
    await pool.query('UPDATE t SET v = $1 WHERE k = $2', [value, key]);
  }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 9 }],
    },
    {
      name: 'etcd3 lock object: isHeld() is a check, then the write',
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const pool = new Pool();
const etcd = new Etcd3();
export async function save(key: string, value: string) {
  const lock = etcd.lock(key);
  await lock.acquire();
  try {
    if (!(await lock.isHeld())) return;
    await pool.query('UPDATE t SET v = $1 WHERE k = $2', [value, key]);
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
    {
      name: 'lease.expiresAt compared with the clock before a knex write',
      code: `import Knex from 'knex';
import { LeaseAuthority } from './lease-authority';
const db = Knex({});
const authority = new LeaseAuthority();
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  if (lease.expiresAt <= Date.now()) throw new Error('lease lost');
  await db('t').where({ k: key }).update({ v: value });
}`,
      errors: [{ messageId: 'leaseValidityCheck', line: 8 }],
    },
  ],
});

ruleTester.run('no-check-then-write: stored fields known by the token they are ordered against', rule, {
  valid: [
    {
      name: 'a stored field ordered against a plain number, not a token',
      code: `${mongoHeader}export async function save(id: string, body: string, limit: number) {
  const { fenceToken } = await authority.acquire(id);
  const doc = await docs.findOne({ _id: id });
  if (doc && doc.size >= limit) return;
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
}`,
    },
  ],
  invalid: [
    {
      name: 'an oddly named stored field ordered against the lease token is the stored token',
      code: `${mongoHeader}export async function save(id: string, body: string) {
  const lease = await authority.acquire(id);
  const cart = await docs.findOne({ _id: id });
  if (!cart) return;
  if (cart.pricingEpoch >= lease.fenceToken) return;
  await docs.updateOne({ _id: id }, { $set: { body, pricingEpoch: lease.fenceToken } });
}`,
      errors: [
        {
          messageId: 'storedTokenCheck',
          line: 10,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${mongoHeader}export async function save(id: string, body: string) {
  const lease = await authority.acquire(id);
  const cart = await docs.findOne({ _id: id });
  if (!cart) return;
  if (cart.pricingEpoch >= lease.fenceToken) return;
  await docs.updateOne({ _id: id, pricingEpoch: { $lt: lease.fenceToken } }, { $set: { body, pricingEpoch: lease.fenceToken } });
}`,
            },
          ],
        },
      ],
    },
  ],
});

// A lease kept by hand in a record field: checked against the clock, then taken by a separate write.
ruleTester.run('no-check-then-write: lease fields kept by hand', rule, {
  valid: [
    {
      name: 'the take compares the old start in its own filter, so only one worker can win',
      code: `import { LessThan } from 'typeorm';
export class Parcels {
  constructor(private readonly parcels: any) {}
  async claim(parcel: { id: string; claimedAt: number | null }) {
    if (parcel.claimedAt && Date.now() - parcel.claimedAt < 60_000) throw new Error('busy');
    await this.parcels.update({ id: parcel.id, claimedAt: parcel.claimedAt }, { claimedAt: Date.now() });
  }
}`,
    },
    {
      name: 'a lease row checked in JS but taken over with its expiry compared in the UPDATE itself (one atomic step)',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function acquire(name: string, holder: string) {
  const { rows } = await pool.query('SELECT holder, expires_at, NOW() AS now FROM job_leases WHERE name = $1', [name]);
  const lease = rows[0];
  if (lease && lease.holder !== holder && lease.expires_at > lease.now) return false;
  const taken = await pool.query("UPDATE job_leases SET holder = $1, expires_at = NOW() + interval '30 seconds' WHERE name = $2 AND (holder = $1 OR expires_at <= NOW())", [holder, name]);
  return taken.rowCount === 1;
}`,
    },
    {
      name: 'a cooldown compared with the clock outside any lock-taking function is not a lease',
      code: `export class Reminders {
  constructor(private readonly users: any) {}
  async maybeRemind(user: { id: string; remindedAt: number }) {
    if (Date.now() - user.remindedAt < 86_400_000) return;
    await this.users.update({ id: user.id }, { remindedAt: Date.now() });
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'lock() checks the start field against the clock and stores a new start with an update that does not compare it',
      code: `export class Parcels {
  constructor(private readonly parcelRepository: any) {}
  async lock(parcel: { id: string; depot: string; claimedAt: number | null }) {
    if (parcel.claimedAt && Date.now() - parcel.claimedAt < 60_000) {
      throw new Error('parcel is being routed');
    }
    await this.parcelRepository.update({ id: parcel.id, depot: parcel.depot }, { claimedAt: Date.now() });
  }
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 7 }],
    },
    {
      name: 'a lease row read with the database clock (SELECT NOW() AS now), its expiry compared in JS, then refreshed by id alone',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export class LeaseTable {
  private async read(name: string): Promise<{ holder: string | null; expires_at: Date | null; now: Date } | undefined> {
    const { rows } = await pool.query('SELECT holder, expires_at, NOW() AS now FROM job_leases WHERE name = $1', [name]);
    return rows[0];
  }
  async acquire(name: string, holder: string, seconds: number) {
    const lease = await this.read(name);
    if (!lease) return;
    const takeable = lease.holder === holder || (lease.expires_at !== null && lease.expires_at <= lease.now);
    if (!takeable) throw new Error('held by another worker');
    await pool.query("UPDATE job_leases SET holder = $1, expires_at = NOW() + ($2 || ' seconds')::interval WHERE name = $3", [holder, seconds, name]);
  }
}`,
      errors: [{ messageId: 'storedTokenCheck', line: 13 }],
    },
  ],
});

// Optimistic concurrency in two steps: the newest version of a record is read and its id compared
// with the one the caller saw, under a lock; the write that follows is a separate statement.
ruleTester.run('no-check-then-write: the latest version compared in application code', rule, {
  valid: [
    {
      name: 'the current user compared with a parameter is an authorisation check, not a version',
      code: `${redlockPg}
async function getCurrentUser(token: string) {
  return (await pool.query('SELECT id FROM users WHERE session = $1', [token])).rows[0];
}
export async function rename(token: string, userId: string, name: string) {
  await redlock.using(['user:' + userId], 5000, async () => {
    const current = await getCurrentUser(token);
    if (current.id !== userId) throw new Error('forbidden');
    await pool.query('UPDATE users SET name = $1 WHERE id = $2', [name, userId]);
  });
}`,
    },
    {
      name: 'the same comparison with no lock held: the rule leaves plain optimistic code alone',
      code: `${pg}
async function latestRevision(docId: string) {
  return (await pool.query('SELECT id FROM revisions WHERE doc_id = $1 ORDER BY created_at DESC LIMIT 1', [docId])).rows[0];
}
export async function publish(docId: string, revisionId: string) {
  const latest = await latestRevision(docId);
  if (latest.id !== revisionId) throw new Error('outdated');
  await pool.query('UPDATE documents SET published_revision = $1 WHERE id = $2', [revisionId, docId]);
}`,
    },
    {
      name: 'a comparison that only logs guards nothing',
      code: `${redlockPg}
async function latestRevision(docId: string) {
  return (await pool.query('SELECT id FROM revisions WHERE doc_id = $1 ORDER BY created_at DESC LIMIT 1', [docId])).rows[0];
}
export async function publish(docId: string, revisionId: string) {
  await redlock.using(['doc:' + docId], 5000, async () => {
    const latest = await latestRevision(docId);
    if (latest.id !== revisionId) console.warn('publishing an older revision');
    await pool.query('UPDATE documents SET published_revision = $1 WHERE id = $2', [revisionId, docId]);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'the latest revision id compared with the caller\'s under redlock, then the publish UPDATE',
      code: `${redlockPg}
async function latestRevision(docId: string) {
  return (await pool.query('SELECT id FROM revisions WHERE doc_id = $1 ORDER BY created_at DESC LIMIT 1', [docId])).rows[0];
}
export async function publish(docId: string, revisionId: string) {
  await redlock.using(['doc:' + docId], 5000, async () => {
    const latest = await latestRevision(docId);
    if (latest.id !== revisionId) throw new Error('outdated');
    await pool.query('UPDATE documents SET published_revision = $1 WHERE id = $2', [revisionId, docId]);
    await pool.query('UPDATE documents SET published_at = now() WHERE id = $1', [docId]);
  });
}`,
      // Only the first write after the comparison: the one the check was made for.
      errors: [{ messageId: 'storedTokenCheck', line: 13 }],
    },
  ],
});

// A probe of a lock key before taking the lock asks whether the lock is free; the write after the
// acquire rests on the acquire (require-fence-condition reports it), not on the probe.
const probeThenTake = `import Redis from 'ioredis';
const redis = new Redis();
async function takeLock(jobId: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(\`lock:\${jobId}\`, '1', 'PX', ttlMs, 'NX')) === 'OK';
}
export async function applyQueued(jobIds: string[]) {
  for (const jobId of jobIds) {
    if (await redis.exists(\`lock:\${jobId}\`)) continue;
    if (!(await takeLock(jobId, 3000))) continue;
    await redis.hset('job:state', jobId, 'ready');
  }
}`;

ruleTester.run('no-check-then-write: a probe before the acquire', rule, {
  valid: [{ name: 'the lock is probed for being free, then taken, then written under', code: probeThenTake }],
  invalid: [
    {
      name: 'a probe of the held lock after taking it still guards the write',
      code: probeThenTake.replace("if (await redis.exists(`lock:${jobId}`)) continue;\n    if (!(await takeLock(jobId, 3000))) continue;", "if (!(await takeLock(jobId, 3000))) continue;\n    if (!(await redis.exists(`lock:${jobId}`))) continue;"),
      errors: [{ messageId: 'leaseValidityCheck', line: 10 }],
    },
  ],
});
