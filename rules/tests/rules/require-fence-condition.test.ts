import rule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

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

ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'get-or-create helpers keep their lock: released through the function the acquire returned, or let lapse while handing back a record',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
async function acquireLock(key: string): Promise<(() => Promise<void>) | null> {
  const owner = String(process.pid) + '-' + Date.now();
  if ((await redis.set(key, owner, 'EX', 10, 'NX')) !== 'OK') return null;
  return async () => { await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end", 1, key, owner); };
}
async function ensureBucket(user: string) {
  const found = await pool.query('SELECT * FROM buckets WHERE user_id = $1', [user]);
  if (found.rows[0]) return found.rows[0];
  const release = await acquireLock('bucket:' + user);
  if (!release) throw new Error('busy');
  try {
    return (await pool.query('INSERT INTO buckets (user_id, used) VALUES ($1, 0) RETURNING *', [user])).rows[0];
  } finally {
    await release();
  }
}
async function ensureTray(user: string) {
  const found = await pool.query('SELECT * FROM trays WHERE user_id = $1', [user]);
  if (found.rows[0]) return found.rows[0];
  if (!(await acquireLock('tray:' + user))) throw new Error('busy');
  return (await pool.query('INSERT INTO trays (user_id, used) VALUES ($1, 0) RETURNING *', [user])).rows[0];
}
export async function recount(user: string, used: number) {
  const bucket = await ensureBucket(user);
  await pool.query('UPDATE buckets SET used = $1 WHERE id = $2', [used, bucket.id]);
  const tray = await ensureTray(user);
  await pool.query('UPDATE trays SET used = $1 WHERE id = $2', [used, tray.id]);
}`,
    },
    {
      name: 'compared but not stored is require-token-update\'s finding, not this rule\'s',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3', [value, key, lease.fenceToken]);
}`,
    },
    {
      name: 'one place, one finding: a write after a separate token check is no-check-then-write\'s alone',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const { rows } = await pool.query('SELECT fence_token FROM resource_state WHERE resource_key = $1', [key]);
  if ((rows[0]?.fence_token ?? 0) >= lease.fenceToken) throw new Error('stale');
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}`,
    },
    {
      name: 'one place, one finding: a DynamoDB command sent after a separate token check is no-check-then-write\'s alone',
      code: `import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { LeaseAuthority } from './lease-authority';
const ddb = DynamoDBDocumentClient.from({} as never);
const authority = new LeaseAuthority();
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { Item } = await ddb.send(new GetCommand({ TableName: 'docs', Key: { id } }));
  if (Item && Item.fence_token >= fenceToken) return;
  await ddb.send(new PutCommand({ TableName: 'docs', Item: { id, body, fence_token: fenceToken } }));
}`,
    },
    {
      name: 'no lock held: a plain UPDATE is out of scope',
      code: `${redlockPg}
export async function rename(id: string, name: string) {
  await pool.query('UPDATE users SET name = $1 WHERE id = $2', [name, id]);
}`,
    },
    {
      name: 'the article: compare and store the token in one UPDATE',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  try {
    const result = await pool.query(
      'UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2',
      [value, lease.fenceToken, key],
    );
    if (result.rowCount === 0) throw new Error('stale fence token');
  } finally {
    await authority.release(lease);
  }
}`,
    },
    {
      name: 'token compared through a CTE column',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query(
    \`WITH incoming AS (SELECT $2::bigint AS tok)
     UPDATE resource_state r SET value = $1, fence_token = incoming.tok
     FROM incoming
     WHERE r.resource_key = $3 AND r.fence_token < incoming.tok\`,
    [value, fenceToken, key],
  );
}`,
    },
    {
      name: 'token compared inside an EXISTS subquery on the same row',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query(
    'UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2 AND EXISTS (SELECT 1 FROM resources WHERE id = $3)',
    [value, lease.fenceToken, key],
  );
}`,
    },
    {
      name: 'a helper that receives the token writes the fenced statement',
      code: `${authorityPg}
async function writeFenced(key: string, value: string, token: bigint) {
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, token, key]);
}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  try { await writeFenced(key, value, lease.fenceToken); } finally { await authority.release(lease); }
}`,
    },
    {
      name: 'Date.now() in TTL math is not a token and the write is fenced',
      code: `${redlockPg}
export async function save(key: string, value: string, deadline: number, fenceToken: number) {
  const ttl = Math.max(1000, deadline - Date.now());
  const lock = await redlock.acquire([\`lock:\${key}\`], ttl);
  try {
    await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, fenceToken, key]);
  } finally {
    await lock.release();
  }
}`,
    },
    {
      name: 'SELECT ... FOR UPDATE and the UPDATE in one transaction',
      code: `${redlockPg}
export async function save(key: string, value: string, fenceToken: number) {
  const lock = await redlock.acquire([\`lock:\${key}\`], 5000);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT fence_token FROM resource_state WHERE resource_key = $1 FOR UPDATE', [key]);
    if (rows[0].fence_token >= fenceToken) throw new Error('stale');
    await client.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
    await client.query('COMMIT');
  } finally {
    client.release();
    await lock.release();
  }
}`,
    },
    {
      name: 'reads under a lock are not writes',
      code: `${redlockPg}
export async function load(key: string) {
  const lock = await redlock.acquire([key], 5000);
  try { return (await pool.query('SELECT value FROM resource_state WHERE resource_key = $1', [key])).rows[0]; }
  finally { await lock.release(); }
}`,
    },
    {
      name: 'an append-only INSERT cannot overwrite newer data',
      code: `${redlockPg}
export async function audit(key: string, message: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await pool.query('INSERT INTO audit_log (resource_key, message) VALUES ($1, $2)', [key, message]); }
  finally { await lock.release(); }
}`,
    },
    {
      name: 'upsert whose DO UPDATE compares the stored token with EXCLUDED',
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query(
    \`INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($1, $2, $3)
     ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token
     WHERE resource_state.fence_token < EXCLUDED.fence_token\`,
    [key, value, lease.fenceToken],
  );
}`,
    },
    {
      name: 'postgres.js tagged template with the token in the condition',
      code: `import postgres from 'postgres';
import { Etcd3 } from 'etcd3';
const sql = postgres();
const etcd = new Etcd3();
export async function save(key: string, value: string, fenceToken: bigint) {
  await etcd.lock(key).do(async () => {
    await sql\`UPDATE resource_state SET value = \${value}, fence_token = \${fenceToken} WHERE resource_key = \${key} AND fence_token < \${fenceToken}\`;
  });
}`,
    },
    {
      name: 'knex chain with a token where and the token stored',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const updated = await db('resource_state')
    .where({ resource_key: key })
    .where('fence_token', '<', fenceToken)
    .update({ value, fence_token: fenceToken });
  if (updated === 0) throw new Error('stale');
}`,
    },
    {
      name: 'knex upsert whose merge() is followed by a token where',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state')
    .insert({ resource_key: key, value, fence_token: fenceToken })
    .onConflict('resource_key')
    .merge()
    .where('resource_state.fence_token', '<', fenceToken);
}`,
    },
    {
      name: 'mysql2 with ? placeholders, fenced',
      code: `import mysql from 'mysql2/promise';
const pool = mysql.createPool({});
export async function save(lockService: any, key: string, value: string) {
  const lease = await lockService.acquire(key);
  await pool.execute('UPDATE resource_state SET value = ?, fence_token = ? WHERE resource_key = ? AND fence_token < ?', [value, lease.fenceToken, key, lease.fenceToken]);
}`,
    },
    {
      name: 'issuing the token itself increments a durable counter',
      code: `${redlockPg}
export async function nextToken(key: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const { rows } = await pool.query('UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token', [key]);
    return rows[0].token;
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'renewing a lease row is a lock-table write, not a protected write',
      code: `${redlockPg}
export async function renew(name: string, owner: string) {
  const lock = await redlock.acquire([name], 5000);
  await pool.query("UPDATE locks SET expires_at = now() + interval '30 seconds' WHERE name = $1 AND owner = $2", [name, owner]);
  await lock.release();
}`,
    },
    {
      name: 'an in-process mutex never expires under a running worker',
      code: `import { Mutex } from 'async-mutex';
import { Pool } from 'pg';
const pool = new Pool();
const mutex = new Mutex();
export async function save(key: string, value: string) {
  const release = await mutex.acquire();
  try { await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]); }
  finally { release(); }
}`,
    },
    {
      name: 'a write after the release is not made under the lock',
      code: `${redlockPg}
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  const next = await compute(key);
  await lock.release();
  await pool.query('UPDATE cache SET value = $1 WHERE key = $2', [next, key]);
}
declare function compute(key: string): Promise<string>;`,
    },
    {
      name: 'SQL built at run time is not guessed at',
      code: `${redlockPg}
export async function save(table: string, key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await pool.query(buildUpdate(table), [value, key]); } finally { await lock.release(); }
}
declare function buildUpdate(table: string): string;`,
    },
    {
      name: 'SQL that does not parse gets no report',
      code: `${redlockPg}
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await pool.query('UPDAT resource_state SET value = $1 WHERE', [value, key]); } finally { await lock.release(); }
}`,
    },
    {
      name: 'custom authority with a generation column and a token-named property',
      code: `import { Pool } from 'pg';
const db = new Pool();
export async function publish(coordinator: { acquireLease(k: string): Promise<{ leaseId: string; generation: number }> }, key: string, body: string) {
  const lease = await coordinator.acquireLease(key);
  const res = await db.query('UPDATE documents SET body = $1, generation = $2 WHERE doc_key = $3 AND generation < $2', [body, lease.generation, key]);
  return res.rowCount === 1;
}`,
    },
    {
      name: 'compare-and-set on the lease owner stored at the resource',
      code: `${redlockPg}
export async function finish(jobId: string, workerId: string, lockKey: string) {
  const lock = await redlock.acquire([lockKey], 5000);
  try {
    await pool.query("UPDATE jobs SET status = 'done' WHERE id = $1 AND lease_owner = $2", [jobId, workerId]);
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'knex.raw with a fenced statement',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function save(lockClient: any, key: string, value: string) {
  await lockClient.using([key], 5000, async () => {
    const fenceToken = await nextFenceToken(key);
    await db.raw('UPDATE resource_state SET value = ?, fence_token = ? WHERE resource_key = ? AND fence_token < ?', [value, fenceToken, key, fenceToken]);
  });
}
declare function nextFenceToken(key: string): Promise<number>;`,
    },
    {
      name: 'an unknown library with no lock shape is left alone',
      code: `import { Pool } from 'pg';
import { cache } from './cache';
const pool = new Pool();
export async function save(key: string, value: string) {
  const entry = await cache.get(key);
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value ?? entry, key]);
}`,
    },
    {
      name: "Prisma updateMany with { lt } on the token and the token in data",
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function save(authority: LeaseAuthority, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const { count } = await prisma.resourceState.updateMany({
    where: { resourceKey: key, fenceToken: { lt: fenceToken } },
    data: { value, fenceToken },
  });
}`,
    },
    {
      name: "MongoDB filter with $lt on the token and the token in $set",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string, fenceToken: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const res = await db.collection('resources').updateOne({ _id: key, fenceToken: { $lt: fenceToken } }, { $set: { value, fenceToken } });
  } finally { await lock.release(); }
}`,
    },
    {
      name: "DynamoDB ConditionExpression comparing the token attribute",
      code: `import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
export async function save(ddb: any, locks: any, key: string, value: string) {
  const lease = await locks.acquireLock(key);
  await ddb.send(new UpdateCommand({ TableName: 'resources', Key: { pk: key }, UpdateExpression: 'SET #v = :v, fence_token = :t', ConditionExpression: 'fence_token < :t', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':v': value, ':t': lease.fenceToken } }));
}`,
    },
    {
      name: "Kysely and Drizzle writes with a token comparison in their where",
      code: `import Redlock from 'redlock';
import { and, eq, lt } from 'drizzle-orm';
const redlock = new Redlock([]);
export async function save(db: any, t: any, key: string, value: string, fenceToken: number) {
  await redlock.using([key], 5000, async () => {
    await db.updateTable('resource_state').set({ value, fence_token: fenceToken }).where('resource_key', '=', key).where('fence_token', '<', fenceToken).execute();
    await db.update(t).set({ value, fenceToken }).where(and(eq(t.resourceKey, key), lt(t.fenceToken, fenceToken)));
  });
}`,
    },
    {
      name: "Kysely inserts that never overwrite a stored row: plain, and on conflict do nothing",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function record(db: any, key: string, value: string) {
  await redlock.using([key], 5000, async () => {
    await db.insertInto('audit_entries').values({ key, value }).execute();
    await db.insertInto('resource_state').values({ resource_key: key, value }).onConflict((oc: any) => oc.column('resource_key').doNothing()).execute();
  });
}`,
    },
    {
      name: "Kysely upsert whose conflict update compares and stores the token",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string, fenceToken: number) {
  await redlock.using([key], 5000, async () => {
    await db
      .insertInto('resource_state')
      .values({ resource_key: key, value, fence_token: fenceToken })
      .onConflict((oc: any) => oc.column('resource_key').doUpdateSet({ value, fence_token: fenceToken }).where('resource_state.fence_token', '<', fenceToken))
      .execute();
  });
}`,
    },
    {
      name: "pogi: the condition compares the token with the operator after the column, and the fields store it",
      code: `export async function save(context: any, key: string, value: string) {
  const { pgdb, authority } = context;
  const lease = await authority.acquire(key);
  await pgdb.public.resources.update({ key, 'fence_token <': lease.fenceToken }, { value, fence_token: lease.fenceToken });
}`,
    },
    {
      name: "an etcd3 lock acquired inline and released before the write",
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const client = new Etcd3();
const pool = new Pool();
export async function save(key: string, value: string) {
  const lock = await client.lock(key).acquire();
  await lock.release();
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}`,
    },
    {
      name: "helpers named withTimeout/withRetry are not locks",
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(key: string, value: string) {
  await withTimeout(5000, async () => {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  });
  await withRetry(async () => pool.query('UPDATE t SET v = 1 WHERE k = 2'));
}
`,
    },
    {
      name: "an optimistic version compare-and-set in SQL",
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, body: string, expectedVersion: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const r = await pool.query('UPDATE documents SET body = $1, version = version + 1 WHERE id = $2 AND version = $3', [body, key, expectedVersion]);
  } finally { await lock.release(); }
}`,
    },
    {
      name: "optimistic version compare-and-set in MongoDB and knex filters",
      code: `import Redlock from 'redlock';
import knex from 'knex';
const db = knex({});
const redlock = new Redlock([]);
export async function save(coll: any, key: string, body: string, version: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await coll.updateOne({ _id: key, version }, { $set: { body }, $inc: { version: 1 } });
    await db('documents').where({ id: key, version }).update({ body, version: version + 1 });
  } finally { await lock.release(); }
}
`,
    },
    {
      name: "an upsert that guards each assignment with CASE WHEN on the token",
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query(\`INSERT INTO resource_state AS r (resource_key, value, fence_token) VALUES ($1, $2, $3)
    ON CONFLICT (resource_key) DO UPDATE SET
      value = CASE WHEN r.fence_token < EXCLUDED.fence_token THEN EXCLUDED.value ELSE r.value END,
      fence_token = GREATEST(r.fence_token, EXCLUDED.fence_token)\`, [key, value, fenceToken]);
}
`,
    },
    {
      name: "Redis lock upkeep (SET NX, PEXPIRE, DEL of the lock key) is not a resource write",
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function job(key: string, me: string) {
  const ok = await redis.set(\`lock:\${key}\`, me, 'PX', 30000, 'NX');
  if (!ok) return;
  await redis.pexpire(\`lock:\${key}\`, 30000);
  await redis.del(\`lock:\${key}\`);
}`,
    },
    {
      name: 'a liveness heartbeat SET to the current time under a lock is not state a late holder could make stale',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function drain(queue: string) {
  await redlock.using(['drain:' + queue], 30000, async () => {
    await redis.set('drain:heartbeat', Date.now().toString());
    await redis.set('drain:started', new Date().toISOString(), 'EX', 600);
    await redis.hset('drain:beats', queue, \`\${Date.now()}\`);
  });
}
`,
    },
  ],
  invalid: [
    {
      name: 'the same gate with a class field that is not readonly: the value may differ per holder, a lease',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
export class PaymentEvents {
  static holder = 'seen';
  private readonly redis = new Redis();
  async onPaid(eventId: string, orderId: string) {
    const fresh = await this.redis.set('payment-event:' + eventId, PaymentEvents.holder, 'EX', 86400, 'NX');
    if (fresh !== 'OK') return;
    await pool.query("UPDATE orders SET status = 'paid' WHERE id = $1", [orderId]);
  }
}`,
      errors: [{ line: 10, messageId: 'missingFenceNoToken' }],
    },
    {
      name: 'a lock whose handle is its release: held until the handle is called, also when a helper hands the handle over',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
async function acquireLock(key: string): Promise<(() => Promise<void>) | null> {
  const owner = String(process.pid) + '-' + Date.now();
  if ((await redis.set(key, owner, 'EX', 10, 'NX')) !== 'OK') return null;
  return async () => { await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end", 1, key, owner); };
}
async function holdBuckets(user: string) {
  const release = await acquireLock('bucket:' + user);
  if (!release) return null;
  return release;
}
export async function closeAll(user: string) {
  const release = await holdBuckets(user);
  if (!release) return;
  await pool.query('UPDATE buckets SET closed = true WHERE user_id = $1', [user]);
  await release();
  await pool.query('UPDATE buckets SET audited = true WHERE user_id = $1', [user]);
}`,
      errors: [{ line: 18, messageId: 'missingFenceNoToken' }],
    },
    {
      name: 'a DELETE under the lock deletes newer data, it does not overwrite it; the acquire is quoted as written',
      code: `${redlockPg}
export async function purge(id: string) {
  const lock = await (redlock as any).acquire([\`drafts:\${id}\`], 5000);
  try {
    await pool.query('DELETE FROM drafts WHERE document_id = $1', [id]);
  } finally { await lock.release(); }
}`,
      errors: [{ line: 9, messageId: 'missingFenceNoToken', data: { write: 'This DELETE', acquire: '`(redlock as any).acquire` (line 7)' }, suggestions: [] }],
    },
    {
      name: 'a message never names its own line: acquire and write on one line',
      code: `${authorityPg}
export const save = async (key: string, value: string) => authority.acquire(key).then((lease: any) => pool.query('UPDATE kv SET value = $1 WHERE key = $2', [value, key, lease]));`,
      errors: [{ line: 6, messageId: 'missingFenceNoToken', data: { write: 'This UPDATE', acquire: '`authority.acquire`' } }],
    },
    {
      name: 'the article: redlock holds the lock, the UPDATE carries no token and none is in scope',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);

export async function save(key: string, value: string) {
  const lock = await redlock.acquire([\`lock:\${key}\`], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await lock.release();
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
      ],
    },
    {
      name: 'custom authority: the token is destructured from the acquire; the suggestion binds it as $3',
      code: `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
export async function save(key: string, value: string) {
  const { leaseId, fenceToken } = await authority.acquire(key);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await authority.release(leaseId);
  }
}`,
      errors: [
        { messageId: 'missingFence', line: 8,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
export async function save(key: string, value: string) {
  const { leaseId, fenceToken } = await authority.acquire(key);
  try {
    await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, fenceToken]);
  } finally {
    await authority.release(leaseId);
  }
}`,
            },
          ] },
      ],
    },
    {
      name: "multi-line SQL keeps its layout; the token is the handle's property",
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(leases: LeaseClient, key: string, value: string) {
  const lease = await leases.acquire(key);
  log.debug('writing', { key, fenceToken: lease.fenceToken });
  await pool.query(
    \`UPDATE resource_state
        SET value = $1
      WHERE resource_key = $2\`,
    [value, key],
  );
  await leases.release(lease);
}`,
      errors: [
        { messageId: 'missingFence', line: 6,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(leases: LeaseClient, key: string, value: string) {
  const lease = await leases.acquire(key);
  log.debug('writing', { key, fenceToken: lease.fenceToken });
  await pool.query(
    \`UPDATE resource_state
        SET value = $1, fence_token = $3
      WHERE resource_key = $2
        AND fence_token < $3\`,
    [value, key, lease.fenceToken],
  );
  await leases.release(lease);
}`,
            },
          ] },
      ],
    },
    {
      name: 'etcd3 lock object and a postgres.js tagged template: the token is interpolated',
      code: `import postgres from 'postgres';
import { Etcd3 } from 'etcd3';
const sql = postgres();
const etcd = new Etcd3();
export async function save(key: string, value: string, fenceToken: bigint) {
  const lock = etcd.lock(\`resource/\${key}\`);
  await lock.acquire();
  try {
    await sql\`UPDATE resource_state SET value = \${value} WHERE resource_key = \${key}\`;
  } finally {
    await lock.release();
  }
}`,
      errors: [
        { messageId: 'missingFence', line: 9,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import postgres from 'postgres';
import { Etcd3 } from 'etcd3';
const sql = postgres();
const etcd = new Etcd3();
export async function save(key: string, value: string, fenceToken: bigint) {
  const lock = etcd.lock(\`resource/\${key}\`);
  await lock.acquire();
  try {
    await sql\`UPDATE resource_state SET value = \${value}, fence_token = \${fenceToken} WHERE resource_key = \${key} AND fence_token < \${fenceToken}\`;
  } finally {
    await lock.release();
  }
}`,
            },
          ] },
      ],
    },
    {
      name: 'knex update: the suggestion adds a where link and stores the token',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state')
    .where({ resource_key: key })
    .update({ value });
}`,
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state')
    .where({ resource_key: key })
    .where('fence_token', '<', fenceToken)
    .update({ value, fence_token: fenceToken });
}`,
            },
          ] },
      ],
    },
    {
      name: 'the token is stored but not compared: the existing parameter is reused',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3', [value, fenceToken, key]);
}`,
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, fenceToken, key]);
}`,
            },
          ] },
      ],
    },
    {
      name: 'redlock.using callback',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);

export async function save(key: string, value: string) {
  await redlock.using([key], 5000, async (signal) => {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
      ],
    },
    {
      name: 'ioredis SET NX PX lock',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function save(key: string, value: string, owner: string) {
  const ok = await redis.set(\`lock:\${key}\`, owner, 'PX', 30000, 'NX');
  if (ok !== 'OK') return false;
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await redis.del(\`lock:\${key}\`);
  }
  return true;
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
      ],
    },
    {
      name: 'node-redis SET with { NX: true } and a multi-line postgres.js write',
      code: `import { createClient } from 'redis';
import postgres from 'postgres';
const client = createClient();
const sql = postgres();
export async function save(key: string, value: string, workerId: string) {
  const acquired = await client.set(\`lock:\${key}\`, workerId, { NX: true, PX: 30000 });
  if (!acquired) return;
  await sql\`
    UPDATE resource_state
    SET value = \${value}
    WHERE resource_key = \${key}
  \`;
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
      ],
    },
    {
      name: 'PostgreSQL advisory lock on a pooled client, the write through the pool',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(key: number, value: string) {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    await pool.query('UPDATE resource_state SET value = $1 WHERE id = $2', [value, key]);
    await client.query('SELECT pg_advisory_unlock($1)', [key]);
  } finally { client.release(); }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
      ],
    },
    {
      name: 'mysql2 ? placeholders: the token is spliced into the values in order',
      code: `import mysql from 'mysql2/promise';
const pool = mysql.createPool({});
export async function save(lockService: any, key: string, value: string) {
  const { fencingToken } = await lockService.acquire(key);
  await pool.execute('UPDATE resource_state SET value = ? WHERE resource_key = ?', [value, key]);
}`,
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import mysql from 'mysql2/promise';
const pool = mysql.createPool({});
export async function save(lockService: any, key: string, value: string) {
  const { fencingToken } = await lockService.acquire(key);
  await pool.execute('UPDATE resource_state SET value = ?, fence_token = ? WHERE resource_key = ? AND fence_token < ?', [value, fencingToken, key, fencingToken]);
}`,
            },
          ] },
      ],
    },
    {
      name: 'a same-file helper called under the lock makes the write',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);

async function persist(key: string, value: string) {
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await persist(key, value); } finally { await lock.release(); }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
      ],
    },
    {
      name: 'the token reaches a helper through its parameter',
      code: `import { Pool } from 'pg';
const pool = new Pool();
async function apply(key: string, value: string, token: number) {
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
}
export async function save(authority: FenceAuthority, key: string, value: string) {
  const lease = await authority.acquire(key);
  try {
    await apply(key, value, lease.fenceToken);
  } finally {
    await authority.release(lease);
  }
}`,
      errors: [
        { messageId: 'missingFence', line: 4,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
const pool = new Pool();
async function apply(key: string, value: string, token: number) {
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, token]);
}
export async function save(authority: FenceAuthority, key: string, value: string) {
  const lease = await authority.acquire(key);
  try {
    await apply(key, value, lease.fenceToken);
  } finally {
    await authority.release(lease);
  }
}`,
            },
          ] },
      ],
    },
    {
      name: 'DELETE under a redlock held in a class field',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
export class Repo {
  private readonly redlock = new Redlock([]);
  constructor(private readonly pool: Pool) {}
  async remove(key: string, fenceToken: number) {
    const lock = await this.redlock.acquire([key], 5000);
    try {
      await this.pool.query('DELETE FROM resource_state WHERE resource_key = $1', [key]);
    } finally { await lock.release(); }
  }
}`,
      errors: [
        { messageId: 'missingFence', line: 9,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import Redlock from 'redlock';
import { Pool } from 'pg';
export class Repo {
  private readonly redlock = new Redlock([]);
  constructor(private readonly pool: Pool) {}
  async remove(key: string, fenceToken: number) {
    const lock = await this.redlock.acquire([key], 5000);
    try {
      await this.pool.query('DELETE FROM resource_state WHERE resource_key = $1 AND fence_token < $2', [key, fenceToken]);
    } finally { await lock.release(); }
  }
}`,
            },
          ] },
      ],
    },
    {
      name: 'upsert without a WHERE on its DO UPDATE',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query(\`INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($1, $2, $3)
    ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token\`, [key, value, lease.fenceToken]);
}`,
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query(\`INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($1, $2, $3)
    ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token WHERE resource_state.fence_token < $3\`, [key, value, lease.fenceToken]);
}`,
            },
          ] },
      ],
    },
    {
      name: "redis-semaphore Mutex and pg's { text, values } form",
      code: `import { Mutex } from 'redis-semaphore';
import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
export async function save(redis: Redis, key: string, value: string) {
  const mutex = new Mutex(redis, \`lock:\${key}\`);
  await mutex.acquire();
  try {
    await pool.query({ text: 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', values: [value, key] });
  } finally { await mutex.release(); }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
      ],
    },
    {
      name: 'etcd3 lock(...).do callback',
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const etcd = new Etcd3();
const pool = new Pool();
export async function save(key: string, value: string) {
  await etcd.lock(key).ttl(10).do(async () => {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
      ],
    },
    {
      name: 'acquire(...).then(lock => ...)',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);

export function save(key: string, value: string) {
  return redlock.acquire([key], 5000).then(async (lock) => {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
    return lock.release();
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
      ],
    },
    {
      name: 'every write in the critical section is reported',
      code: `import { Pool } from 'pg';
export class InventoryWorker {
  constructor(private readonly db: Pool, private readonly locks: LockService) {}
  async reserve(sku: string, qty: number) {
    const lease = await this.locks.acquire(\`sku:\${sku}\`);
    try {
      await this.db.query('UPDATE inventory SET reserved = $1 WHERE sku = $2', [qty, sku]);
      await this.db.query('UPDATE inventory_audit SET last_change = now() WHERE sku = $1', [sku]);
    } finally {
      await this.locks.release(lease);
    }
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
      ],
    },
    {
      name: 'tokenColumn option names the column',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const { generation } = await authority.acquire(key);
  await pool.query('UPDATE documents SET body = $1 WHERE doc_key = $2', [value, key]);
}`,
      options: [{ tokenColumn: 'generation' }],
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { Pool } from 'pg';
const pool = new Pool();
export async function save(authority: any, key: string, value: string) {
  const { generation } = await authority.acquire(key);
  await pool.query('UPDATE documents SET body = $1, generation = $3 WHERE doc_key = $2 AND generation < $3', [value, key, generation]);
}`,
            },
          ] },
      ],
    },
    {
      name: "Prisma update without a token in its where: the suggestion adds { lt } and stores the token",
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function save(authority: LeaseAuthority, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await prisma.resourceState.update({
    where: { resourceKey: key },
    data: { value },
  });
}`,
      errors: [
        { messageId: 'missingFence', line: 5,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function save(authority: LeaseAuthority, key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await prisma.resourceState.update({
    where: { resourceKey: key, fenceToken: { lt: fenceToken } },
    data: { value, fenceToken },
  });
}`,
            },
          ] },
      ],
    },
    {
      name: "MongoDB updateOne under redlock: the suggestion extends the filter and $set",
      code: `import { MongoClient } from 'mongodb';
import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string, fenceToken: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await db.collection('resources').updateOne({ _id: key }, { $set: { value } });
  } finally { await lock.release(); }
}`,
      errors: [
        { messageId: 'missingFence', line: 7,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import { MongoClient } from 'mongodb';
import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string, fenceToken: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await db.collection('resources').updateOne({ _id: key, fenceToken: { $lt: fenceToken } }, { $set: { value, fenceToken } });
  } finally { await lock.release(); }
}`,
            },
          ] },
      ],
    },
    {
      name: "DynamoDB UpdateCommand without a ConditionExpression",
      code: `import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
export async function save(ddb: any, locks: any, key: string, value: string) {
  const lease = await locks.acquireLock(key);
  await ddb.send(new UpdateCommand({ TableName: 'resources', Key: { pk: key }, UpdateExpression: 'SET #v = :v', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':v': value } }));
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 4, suggestions: [] },
      ],
    },
    {
      name: "TypeORM repository and Sequelize model updates",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(repo: any, Resource: any, key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  await repo.update({ key }, { value });
  await Resource.update({ value }, { where: { key } });
  await lock.release();
}
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 5, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 6, suggestions: [] },
      ],
    },
    {
      name: "a TypeORM repository made by getRepository(Entity) on a connection the file cannot resolve",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export class Shipments {
  constructor(private readonly connection: { dataSource: any }) {}
  async dispatch(id: string) {
    const lock = await redlock.acquire(['shipment:' + id], 5000);
    await this.connection.dataSource.getRepository(Shipment).update({ id }, { state: 'dispatched' });
    await lock.release();
  }
}
class Shipment {}
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
      ],
    },
    {
      name: "Kysely updateTable without a token where",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string, fenceToken: number) {
  await redlock.using([key], 5000, async () => {
    await db.updateTable('resource_state').set({ value }).where('resource_key', '=', key).execute();
  });
}`,
      errors: [
        { messageId: 'missingFence', line: 5, suggestions: [] },
      ],
    },
    {
      name: "Kysely upsert that overwrites the stored row on conflict with no token where",
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function save(db: any, key: string, value: string) {
  await redlock.using([key], 5000, async () => {
    await db
      .insertInto('resource_state')
      .values({ resource_key: key, value })
      .onConflict((oc: any) => oc.column('resource_key').doUpdateSet({ value }))
      .executeTakeFirstOrThrow();
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 5, suggestions: [] },
      ],
    },
    {
      name: "pogi tables read off a schema (public, or any schema of a pgdb or transaction): updates and deletes by id under the lock",
      code: `import Redlock from 'redlock';
export async function refresh(context: any, url: string) {
  const { pgdb, redis } = context;
  const lock = await new Redlock([redis]).lock('locks:preview:' + url, 30000);
  try {
    const row = await pgdb.public.previews.findOne({ url });
    await pgdb.public.previews.updateAndGetOne({ id: row.id }, { fetchedAt: new Date() });
    const tx = await pgdb.transactionBegin();
    await tx.media.previewImages.delete({ previewId: row.id });
    await tx.transactionCommit();
  } finally {
    await lock.unlock();
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
      ],
    },
    {
      name: "Drizzle update without a token comparison",
      code: `import Redlock from 'redlock';
import { eq } from 'drizzle-orm';
const redlock = new Redlock([]);
export async function save(db: any, t: any, key: string, value: string) {
  await redlock.using([key], 5000, async () => {
    await db.update(t).set({ value }).where(eq(t.resourceKey, key));
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 6, suggestions: [] },
      ],
    },
    {
      name: "a withLock(key, ttl, callback) helper runs its callback under a lock",
      code: `import { Pool } from 'pg';
import { withLock } from '../infra/locks';
const pool = new Pool();
export async function save(key: string, value: string) {
  await withLock(\`res:\${key}\`, 30_000, async () => {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 6, suggestions: [] }],
    },
    {
      name: "a lease kept as a row in a lock table is a lock too",
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function runJob(jobId: string, workerId: string, output: string) {
  const { rowCount } = await pool.query(
    \`INSERT INTO job_leases (job_id, owner, expires_at) VALUES ($1, $2, now() + interval '30 seconds')
     ON CONFLICT (job_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
     WHERE job_leases.expires_at < now()\`,
    [jobId, workerId],
  );
  if (rowCount === 0) return;
  await pool.query('UPDATE job_results SET output = $1 WHERE job_id = $2', [output, jobId]);
  await pool.query('DELETE FROM job_leases WHERE job_id = $1 AND owner = $2', [jobId, workerId]);
}
`,
      errors: [{ messageId: 'missingFenceNoToken', line: 11, suggestions: [] }],
    },
    {
      name: "a Redis value overwritten under redlock (the classic late write)",
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function publishConfig(name: string, json: string) {
  const lock = await redlock.acquire([\`lock:config:\${name}\`], 10_000);
  try {
    await redis.set(\`config:\${name}\`, json);
  } finally {
    await lock.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8, suggestions: [] }],
    },
    {
      name: "an HTTP PUT without the token; the one with a fence header and the GET pass",
      code: `import Redlock from 'redlock';
import axios from 'axios';
const redlock = new Redlock([]);
export async function sync(id: string, doc: object, fenceToken: number) {
  await redlock.using([\`lock:\${id}\`], 5000, async () => {
    await axios.put(\`https://store.internal/docs/\${id}\`, doc);
    await fetch(\`https://store.internal/docs/\${id}\`, { method: 'PUT', headers: { 'X-Fence-Token': String(fenceToken) }, body: JSON.stringify(doc) });
    await fetch(\`https://store.internal/docs/\${id}\`, { method: 'GET' });
  });
}`,
      errors: [{ messageId: 'missingFence', line: 6, suggestions: [] }],
    },
    {
      name: "an unconditional S3 put; the IfMatch put passes",
      code: `import Redlock from 'redlock';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
const s3 = new S3Client({});
const redlock = new Redlock([]);
export async function upload(key: string, body: string, etag: string) {
  await redlock.using([key], 5000, async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: body }));
    await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: body, IfMatch: etag }));
  });
}
`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7, suggestions: [] }],
    },
    {
      name: 'a time read before the work and stored after it is state, not a heartbeat',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function drain(queue: string, since: number) {
  await redlock.using(['drain:' + queue], 30000, async () => {
    const cursor = Date.now();
    await redis.set('drain:cursor', String(cursor));
    await redis.set('drain:since', since);
  });
}
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 9, suggestions: [] },
      ],
    },
    {
      name: 'the time a state changed, stored as it is sent, goes with that state: not a heartbeat',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function closeRound(roundId: string) {
  await redlock.using(['round:' + roundId], 30000, async () => {
    await redis.set(\`round:\${roundId}:closed-at\`, new Date().toISOString());
    await redis.hset('round:' + roundId, 'publishedAt', Date.now());
  });
}
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
      ],
    },
    {
      name: 'S3 deletes under a lock: v3 commands, the aggregated v3 client and the v2 client; reads are not writes',
      code: `import Redlock from 'redlock';
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, S3, S3Client } from '@aws-sdk/client-s3';
import { S3 as LegacyS3 } from 'aws-sdk';
const client = new S3Client({});
const aggregated = new S3({});
const legacy = new LegacyS3();
const redlock = new Redlock([]);
export async function sweep(bucket: string, keys: string[]) {
  await redlock.using(['sweep:' + bucket], 30000, async () => {
    await client.send(new GetObjectCommand({ Bucket: bucket, Key: keys[0] }));
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys[0] }));
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    await aggregated.deleteObject({ Bucket: bucket, Key: keys[1] });
    await legacy.deleteObjects({ Bucket: bucket, Delete: { Objects: [] } }).promise();
    await aggregated.getObject({ Bucket: bucket, Key: keys[2] });
  });
}
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 11, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 12, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 13, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 14, suggestions: [] },
      ],
    },
    {
      name: 'ClickHouse mutations sent with command() under a lock are unfenced, also when a same-file function builds the text; inserts (into a table or an s3() export), reads and table creation are not writes',
      code: `import Redlock from 'redlock';
import { createClient } from '@clickhouse/client';
const clickhouse = createClient({ url: 'http://localhost:8123' });
const redlock = new Redlock([]);
export async function purgeProject(projectId: string, table: string) {
  await redlock.using(['purge:' + projectId], 60000, async () => {
    await clickhouse.command({ query: 'ALTER TABLE events DELETE WHERE project_id = {p:String}', query_params: { p: projectId } });
    await clickhouse.command({ query: \`DELETE FROM \${table} WHERE project_id = {p:String}\`, query_params: { p: projectId } });
    await clickhouse.command({ query: 'CREATE TABLE IF NOT EXISTS purge_log (id String) ENGINE = MergeTree ORDER BY id' });
    await clickhouse.insert({ table: 'purge_log', values: [{ id: projectId }], format: 'JSONEachRow' });
    await clickhouse.query({ query: 'SELECT count() FROM events' });
    await clickhouse.command({ query: exportDay(projectId) });
    await clickhouse.command({ query: purgeDay(projectId) });
  });
}
function exportDay(projectId: string): string {
  return \`INSERT INTO FUNCTION s3('https://exports.example/\${projectId}.json', 'JSONEachRow') SELECT * FROM events WHERE project_id = '\${projectId}'\`;
}
const purgeDay = (projectId: string) => \`ALTER TABLE events DELETE WHERE project_id = '\${projectId}'\`;
`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 8, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 13, suggestions: [] },
      ],
    },
    {
      name: 'a ClickHouse client handed out by a same-file singleton manager (a method typed ReturnType<typeof createClient>)',
      code: `import Redlock from 'redlock';
import { createClient } from '@clickhouse/client';
type AnalyticsClient = ReturnType<typeof createClient>;
class AnalyticsClients {
  private static instance: AnalyticsClients;
  private readonly clients = new Map<string, AnalyticsClient>();
  static getInstance(): AnalyticsClients {
    if (!AnalyticsClients.instance) AnalyticsClients.instance = new AnalyticsClients();
    return AnalyticsClients.instance;
  }
  getClient(url: string): AnalyticsClient {
    if (!this.clients.has(url)) this.clients.set(url, createClient({ url }));
    return this.clients.get(url)!;
  }
}
const analytics = (url = 'http://localhost:8123') => AnalyticsClients.getInstance().getClient(url);
const redlock = new Redlock([]);
export async function runSql(query: string) {
  await analytics().command({ query });
}
export async function expire(day: string) {
  await redlock.using(['expire'], 60000, async () => {
    await analytics().command({ query: 'ALTER TABLE sessions DELETE WHERE day < {d:Date}', query_params: { d: day } });
    await runSql('ALTER TABLE spans DELETE WHERE 1');
  });
}
`,
      // The helper's write is reported where it is written, as for any same-file helper.
      errors: [
        { messageId: 'missingFenceNoToken', line: 19, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 23, suggestions: [] },
      ],
    },
    {
      name: "a method of a same-file class called on an instance makes the write",
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
class ResourceRepository {
  constructor(private readonly pool: Pool) {}
  async saveState(key: string, value: string) {
    await this.pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  }
}
const redlock = new Redlock([]);
const repository = new ResourceRepository(new Pool());
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await repository.saveState(key, value); } finally { await lock.release(); }
}
`,
      errors: [{ messageId: 'missingFenceNoToken', line: 6, suggestions: [] }],
    },
  ],
});

// A column is the token column because the write compares it with the token and stores the
// token in it, whatever it is called.
ruleTester.run('require-fence-condition: any token column', rule, {
  valid: [
    {
      name: 'SQL: `revision` compared with a value and assigned the same value',
      code: `${redlockPg}
export async function save(key: string, body: string, rev: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await pool.query('UPDATE documents SET body = $1, revision = $2 WHERE id = $3 AND revision < $2', [body, rev, key]);
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'SQL: a quoted `"token"` column and `generation <=` in an upsert through EXCLUDED',
      code: `${redlockPg}
export async function save(key: string, v: string, t: number, g: number) {
  await redlock.using([key], 5000, async () => {
    await pool.query('UPDATE slots SET v = $1, "token" = $2 WHERE k = $3 AND "token" < $2', [v, t, key]);
    await pool.query(
      \`INSERT INTO shards (id, owner, generation) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, generation = EXCLUDED.generation
       WHERE shards.generation <= EXCLUDED.generation\`,
      [key, v, g],
    );
  });
}`,
    },
    {
      name: 'SQL: equality on any column that the write bumps is compare-and-set',
      code: `${redlockPg}
export async function save(key: string, body: string, seen: number) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await pool.query('UPDATE documents SET body = $1, edit_no = edit_no + 1 WHERE id = $2 AND edit_no = $3', [body, key, seen]);
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'knex: `.where(epoch < e)` and `epoch: e` in the update',
      code: `import knex from 'knex';
import Redlock from 'redlock';
const db = knex({ client: 'pg' });
const redlock = new Redlock([]);
export async function save(key: string, value: string, e: number) {
  await redlock.using([key], 5000, async () => {
    await db('partitions').where({ id: key }).where('epoch', '<', e).update({ value, epoch: e });
    await db('partitions').where('id', key).whereRaw('lease_seq < ?', [e]).update({ value, lease_seq: e });
  });
}`,
    },
    {
      name: 'Prisma, MongoDB, Kysely, Drizzle and TypeORM with `generation`, `lease_seq`, `version`, `revision`, `epoch`',
      code: `import Redlock from 'redlock';
import { PrismaClient } from '@prisma/client';
import { and, eq, lt } from 'drizzle-orm';
const prisma = new PrismaClient();
const redlock = new Redlock([]);
export async function save(db: any, mongo: any, t: any, key: string, value: string, g: number) {
  await redlock.using([key], 5000, async () => {
    await prisma.shard.updateMany({ where: { id: key, generation: { lt: g } }, data: { value, generation: g } });
    await mongo.collection('shards').updateOne({ _id: key, lease_seq: { $lt: g } }, { $set: { value, lease_seq: g } });
    await db.updateTable('shards').set({ value, version: g }).where('id', '=', key).where('version', '<', g).execute();
    await db.update(t).set({ value, revision: g }).where(and(eq(t.id, key), lt(t.revision, g)));
    await db.createQueryBuilder().update('shards').set({ value, epoch: g }).where('id = :id', { id: key }).andWhere('epoch < :g', { g }).execute();
  });
}`,
    },
    {
      name: 'Prisma and MongoDB compare-and-set on a bumped counter of any name',
      code: `import Redlock from 'redlock';
import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
const redlock = new Redlock([]);
export async function save(mongo: any, key: string, value: string, seen: number) {
  await redlock.using([key], 5000, async () => {
    await prisma.account.updateMany({ where: { id: key, editNo: seen }, data: { value, editNo: { increment: 1 } } });
    await mongo.collection('accounts').updateOne({ _id: key, edit_no: seen }, { $set: { value }, $inc: { edit_no: 1 } });
  });
}`,
    },
    {
      name: 'DynamoDB: the condition and the UpdateExpression name the same attribute and value',
      code: `import Redlock from 'redlock';
import { UpdateCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
const redlock = new Redlock([]);
export async function save(ddb: any, key: string, value: string, g: number) {
  await redlock.using([key], 5000, async () => {
    await ddb.send(new UpdateCommand({ TableName: 't', Key: { pk: key }, UpdateExpression: 'SET #v = :v, #g = :g', ConditionExpression: 'attribute_not_exists(#g) OR #g < :g', ExpressionAttributeNames: { '#v': 'value', '#g': 'generation' }, ExpressionAttributeValues: { ':v': value, ':g': g } }));
    await ddb.send(new PutCommand({ TableName: 't', Item: { pk: key, value, epoch: g }, ConditionExpression: 'epoch < :g', ExpressionAttributeValues: { ':g': g } }));
  });
}`,
    },
    {
      name: 'a counter bumped and returned under the lock issues a token, whatever its names',
      code: `${redlockPg}
export async function nextSeq(key: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const { rows } = await pool.query('UPDATE write_counters SET n = n + 1, touched_at = now() WHERE k = $1 RETURNING n', [key]);
    return rows[0].n;
  } finally { await lock.release(); }
}`,
    },
  ],
  invalid: [
    {
      name: 'a time column compared and stored is last-write-wins by clock, not a fence',
      code: `${redlockPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const now = new Date();
    await pool.query('UPDATE documents SET body = $1, updated_at = $2 WHERE id = $3 AND updated_at < $2', [body, now, key]);
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10, suggestions: [] }],
    },
    {
      name: 'a column compared with one value and set to another is no fence',
      code: `import knex from 'knex';
import Redlock from 'redlock';
const db = knex({ client: 'pg' });
const redlock = new Redlock([]);
export async function save(key: string, value: string, a: number, b: number) {
  await redlock.using([key], 5000, async () => {
    await db('partitions').where('id', key).where('epoch', '<', a).update({ value, epoch: b });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7, suggestions: [] }],
    },
    {
      name: 'DynamoDB: a condition on an attribute the write does not set',
      code: `import Redlock from 'redlock';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
const redlock = new Redlock([]);
export async function save(ddb: any, key: string, value: string, g: number) {
  await redlock.using([key], 5000, async () => {
    await ddb.send(new UpdateCommand({ TableName: 't', Key: { pk: key }, UpdateExpression: 'SET #v = :v', ConditionExpression: 'epoch < :g', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':v': value, ':g': g } }));
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 6, suggestions: [] }],
    },
    {
      name: "the suggestion stores the token in the column the file's fenced write uses",
      code: `${authorityPg}
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE documents SET body = $1, revision = $2 WHERE id = $3 AND revision < $2', [value, fenceToken, key]);
  await pool.query('UPDATE document_index SET title = $1 WHERE id = $2', [value, key]);
}`,
      options: [{ tokenColumn: 'fence_token' }],
      errors: [
        {
          messageId: 'missingFence',
          line: 9,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${authorityPg}
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE documents SET body = $1, revision = $2 WHERE id = $3 AND revision < $2', [value, fenceToken, key]);
  await pool.query('UPDATE document_index SET title = $1, revision = $3 WHERE id = $2 AND revision < $3', [value, key, fenceToken]);
}`,
            },
          ],
        },
      ],
    },
  ],
});

// Tokens known by where they come from, whatever the variables are called.
const redlockRedisPg = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
const redis = new Redis();
const redlock = new Redlock([redis]);
`;

ruleTester.run('require-fence-condition: tokens by provenance', rule, {
  valid: [
    {
      name: "the rule's own advice: Redis INCR under the lock, compared and stored (any names)",
      code: `${redlockRedisPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([\`lock:\${key}\`], 5000);
  try {
    const n = await redis.incr(\`fence:\${key}\`);
    const result = await pool.query('UPDATE documents SET body = $1, writer_seq = $2 WHERE id = $3 AND writer_seq < $2', [body, n, key]);
    if (result.rowCount === 0) throw new Error('stale');
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'an HTTP PUT that sends a counter value in a header of any name',
      code: `${redlockRedisPg}
export async function push(key: string, body: string) {
  await redlock.using([key], 5000, async () => {
    const seq = await redis.incr(\`fence:\${key}\`);
    await fetch(\`https://inventory.internal/items/\${key}\`, { method: 'PUT', headers: { 'X-Writer-Seq': String(seq) }, body });
    await fetch(\`https://inventory.internal/prices/\${key}\`, { method: 'PUT', headers: { 'X-Writer-Seq': \`\${seq}\` }, body });
  });
}`,
    },
    {
      name: 'counters read through a transaction, nextval, a RETURNING row and postgres.js',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { Pool } from 'pg';
import postgres from 'postgres';
const pool = new Pool();
const redis = new Redis();
const nodeRedis = createClient();
const sql = postgres();
const redlock = new Redlock([redis]);
const put = (url: string, n: unknown) => fetch(url, { method: 'PUT', headers: { 'X-Order': String(n) } });
export async function push(key: string) {
  await redlock.using([key], 5000, async () => {
    const [[, a]] = await redis.multi().incr(\`f:\${key}\`).expire(\`f:\${key}\`, 86400).exec();
    const [b] = await nodeRedis.multi().incr(\`f:\${key}\`).exec();
    const { rows: [{ id: c }] } = await pool.query("SELECT nextval('writer_seq') AS id");
    const d = (await pool.query('UPDATE writer_counters SET n = n + 1 WHERE k = $1 RETURNING n', [key])).rows[0].n;
    const [{ n: e }] = await sql\`UPDATE writer_counters SET n = n + 1 WHERE k = \${key} RETURNING n\`;
    const f = await nodeRedis.hIncrBy('writer-seq', key, 1);
    await put('https://a.internal/x', a);
    await put('https://a.internal/x', b);
    await put('https://a.internal/x', c);
    await put('https://a.internal/x', d);
    await put('https://a.internal/x', e);
    await put('https://a.internal/x', f);
  });
}`,
    },
    {
      name: "an etcd put's header revision and a key's mod_revision, a ZooKeeper czxid",
      code: `import { Etcd3 } from 'etcd3';
const etcd = new Etcd3();
export async function push(key: string, owner: string, zk: any) {
  const lock = await etcd.lock(key).acquire();
  try {
    const { header: { revision } } = await etcd.put(\`owners/\${key}\`).value(owner);
    await fetch('https://a.internal/x', { method: 'PUT', headers: { 'X-Order': revision } });
    const kv = await etcd.get(\`owners/\${key}\`).exec();
    await fetch('https://a.internal/y', { method: 'PUT', headers: { 'X-Order': kv.kvs[0].mod_revision } });
    const stat = await zk.exists(\`/owners/\${key}\`);
    await fetch('https://a.internal/z', { method: 'PUT', headers: { 'X-Order': stat.czxid } });
  } finally { await lock.release(); }
}`,
    },
    {
      name: 'a same-file function returns the counter; a parameter receives it; a callback receives it; a class field holds it',
      code: `${redlockRedisPg}
async function nextWriterSeq(key: string): Promise<number> {
  const { rows } = await pool.query('INSERT INTO writer_counters (k, n) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = writer_counters.n + 1 RETURNING n', [key]);
  return Number(rows[0].n);
}
async function withSeq(key: string, run: (seq: number) => Promise<void>) {
  await run(await redis.incr(\`f:\${key}\`));
}
async function send(key: string, body: string, order: number) {
  await fetch(\`https://a.internal/\${key}\`, { method: 'PUT', headers: { 'X-Order': String(order) }, body });
}
class Pusher {
  private order = 0;
  async push(key: string, body: string) {
    const lock = await redlock.acquire([key], 5000);
    try {
      this.order = await nextWriterSeq(key);
      await fetch(\`https://a.internal/\${key}\`, { method: 'PUT', headers: { 'X-Order': String(this.order) }, body });
      await send(key, body, await nextWriterSeq(key));
      await withSeq(key, async (s) => {
        await fetch(\`https://b.internal/\${key}\`, { method: 'PUT', headers: { 'X-Order': String(s) }, body });
      });
    } finally { await lock.release(); }
  }
}
export { Pusher };`,
    },
    {
      name: 'the suggested fix for a counter named `order` is accepted',
      code: `${redlockRedisPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const { rows } = await pool.query('UPDATE fence_counters SET n = n + 1 WHERE k = $1 RETURNING n', [key]);
    const order = rows[0].n;
    await pool.query('UPDATE documents SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, key, order]);
  } finally { await lock.release(); }
}`,
    },
  ],
  invalid: [
    {
      name: 'a counter in scope under any name: the suggestion fences the write with it, and the result is accepted',
      code: `${redlockRedisPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const { rows } = await pool.query('UPDATE fence_counters SET n = n + 1 WHERE k = $1 RETURNING n', [key]);
    const order = rows[0].n;
    await pool.query('UPDATE documents SET body = $1 WHERE id = $2', [body, key]);
  } finally { await lock.release(); }
}`,
      errors: [
        {
          messageId: 'missingFence',
          line: 13,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${redlockRedisPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const { rows } = await pool.query('UPDATE fence_counters SET n = n + 1 WHERE k = $1 RETURNING n', [key]);
    const order = rows[0].n;
    await pool.query('UPDATE documents SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, key, order]);
  } finally { await lock.release(); }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Date.now() and a random id named like tokens are not tokens: no suggestion uses them',
      code: `${redlockRedisPg}
import { randomUUID } from 'node:crypto';
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const fenceToken = Date.now();
    const generation = randomUUID();
    await pool.query('UPDATE documents SET body = $1 WHERE id = $2', [body, key]);
    await fetch(\`https://a.internal/\${key}\`, { method: 'PUT', headers: { 'X-Order': String(generation) }, body });
  } finally { await lock.release(); }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 14, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 15, suggestions: [] },
      ],
    },
    {
      name: 'a plain number read under the lock is not a token',
      code: `${redlockRedisPg}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const count = await redis.llen(\`queue:\${key}\`);
    await fetch(\`https://a.internal/\${key}\`, { method: 'PUT', headers: { 'X-Order': String(count) }, body });
  } finally { await lock.release(); }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 12, suggestions: [] }],
    },
  ],
});

// A token or lease received as a parameter: the acquire happens in a caller.
const pgLogger = `import { Pool } from 'pg';
import pino from 'pino';
const pool = new Pool();
const log = pino();
export interface Lease { leaseId: string; fenceToken: bigint }
`;

ruleTester.run('require-fence-condition: tokens and leases received as parameters', rule, {
  valid: [
    {
      name: 'a function handed the token compares and stores it',
      code: `${pgLogger}
export async function saveState(key: string, value: string, fenceToken: bigint) {
  const result = await pool.query('UPDATE state SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, fenceToken]);
  if (result.rowCount === 0) throw new Error('stale');
}`,
    },
    {
      name: "a function handed the lease compares and stores the lease's token, in any column",
      code: `${pgLogger}
export async function saveState(lease: Lease, key: string, value: string) {
  await pool.query('UPDATE state SET value = $1, revision = $3 WHERE key = $2 AND revision < $3', [value, key, lease.fenceToken]);
}`,
    },
    {
      name: 'a function handed the lease passes its token on to a helper that writes fenced',
      code: `${pgLogger}
async function writeFenced(key: string, value: string, order: bigint) {
  await pool.query('UPDATE state SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, order]);
}
export async function saveState(lease: Lease, key: string, value: string) {
  log.info({ leaseId: lease.leaseId }, 'saving');
  await writeFenced(key, value, lease.fenceToken);
}`,
    },
    {
      name: 'an auth token, a boolean `lock` flag and an untyped `lock` that carries nothing are not leases',
      code: `${pgLogger}
export async function rename(token: string, id: string, name: string) {
  await pool.query('UPDATE users SET name = $1 WHERE id = $2', [name, id]);
}
export async function setLocked(id: string, lock: boolean) {
  await pool.query('UPDATE users SET locked = $1 WHERE id = $2', [lock, id]);
}
export async function close(lock: unknown, id: string) {
  await pool.query('UPDATE tickets SET open = false WHERE id = $1', [id]);
}`,
    },
    {
      name: "keeping the lease's own row (renew, heartbeat) is lease upkeep, not a data write",
      code: `${pgLogger}
export async function renewLease(lease: Lease) {
  await pool.query("UPDATE jobs SET lease_expires_at = now() + interval '30 seconds' WHERE lease_id = $1", [lease.leaseId]);
}
export async function recordProgress(lease: Lease, jobId: string) {
  await pool.query('UPDATE jobs SET heartbeat_at = now(), locked_until = now() WHERE id = $1', [jobId]);
}`,
    },
    {
      name: 'a parameter named like a token that every caller fills from the clock is no token',
      code: `${pgLogger}
async function markSeen(key: string, fenceToken: number) {
  await pool.query('UPDATE marks SET seen = true WHERE key = $1', [key]);
}
export async function tick(key: string) {
  await markSeen(key, Date.now());
}`,
    },
  ],
  invalid: [
    {
      name: 'a function handed the token writes without it; the suggestion uses the parameter',
      code: `${pgLogger}
export async function saveState(key: string, value: string, fenceToken: bigint) {
  await pool.query('UPDATE state SET value = $1 WHERE key = $2', [value, key]);
}`,
      errors: [
        {
          messageId: 'receivedTokenUnused',
          line: 8,
          data: { write: 'This UPDATE', fn: '`saveState`', token: '`fenceToken`', at: ' (line 7)' },
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${pgLogger}
export async function saveState(key: string, value: string, fenceToken: bigint) {
  await pool.query('UPDATE state SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'a lease used only for logging, then an unfenced write',
      code: `${pgLogger}
export async function saveState(lease: Lease, key: string, value: string) {
  log.info({ leaseId: lease.leaseId, token: lease.fenceToken }, 'saving');
  await pool.query('UPDATE state SET value = $1 WHERE key = $2', [value, key]);
}`,
      errors: [
        {
          messageId: 'receivedTokenUnused',
          line: 9,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${pgLogger}
export async function saveState(lease: Lease, key: string, value: string) {
  log.info({ leaseId: lease.leaseId, token: lease.fenceToken }, 'saving');
  await pool.query('UPDATE state SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, lease.fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: "a redlock Lock handed in carries no token: the message says where one comes from; a same-file callee's write counts",
      code: `${pgLogger}
import type { Lock } from 'redlock';
async function persist(id: string) {
  await pool.query('UPDATE jobs SET status = $1 WHERE id = $2', ['done', id]);
}
export async function finish(lock: Lock, id: string) {
  await persist(id);
  await lock.release();
}`,
      errors: [{ messageId: 'receivedLeaseUnfenced', line: 9, suggestions: [] }],
    },
    {
      name: 'callers pass the acquire handle to a parameter of any name',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
async function apply(ctx: unknown, key: string, value: string) {
  await pool.query('UPDATE state SET value = $1 WHERE key = $2', [value, key]);
}
export async function run(key: string, value: string) {
  const held = await redlock.acquire([key], 5000);
  try { await apply(held, key, value); } finally { await held.release(); }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 6, suggestions: [] }],
    },
  ],
});

// PostgreSQL advisory locks: a write on the lock's own connection, inside its transaction or
// session, cannot outlive the lock; a write through another connection or the pool can.
const pgKnexPrisma = `import { Pool, type PoolClient } from 'pg';
import knex from 'knex';
import { PrismaClient } from '@prisma/client';
import postgres from 'postgres';
const pool = new Pool();
const db = knex({ client: 'pg' });
const prisma = new PrismaClient();
const sql = postgres();
`;

ruleTester.run('require-fence-condition: scoped advisory locks', rule, {
  valid: [
    {
      name: 'pg_advisory_xact_lock and the write on the same client between BEGIN and COMMIT',
      code: `${pgKnexPrisma}
export async function settle(accountId: string, balance: number) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [accountId]);
    await client.query('UPDATE balances SET amount = $1 WHERE account_id = $2', [balance, accountId]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}`,
    },
    {
      name: 'pg_advisory_lock and the write on the same dedicated session',
      code: `${pgKnexPrisma}
export async function rebuild(client: PoolClient, id: number, body: string) {
  const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [id]);
  if (!rows[0].ok) return;
  try {
    await client.query('UPDATE reports SET body = $1 WHERE id = $2', [body, id]);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [id]);
  }
}`,
    },
    {
      name: 'knex.transaction, prisma.$transaction and sql.begin callbacks on their own transaction object',
      code: `${pgKnexPrisma}
export async function move(id: string, v: string) {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [42]);
    await trx('items').where({ id }).update({ v });
  });
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw\`SELECT pg_advisory_xact_lock(\${42})\`;
    await tx.item.update({ where: { id }, data: { v } });
  });
  await sql.begin(async (sql) => {
    await sql\`SELECT pg_advisory_xact_lock(\${42})\`;
    await sql\`UPDATE items SET v = \${v} WHERE id = \${id}\`;
  });
}`,
    },
    {
      name: 'a knex update built on the pool but embedded in the transaction query as a CTE runs in that transaction',
      code: `${pgKnexPrisma}
export async function claim(group: number) {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS ok', [group]);
    if (!rows[0].ok) return [];
    return trx
      .with('claimed', db.from('items').update({ state: 'taken' }).whereIn('id', db.select('id').from('ready')).returning('*'))
      .select('*')
      .from('claimed');
  });
}`,
    },
    {
      name: 'a knex transaction opened without a callback, shared advisory lock',
      code: `${pgKnexPrisma}
export async function move(id: string, v: string) {
  const trx = await db.transaction();
  try {
    await trx.raw('SELECT pg_advisory_xact_lock_shared(?)', [7]);
    await trx('items').where({ id }).update({ v });
    await trx.commit();
  } catch (err) {
    await trx.rollback();
    throw err;
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the lock is held on a client but the write goes through the pool; the label names the exact function',
      code: `${pgKnexPrisma}
export async function settle(accountId: string, balance: number) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [accountId]);
    await pool.query('UPDATE balances SET amount = $1 WHERE account_id = $2', [balance, accountId]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 15, suggestions: [] }],
    },
    {
      name: 'a knex update on the pool run on its own, beside the locked transaction, is outside it',
      code: `${pgKnexPrisma}
export async function claim(group: number) {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS ok', [group]);
    if (!rows[0].ok) return [];
    await db.from('items').update({ state: 'taken' }).whereIn('id', db.select('id').from('ready'));
    return trx.select('*').from('items');
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 14, suggestions: [] }],
    },
    {
      name: 'a session lock taken through the pool holds for none of its writes',
      code: `${pgKnexPrisma}
export async function rebuild(id: number, body: string) {
  await pool.query('SELECT pg_try_advisory_lock($1)', [id]);
  await pool.query('UPDATE reports SET body = $1 WHERE id = $2', [body, id]);
  await pool.query('SELECT pg_advisory_unlock($1)', [id]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 12, suggestions: [] }],
    },
    {
      name: 'pg_advisory_xact_lock outside a transaction ends with its own statement',
      code: `${pgKnexPrisma}
export async function rebuild(id: number, body: string) {
  const client = await pool.connect();
  await client.query('SELECT pg_advisory_xact_lock($1)', [id]);
  await client.query('UPDATE reports SET body = $1 WHERE id = $2', [body, id]);
  client.release();
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 13, suggestions: [] }],
    },
    {
      name: 'inside the transaction callbacks, writes through the outer client are not in the transaction',
      code: `${pgKnexPrisma}
export async function move(id: string, v: string) {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [42]);
    await db('items').where({ id }).update({ v });
  });
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw\`SELECT pg_advisory_xact_lock(\${42})\`;
    await prisma.item.update({ where: { id }, data: { v } });
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 13, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 17, suggestions: [] },
      ],
    },
    {
      name: 'postgres.js: a session lock on the pool, and a write through the pool under it',
      code: `${pgKnexPrisma}
export async function rebuild(id: number, body: string) {
  await sql\`SELECT pg_advisory_lock(\${id})\`;
  await sql\`UPDATE reports SET body = \${body} WHERE id = \${id}\`;
  await sql\`SELECT pg_advisory_unlock(\${id})\`;
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 12, suggestions: [] }],
    },
  ],
});

// A SET NX that only marks something once takes no lock, so what follows it is no critical section.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'a first-sale timestamp set with SET NX and no expiry, then an ordinary update',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function recordSale(shopId: string, amount: number) {
  await redis.set(\`shop:\${shopId}:firstSaleAt\`, Date.now(), 'NX');
  await pool.query('UPDATE shops SET revenue = revenue + $1 WHERE id = $2', [amount, shopId]);
}`,
    },
    {
      name: 'an idempotency gate whose value is a readonly class constant: a marker, as a literal is',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
export class PaymentEvents {
  private static readonly SEEN = 'seen';
  private readonly redis = new Redis();
  async onPaid(eventId: string, orderId: string) {
    const fresh = await this.redis.set('payment-event:' + eventId, PaymentEvents.SEEN, 'EX', 86400, 'NX');
    if (fresh !== 'OK') return;
    await pool.query("UPDATE orders SET status = 'paid' WHERE id = $1", [orderId]);
  }
}`,
    },
    {
      name: 'an idempotency gate with a constant value: the handler runs once per event, not under a lease',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function onPayment(eventId: string, accountId: string, cents: number) {
  const fresh = await redis.set(\`seen-event:\${eventId}\`, '1', 'EX', 86400, 'NX');
  if (fresh !== 'OK') return;
  await pool.query('UPDATE accounts SET balance = balance + $1 WHERE id = $2', [cents, accountId]);
}`,
    },
    {
      name: 'a cache fill whose SET NX reply is dropped with the Promise.all it sits in: nothing runs because of it',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function warmMenu(shopId: string, menu: string) {
  await Promise.all([
    redis.set(\`menu:\${shopId}\`, menu, 'PX', 60000, 'NX'),
    redis.set(\`menu-fallback:\${shopId}\`, menu),
  ]);
  await pool.query('UPDATE shops SET menu_warmed = true WHERE id = $1', [shopId]);
}`,
    },
  ],
  invalid: [
    {
      name: 'a SET NX claim whose reply is read out of a Promise.all is a lease',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const pool = new Pool();
export async function settle(accountId: string, cents: number) {
  const [claimed] = await Promise.all([redis.set(\`settle:\${accountId}\`, randomUUID(), 'PX', 15000, 'NX'), pool.query('SELECT 1')]);
  if (claimed !== 'OK') return;
  await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [cents, accountId]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
    {
      name: 'a SET NX claim with an owner and an expiry is a lease: the update under it is unfenced',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const pool = new Pool();
export async function settle(accountId: string, cents: number) {
  const claimed = await redis.set(\`settle:\${accountId}\`, randomUUID(), 'PX', 15000, 'NX');
  if (claimed !== 'OK') return;
  await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [cents, accountId]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
  ],
});

// A write that only keeps the larger (or smaller) of the stored value and its own cannot move a
// value backwards: a late writer loses to the newer value already there.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'MongoDB $max of a last-crawled time under a redlock lease',
      code: `import Redlock from 'redlock';
import { MongoClient } from 'mongodb';
const redlock = new Redlock([]);
const sites = new MongoClient('mongodb://127.0.0.1').db('crawler').collection('sites');
export async function markCrawled(siteId: string) {
  await redlock.using([\`crawl:\${siteId}\`], 10000, async () => {
    await sites.updateOne({ _id: siteId }, { $max: { lastCrawledAt: new Date() } });
  });
}`,
    },
    {
      name: 'SQL GREATEST of the stored high-water mark and the new one',
      code: `${redlockPg}
export async function advance(streamId: string, offset: number) {
  const lock = await redlock.acquire([\`stream:\${streamId}\`], 5000);
  try {
    await pool.query('UPDATE stream_cursors SET committed_offset = GREATEST(committed_offset, $1) WHERE stream_id = $2', [offset, streamId]);
  } finally {
    await lock.release();
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'MongoDB $max together with a $set of another field: the $set can still land late',
      code: `import Redlock from 'redlock';
import { MongoClient } from 'mongodb';
const redlock = new Redlock([]);
const sites = new MongoClient('mongodb://127.0.0.1').db('crawler').collection('sites');
export async function markCrawled(siteId: string, status: string) {
  await redlock.using([\`crawl:\${siteId}\`], 10000, async () => {
    await sites.updateOne({ _id: siteId }, { $max: { lastCrawledAt: new Date() }, $set: { status } });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
    {
      name: 'GREATEST for one column, a plain assignment for another',
      code: `${redlockPg}
export async function advance(streamId: string, offset: number, note: string) {
  const lock = await redlock.acquire([\`stream:\${streamId}\`], 5000);
  try {
    await pool.query('UPDATE stream_cursors SET committed_offset = GREATEST(committed_offset, $1), note = $3 WHERE stream_id = $2', [offset, streamId, note]);
  } finally {
    await lock.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
  ],
});


// A column compared below a value and set to that value can only move forward: with `$n` the
// statement says so by one number, with positional `?` placeholders by the same expression given
// twice in the values array.
ruleTester.run('require-fence-condition: one value given twice to ? placeholders', rule, {
  valid: [
    {
      name: 'a level stored only where the stored level is lower, Postgres quoting and ? placeholders',
      code: `import Redlock from 'redlock';
import { db } from './db';
const redlock = new Redlock([]);
export async function promote(memberId: string, level: number) {
  const lock = await redlock.acquire([\`member:\${memberId}\`], 5000);
  try {
    await db.query('UPDATE "members" SET "trustLevel" = ? WHERE "memberId" = ? AND "trustLevel" < ?', [level, memberId, level]);
  } finally {
    await lock.release();
  }
}`,
    },
    {
      name: 'mysql2, the same member path on both sides',
      code: `import Redlock from 'redlock';
import mysql from 'mysql2/promise';
const pool = mysql.createPool({});
const redlock = new Redlock([]);
export async function advance(job: { id: string; step: number }) {
  const lock = await redlock.acquire([\`job:\${job.id}\`], 5000);
  try {
    await pool.execute('UPDATE jobs SET step = ? WHERE id = ? AND step < ?', [job.step, job.id, job.step]);
  } finally {
    await lock.release();
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the compared value is another variable',
      code: `import Redlock from 'redlock';
import { db } from './db';
const redlock = new Redlock([]);
export async function promote(memberId: string, level: number, cap: number) {
  const lock = await redlock.acquire([\`member:\${memberId}\`], 5000);
  try {
    await db.query('UPDATE "members" SET "trustLevel" = ? WHERE "memberId" = ? AND "trustLevel" < ?', [level, memberId, cap]);
  } finally {
    await lock.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
    {
      name: 'a time column compared with the same clock value is last-write-wins by clock',
      code: `import Redlock from 'redlock';
import { db } from './db';
const redlock = new Redlock([]);
export async function touch(memberId: string, seenAt: Date) {
  const lock = await redlock.acquire([\`member:\${memberId}\`], 5000);
  try {
    await db.query('UPDATE "members" SET "updatedAt" = ? WHERE "memberId" = ? AND "updatedAt" < ?', [seenAt, memberId, seenAt]);
  } finally {
    await lock.release();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
  ],
});

// A counter's step (`$inc`, `{ decrement: n }`, `SET n = n - $1`) changes the stored value relative
// to itself: applied late it is applied once and overwrites nothing a newer holder wrote. Beside
// any absolute assignment the update still overwrites, and the counter that issues tokens is a
// token source, not a write.
const redlockHeader = `import Redlock from 'redlock';
const redlock = new Redlock([]);
`;
ruleTester.run('require-fence-condition: counters stepped in place', rule, {
  valid: [
    {
      name: 'MongoDB $inc of a balance under a redlock lease',
      code: `${redlockHeader}import { MongoClient } from 'mongodb';
const wallets = new MongoClient('mongodb://127.0.0.1').db('shop').collection('wallets');
export async function charge(walletId: string, cost: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await wallets.updateOne({ _id: walletId }, { $inc: { credits: -cost, spent: cost } });
    await wallets.findOneAndUpdate({ _id: walletId }, { $inc: { charges: 1 }, $max: { lastChargeAt: new Date() } });
  });
}`,
    },
    {
      name: 'Mongoose $inc, and a bulkWrite of $inc operations',
      code: `${redlockHeader}import mongoose from 'mongoose';
const Tally = mongoose.model('Tally', new mongoose.Schema({ votes: Number }));
export async function vote(pollId: string, choices: string[]) {
  const lock = await redlock.acquire([\`poll:\${pollId}\`], 5000);
  try {
    await Tally.findByIdAndUpdate(pollId, { $inc: { votes: 1 } });
    await Tally.bulkWrite(choices.map(() => ({ updateOne: { filter: { poll: pollId }, update: { $inc: { votes: 1 } } } })));
    await Tally.bulkWrite([{ updateOne: { filter: { _id: pollId }, update: { $inc: { votes: 1 } }, upsert: true } }]);
  } finally {
    await lock.release();
  }
}`,
    },
    {
      name: 'Prisma increment and decrement, also in an upsert',
      code: `${redlockHeader}import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function spend(userId: string, amount: number) {
  await redlock.using([\`user:\${userId}\`], 5000, async () => {
    await prisma.account.update({ where: { id: userId }, data: { credits: { decrement: amount }, used: { increment: amount } } });
    await prisma.usage.upsert({ where: { userId }, create: { userId, total: amount }, update: { total: { increment: amount } } });
  });
}`,
    },
    {
      name: 'SQL SET n = n - $1, COALESCE of the stored value, and an upsert adding the excluded value',
      code: `${redlockPg}
export async function award(userId: string, points: number) {
  const lock = await redlock.acquire([\`user:\${userId}\`], 5000);
  try {
    await pool.query('UPDATE members SET points = points - $1, redeemed = COALESCE(redeemed, 0) + $1 WHERE user_id = $2', [points, userId]);
    await pool.query('UPDATE members m SET visits = 1 + m.visits WHERE m.user_id = $1', [userId]);
    await pool.query('INSERT INTO page_hits (page, hits) VALUES ($1, $2) ON CONFLICT (page) DO UPDATE SET hits = page_hits.hits + EXCLUDED.hits', [userId, points]);
  } finally {
    await lock.release();
  }
}`,
    },
    {
      name: 'TypeORM query builder and repository values given as SQL that steps the column',
      code: `${redlockHeader}import { DataSource } from 'typeorm';
const dataSource = new DataSource({ type: 'postgres' });
export async function refund(walletId: string, change: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await dataSource.createQueryBuilder().update('wallet').set({ point: () => 'point - :change' }).where('id = :id', { id: walletId }).setParameters({ change }).execute();
    await dataSource.getRepository('wallet').update({ id: walletId }, { refundCount: () => '"refund_count" + 1' });
  });
}`,
    },
    {
      name: 'SQL steps written as templates: the interpolated amount is a value, the column is named in the text',
      code: `${redlockHeader}import { DataSource } from 'typeorm';
import knex from 'knex';
const dataSource = new DataSource({ type: 'postgres' });
const db = knex({ client: 'pg' });
export async function refund(walletId: string, change: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    const runner = dataSource.createQueryRunner();
    await runner.manager.createQueryBuilder().update('wallet').set({ point: () => \`point - \${change}\` }).where('id = :id', { id: walletId }).execute();
    await dataSource.getRepository('wallet').update({ id: walletId }, { point: () => \`"point" + \${change}\` });
    await db('wallet').where({ id: walletId }).update({ point: db.raw(\`point + \${change}\`) });
    await db('wallet').where({ id: walletId }).update({ point: db.raw('?? - ?', ['point', change]) });
  });
}`,
    },
    {
      name: 'Drizzle sql naming the updated table\'s own column, Kysely sql and expression-builder steps',
      code: `${redlockHeader}import { drizzle } from 'drizzle-orm/node-postgres';
import { sql, eq } from 'drizzle-orm';
import { Kysely } from 'kysely';
import { wallets } from './schema';
const orm = drizzle(process.env.DATABASE_URL!);
const qb = new Kysely<any>({} as any);
export async function topUp(walletId: string, amount: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await orm.update(wallets).set({ balance: sql\`\${wallets.balance} + \${amount}\` }).where(eq(wallets.id, walletId));
    await qb.updateTable('wallet').set({ balance: sql\`\${sql.ref('balance')} + \${amount}\`, topUps: sql\`top_ups + 1\` }).where('id', '=', walletId).execute();
    await qb.updateTable('wallet').set({ balance: (eb) => eb('balance', '+', amount) }).where('id', '=', walletId).execute();
    await qb.updateTable('wallet').set((eb) => ({ balance: eb('balance', '-', amount) })).where('id', '=', walletId).execute();
  });
}`,
    },
    {
      name: 'knex increment and decrement, and a raw step of the column',
      code: `${redlockHeader}import knex from 'knex';
const db = knex({ client: 'pg' });
export async function restock(sku: string, qty: number) {
  await redlock.using([\`sku:\${sku}\`], 5000, async () => {
    await db('stock').where({ sku }).increment('on_hand', qty);
    await db('stock').where({ sku }).decrement('reserved', qty);
    await db('stock').where({ sku }).update({ on_hand: db.raw('on_hand + ?', [qty]) });
  });
}`,
    },
    {
      name: 'Sequelize increment and decrement on a record read under the lock',
      code: `${redlockHeader}import { Model, DataTypes, Sequelize } from 'sequelize';
const sequelize = new Sequelize('postgres://localhost/app');
class Wallet extends Model {}
Wallet.init({ points: DataTypes.INTEGER }, { sequelize });
export async function redeem(id: string, points: number) {
  await redlock.using([\`wallet:\${id}\`], 5000, async () => {
    const wallet = await Wallet.findByPk(id);
    await wallet!.decrement('points', { by: points });
    await wallet!.increment({ redemptions: 1 });
    await Wallet.increment('points', { by: 1, where: { id } });
  });
}`,
    },
    {
      name: 'Redis INCRBY, HINCRBY and INCRBYFLOAT of data keys',
      code: `${redlockHeader}import Redis from 'ioredis';
const redis = new Redis();
export async function count(pageId: string, ms: number) {
  await redlock.using([\`page:\${pageId}\`], 5000, async () => {
    await redis.incrby(\`views:\${pageId}\`, 1);
    await redis.hincrby(\`stats:\${pageId}\`, 'views', 1);
    await redis.incrbyfloat(\`time:\${pageId}\`, ms / 1000);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'MongoDB $inc beside a $set: the $set can land late',
      code: `${redlockHeader}import { MongoClient } from 'mongodb';
const wallets = new MongoClient('mongodb://127.0.0.1').db('shop').collection('wallets');
export async function charge(walletId: string, cost: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await wallets.updateOne({ _id: walletId }, { $inc: { credits: -cost }, $set: { state: 'charged' } });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
    {
      name: 'Prisma decrement beside an absolute field',
      code: `${redlockHeader}import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function spend(userId: string, amount: number) {
  await redlock.using([\`user:\${userId}\`], 5000, async () => {
    await prisma.account.update({ where: { id: userId }, data: { credits: { decrement: amount }, tier: 'basic' } });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
    {
      name: 'SQL step beside an absolute status, and a value that is not the column plus an amount',
      code: `${redlockPg}
export async function award(userId: string, points: number) {
  const lock = await redlock.acquire([\`user:\${userId}\`], 5000);
  try {
    await pool.query("UPDATE members SET points = points - $1, status = 'redeemed' WHERE user_id = $2", [points, userId]);
    await pool.query('UPDATE members SET points = $1 - points WHERE user_id = $2', [points, userId]);
    await pool.query('UPDATE members SET points = bonus + $1 WHERE user_id = $2', [points, userId]);
  } finally {
    await lock.release();
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9 },
        { messageId: 'missingFenceNoToken', line: 10 },
        { messageId: 'missingFenceNoToken', line: 11 },
      ],
    },
    {
      name: 'TypeORM and knex steps beside an absolute value',
      code: `${redlockHeader}import { DataSource } from 'typeorm';
import knex from 'knex';
const dataSource = new DataSource({ type: 'postgres' });
const db = knex({ client: 'pg' });
export async function refund(walletId: string, change: number) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await dataSource.createQueryBuilder().update('wallet').set({ point: () => 'point - :change', note: 'refund' }).where('id = :id', { id: walletId }).execute();
    await db('wallet').where({ id: walletId }).update({ point: db.raw('point - ?', [change]), note: 'refund' });
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9 },
        { messageId: 'missingFenceNoToken', line: 10 },
      ],
    },
    {
      name: 'templates and builders that do not step the assigned column, or stand beside an absolute value',
      code: `${redlockHeader}import { DataSource } from 'typeorm';
import knex from 'knex';
import { drizzle } from 'drizzle-orm/node-postgres';
import { sql, eq } from 'drizzle-orm';
import { Kysely } from 'kysely';
import { wallets } from './schema';
const dataSource = new DataSource({ type: 'postgres' });
const db = knex({ client: 'pg' });
const orm = drizzle(process.env.DATABASE_URL!);
const qb = new Kysely<any>({} as any);
export async function refund(walletId: string, change: number, column: string, row: { balance: number }) {
  await redlock.using([\`wallet:\${walletId}\`], 5000, async () => {
    await dataSource.createQueryBuilder().update('wallet').set({ point: () => \`\${change} - point\` }).where('id = :id', { id: walletId }).execute();
    await dataSource.createQueryBuilder().update('wallet').set({ point: () => \`\${column} + 1\` }).where('id = :id', { id: walletId }).execute();
    await db('wallet').where({ id: walletId }).update({ point: db.raw('?? - ?', [column, change]) });
    await orm.update(wallets).set({ balance: sql\`\${row.balance} - \${change}\` }).where(eq(wallets.id, walletId));
    await qb.updateTable('wallet').set((eb) => ({ balance: eb('balance', '-', change), note: 'refund' })).where('id', '=', walletId).execute();
    await qb.updateTable('wallet').set({ balance: (eb) => eb('bonus', '+', change) }).where('id', '=', walletId).execute();
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 15 },
        { messageId: 'missingFenceNoToken', line: 16 },
        { messageId: 'missingFenceNoToken', line: 17 },
        { messageId: 'missingFenceNoToken', line: 18 },
        { messageId: 'missingFenceNoToken', line: 19 },
        { messageId: 'missingFenceNoToken', line: 20 },
      ],
    },
    {
      name: 'the token issued by an in-place increment is still a token: the later write is reported with it in scope',
      code: `${redlockPg}
export async function publish(docId: string, body: string) {
  const lock = await redlock.acquire([\`doc:\${docId}\`], 5000);
  try {
    const { rows } = await pool.query('UPDATE doc_fences SET seq = seq + 1 WHERE doc_id = $1 RETURNING seq', [docId]);
    const seq = rows[0].seq;
    await pool.query('UPDATE docs SET body = $1 WHERE id = $2', [body, docId]);
    return seq;
  } finally {
    await lock.release();
  }
}`,
      errors: [
        {
          messageId: 'missingFence',
          line: 11,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${redlockPg}
export async function publish(docId: string, body: string) {
  const lock = await redlock.acquire([\`doc:\${docId}\`], 5000);
  try {
    const { rows } = await pool.query('UPDATE doc_fences SET seq = seq + 1 WHERE doc_id = $1 RETURNING seq', [docId]);
    const seq = rows[0].seq;
    await pool.query('UPDATE docs SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, docId, seq]);
    return seq;
  } finally {
    await lock.release();
  }
}`,
            },
          ],
        },
      ],
    },
  ],
});

// Redis commands beyond plain overwrites: a trim by the count this holder read, members removed,
// promisified callback clients (`<command>Async`) and commands queued on a MULTI.
ruleTester.run('require-fence-condition: Redis state changes', rule, {
  valid: [
    {
      name: 'appends, counters and a whole-key cache delete under the lock are not reported',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function record(feed: string, item: string) {
  await redlock.using([\`feed:\${feed}\`], 5000, async () => {
    await redis.rpush(\`feed:\${feed}\`, item);
    await redis.incr(\`feed:\${feed}:count\`);
    await redis.del(\`feed:\${feed}:rendered\`);
  });
}`,
    },
    {
      name: 'a GET through a promisified client is a read',
      code: `import Redlock from 'redlock';
import { createClient, RedisClient } from 'redis';
class Seats {
  private client: RedisClient = createClient();
  private locks = new Redlock([this.client]);
  async peek(hall: string) {
    const lock = await this.locks.lock(\`hall:\${hall}\`, 2000);
    try {
      return await this.client.getAsync(\`hall:\${hall}:free\`);
    } finally {
      await lock.unlock();
    }
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'LTRIM by the number of entries this holder drained: a late trim drops entries it never read',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redis = new Redis();
const redlock = new Redlock([redis]);
export async function drain(queue: string, sink: (xs: string[]) => Promise<void>) {
  await redlock.using([\`drain:\${queue}\`], 5000, async () => {
    const batch = await redis.lrange(queue, 0, 99);
    await sink(batch);
    await redis.ltrim(queue, batch.length, -1);
    await redis.srem('queues:busy', queue);
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9 },
        { messageId: 'missingFenceNoToken', line: 10 },
      ],
    },
    {
      name: "redlock's older lock()/unlock() with a promisified node-redis client and a MULTI",
      code: `import Redlock from 'redlock';
import { RedisClient } from 'redis';
export class Seats {
  private locks: Redlock;
  constructor(private client: RedisClient) {
    this.locks = new Redlock([client]);
  }
  async take(hall: string, seat: string, guest: string) {
    const lock = await this.locks.lock(\`hall:\${hall}\`, 2000);
    try {
      const taken = await this.client.hgetallAsync(\`hall:\${hall}\`);
      if (taken?.[seat]) return false;
      await this.client.hsetAsync(\`hall:\${hall}\`, seat, guest);
      await this.client.multi().sadd(\`guest:\${guest}\`, seat).hmset(\`seat:\${seat}\`, { guest }).execAsync();
      return true;
    } finally {
      await lock.unlock();
    }
  }
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 13 },
        { messageId: 'missingFenceNoToken', line: 14 },
      ],
    },
  ],
});

// Locks applied where a module defines its API, and writes whose filter and update sit in variables.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'a wrapper applied at export time around a monotone $max update kept in a const',
      code: `import Redlock from 'redlock';
import { Shelf } from './models/shelf';
const redlock = new Redlock([]);
function underShelfLock(work: (shelfId: string, ...more: any[]) => Promise<unknown>) {
  async function locked(shelfId: string, ...more: any[]) {
    return redlock.using([\`shelf:\${shelfId}\`], 4000, () => work(shelfId, ...more));
  }
  return locked;
}
async function touch(shelfId: string) {
  const change = { $max: { lastCountedAt: new Date() } };
  await Shelf.updateOne({ _id: shelfId }, change);
}
export default { touch: underShelfLock(touch) };`,
    },
    {
      name: 'a function returned by name that takes no lock makes no section of what it wraps',
      code: `import { Shelf } from './models/shelf';
function timed(work: (id: string) => Promise<unknown>) {
  async function measured(id: string) {
    const started = Date.now();
    try { return await work(id); } finally { console.log(Date.now() - started); }
  }
  return measured;
}
async function restock(id: string) {
  const filter = { _id: id };
  await Shelf.findOneAndUpdate(filter, { $inc: { count: 10 } });
}
export default { restock: timed(restock) };`,
    },
  ],
  invalid: [
    {
      name: 'a wrapper applied at export time: the wrapped functions run under the lock, their Mongoose writes unfenced',
      code: `import Redlock from 'redlock';
import { Shelf } from './models/shelf';
const redlock = new Redlock([]);
function underShelfLock(work: (shelfId: string, ...more: any[]) => Promise<unknown>) {
  async function locked(shelfId: string, ...more: any[]) {
    return redlock.using([\`shelf:\${shelfId}\`], 4000, () => work(shelfId, ...more));
  }
  return locked;
}
async function moveItem(shelfId: string, slot: string, item: string) {
  const shelf = await Shelf.findById(shelfId);
  const where = { _id: shelf._id };
  const change = { $set: { [\`slots.\${slot}\`]: item }, $inc: { revision: 1 } };
  return Shelf.findOneAndUpdate(where, change, { new: true }).exec();
}
async function clearSlot(shelfId: string, slot: string) {
  await Shelf.updateOne({ _id: shelfId }, { $unset: { [\`slots.\${slot}\`]: 1 } });
}
export default {
  moveItem: underShelfLock(moveItem),
  promises: { clearSlot: underShelfLock(clearSlot) },
};`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 14 },
        { messageId: 'missingFenceNoToken', line: 17 },
      ],
    },
  ],
});

// Several commands queued in one MULTI or pipeline are one write to the store.
ruleTester.run('require-fence-condition', rule, {
  valid: [],
  invalid: [
    {
      name: 'a node-redis MULTI that removes, adds and sets under a SET NX lock: one finding for the chain',
      code: `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
const client = createClient();
export async function move(userId: string, from: string, to: string) {
  const me = randomUUID();
  if ((await client.set(\`lock:\${userId}\`, me, { NX: true, EX: 5 })) !== 'OK') return;
  await client
    .multi()
    .sRem(\`room:\${from}\`, userId)
    .hSet(\`user:\${userId}\`, { room: to })
    .exec();
  await client.pipeline().del(\`a:\${userId}\`).hset(\`b:\${userId}\`, 'x', '1').lrem(\`c:\${userId}\`, 0, 'y').exec();
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7 },
        { messageId: 'missingFenceNoToken', line: 12 },
      ],
    },
  ],
});

// Requests and commands whose condition sits in a const, a spread or on the line after the send.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'axios: the fence header in a const the config names by shorthand',
      code: `import axios from 'axios';
import Redlock from 'redlock';
import Redis from 'ioredis';
const redis = new Redis();
const redlock = new Redlock([redis]);
const search = axios.create({ baseURL: 'http://search' });
export async function drop(id: string) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    const fence = await redis.incr(\`fence:\${id}\`);
    const headers = { 'X-Fence-Token': String(fence) };
    const config = { headers, timeout: 2000 };
    await search.delete(\`/docs/\${id}\`, { headers });
    await search.put(\`/docs/\${id}\`, { gone: true }, config);
  });
}`,
    },
    {
      name: 'axios: a config handed in by the caller cannot be read, so it is not judged',
      code: `import axios from 'axios';
import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function drop(id: string, config: Record<string, unknown>) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    await axios.put(\`/docs/\${id}\`, { gone: true }, config);
  });
}`,
    },
    {
      name: 'S3: a precondition in every branch of an inline spread is a conditional put',
      code: `import { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const s3 = new S3Client({});
const redis = new Redis();
export async function render(key: string, body: Buffer, etag?: string) {
  if ((await redis.set(\`lock:\${key}\`, randomUUID(), 'PX', 5000, 'NX')) !== 'OK') return;
  await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: body, ...(etag ? { IfMatch: etag } : { IfNoneMatch: '*' }) }));
}`,
    },
  ],
  invalid: [
    {
      name: 'S3: a spread that leaves one branch unconditional is no fence; the finding starts at the send',
      code: `import { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const s3 = new S3Client({});
const redis = new Redis();
export async function render(key: string, body: Buffer, etag?: string) {
  if ((await redis.set(\`lock:\${key}\`, randomUUID(), 'PX', 5000, 'NX')) !== 'OK') return;
  await s3.send(
    new PutObjectCommand({ Bucket: 'b', Key: key, Body: body, ...(etag ? { IfMatch: etag } : {}) }),
  );
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8, endLine: 9 }],
    },
    {
      name: 'axios: headers in a const without a token are no fence',
      code: `import axios from 'axios';
import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function drop(id: string) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    const headers = { 'content-type': 'application/json' };
    await axios.put(\`/docs/\${id}\`, { gone: true }, { headers });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
  ],
});

// A write that bumps a quantity is a write, whatever else it assigns; only bumping the token issues one.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'the counter that issues the token, bumped in place under the lock, is no protected write',
      code: `${redlockPg}
export async function take(key: string) {
  const lock = await redlock.acquire([key], 5000);
  await pool.query('UPDATE resource_state SET fence_token = fence_token + 1, taken_at = now() WHERE resource_key = $1', [key]);
  await lock.release();
}`,
    },
  ],
  invalid: [
    {
      name: 'a quantity bumped in place that stores the token without comparing it',
      code: `${redlockPg}
export async function restock(sku: string, qty: number, fenceToken: number) {
  const lock = await redlock.acquire([sku], 5000);
  await pool.query('UPDATE stock SET on_hand = on_hand + $2, fence_token = $3 WHERE sku = $1', [sku, qty, fenceToken]);
  await lock.release();
}`,
      errors: [
        {
          messageId: 'missingFence',
          line: 8,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${redlockPg}
export async function restock(sku: string, qty: number, fenceToken: number) {
  const lock = await redlock.acquire([sku], 5000);
  await pool.query('UPDATE stock SET on_hand = on_hand + $2, fence_token = $3 WHERE sku = $1 AND fence_token < $3', [sku, qty, fenceToken]);
  await lock.release();
}`,
            },
          ],
        },
      ],
    },
  ],
});

// A callback acquire promisified by hand hands its caller the handle, held until its release.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'a write after the promisified handle is released is outside the lock',
      code: `import DynamoDBLockClient from 'dynamodb-lock-client';
import { Pool } from 'pg';
const pool = new Pool();
const locks = new DynamoDBLockClient.FailOpen({ lockTable: 'locks' });
function acquireLock(id: string): Promise<any> {
  return new Promise((resolve, reject) => {
    locks.acquireLock(id, (err: unknown, lock: unknown) => (err ? reject(err) : resolve(lock)));
  });
}
export async function settle(id: string) {
  const lock = await acquireLock(id);
  lock.release(() => undefined);
  await pool.query('UPDATE accounts SET settled = true WHERE id = $1', [id]);
}`,
    },
  ],
  invalid: [
    {
      name: "dynamodb-lock-client's callback acquire wrapped in a promise resolved with the lock",
      code: `import DynamoDBLockClient from 'dynamodb-lock-client';
import { Pool } from 'pg';
const pool = new Pool();
const locks = new DynamoDBLockClient.FailOpen({ lockTable: 'locks' });
function acquireLock(id: string): Promise<any> {
  return new Promise((resolve, reject) => {
    locks.acquireLock(id, (err: unknown, lock: unknown) => (err ? reject(err) : resolve(lock)));
  });
}
export async function settle(id: string) {
  const lock = await acquireLock(id);
  try {
    await pool.query('UPDATE accounts SET settled = true WHERE id = $1', [id]);
  } finally {
    lock.release(() => undefined);
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 13 }],
    },
  ],
});

// Lease rows taken through knex or a document API, and writes to the lock table itself.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'knex and MongoDB writes to the lock table under the lock renew or end it: not protected writes',
      code: `import knex from 'knex';
import Redlock from 'redlock';
import { MongoClient } from 'mongodb';
const db = knex({ client: 'pg' });
const redlock = new Redlock([]);
const locks = new MongoClient('').db('app').collection('locks');
export async function renew(name: string, me: string) {
  const lock = await redlock.acquire([name], 5000);
  await db('job_locks').where({ name, owner: me }).update({ expires_at: db.fn.now() });
  await locks.updateOne({ _id: name as never, owner: me }, { $set: { expiresAt: new Date() } });
  await lock.release();
}`,
    },
    {
      name: 'a knex update that frees a lease row (owner: null) takes no lock',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function free(domain: string) {
  await db('crawl_leases').where({ domain }).update({ owner: null });
  await db('domains').where({ domain }).update({ crawling: false });
}`,
    },
  ],
  invalid: [
    {
      name: 'a knex lease row taken by a same-file function: the writes of its caller are under the lease',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
async function claim(domain: string, me: string) {
  const [lease] = await db('crawl_leases')
    .where({ domain })
    .andWhere('expires_at', '<', db.fn.now())
    .update({ owner: me, expires_at: db.raw("now() + interval '1 minute'") })
    .returning(['domain', 'owner']);
  return lease ?? null;
}
export async function crawl(domain: string, me: string, pages: number) {
  const lease = await claim(domain, me);
  if (!lease) return;
  await db('domains').where({ domain }).update({ pages });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 14 }],
    },
    {
      name: 'an etcd3 election: the elected listener and the code after wait() run as the leader, up to resign()',
      code: `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const etcd = new Etcd3();
const pool = new Pool();
export function lead(shard: string, me: string) {
  const campaign = etcd.election('compactor/' + shard, 10).campaign(me);
  campaign.on('error', async (err) => {
    await pool.query('UPDATE shards SET last_error = $2 WHERE id = $1', [shard, String(err)]);
  });
  campaign.on('elected', async () => {
    await pool.query('UPDATE shards SET leader = $2 WHERE id = $1', [shard, me]);
  });
}
export async function compactOnce(shard: string, me: string) {
  const election = etcd.election('compactor/' + shard);
  const campaign = election.campaign(me);
  await campaign.wait();
  await pool.query('UPDATE shards SET compacted_at = now() WHERE id = $1', [shard]);
  await campaign.resign();
  await pool.query('UPDATE shards SET idle = true WHERE id = $1', [shard]);
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 11 },
        { messageId: 'missingFenceNoToken', line: 18 },
      ],
    },
    {
      name: 'a lease row claimed through a postgres.js tagged template opens a section for the caller, up to the tagged DELETE',
      code: `import postgres from 'postgres';
const sql = postgres();
async function claimPrinter(printerId: string, me: string) {
  const won = await sql\`
    INSERT INTO printer_leases (printer_id, owner, expires_at) VALUES (\${printerId}, \${me}, now() + interval '30 seconds')
    ON CONFLICT (printer_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
    WHERE printer_leases.expires_at < now()
    RETURNING owner\`;
  return won.length > 0;
}
export async function printBatch(printerId: string, me: string, jobs: number) {
  if (!(await claimPrinter(printerId, me))) return;
  await sql\`UPDATE printers SET queued = \${jobs} WHERE id = \${printerId}\`;
}
export async function drain(printerId: string, me: string) {
  await sql\`UPDATE printer_leases SET owner = \${me}, expires_at = now() + interval '30 seconds' WHERE printer_id = \${printerId} AND expires_at < now()\`;
  await sql\`UPDATE printers SET queued = 0 WHERE id = \${printerId}\`;
  await sql\`DELETE FROM printer_leases WHERE printer_id = \${printerId} AND owner = \${me}\`;
  await sql\`UPDATE printers SET drained_at = now() WHERE id = \${printerId}\`;
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 13 },
        { messageId: 'missingFenceNoToken', line: 17 },
      ],
    },
    {
      name: 'a MongoDB lock document upserted with its owner takes the lock for the caller of the helper',
      code: `import { MongoClient } from 'mongodb';
const client = new MongoClient('');
const locks = client.db('app').collection('locks');
const invoices = client.db('app').collection('invoices');
async function takeLock(name: string, owner: string) {
  await locks.updateOne({ _id: name as never, expiresAt: { $lt: new Date() } }, { $set: { owner, expiresAt: new Date(Date.now() + 60_000) } }, { upsert: true });
  return true;
}
export async function finalize(id: string, owner: string) {
  if (!(await takeLock(\`invoice:\${id}\`, owner))) return;
  await invoices.updateOne({ _id: id as never }, { $set: { status: 'final' } });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 11 }],
    },
  ],
});

// MongoDB bulkWrite: each operation written out is judged like the call of its name.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'every operation of a bulkWrite compares and stores the token',
      code: `import mongoose from 'mongoose';
import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
const Store = mongoose.model('Store', new mongoose.Schema({}));
export async function importRegion(region: string, rows: Array<{ id: string; name: string }>) {
  const mutex = new Mutex(redis, \`stores:\${region}\`);
  await mutex.acquire();
  const fenceToken = await redis.incr(\`stores:\${region}:fence\`);
  const res = await Store.bulkWrite(
    rows.map((r) => ({ updateOne: { filter: { _id: r.id, fenceToken: { $lt: fenceToken } }, update: { $set: { name: r.name, fenceToken } } } })),
  );
  if (res.matchedCount < rows.length) throw new Error('stale');
  await mutex.release();
}`,
    },
    {
      name: 'operations built elsewhere cannot be judged; inserts overwrite nothing',
      code: `import mongoose from 'mongoose';
import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
const Store = mongoose.model('Store', new mongoose.Schema({}));
export async function importRegion(region: string, ops: any[], rows: Array<{ id: string }>) {
  const mutex = new Mutex(redis, \`stores:\${region}\`);
  await mutex.acquire();
  await Store.bulkWrite(ops);
  await Store.bulkWrite(rows.map((r) => ({ insertOne: { document: { _id: r.id, region } } })));
  await mutex.release();
}`,
    },
  ],
  invalid: [
    {
      name: 'a bulkWrite of upserts built by map under a redis-semaphore mutex',
      code: `import mongoose from 'mongoose';
import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
const Store = mongoose.model('Store', new mongoose.Schema({}));
export async function importRegion(region: string, rows: Array<{ id: string; name: string }>) {
  const mutex = new Mutex(redis, \`stores:\${region}\`);
  await mutex.acquire();
  await Store.bulkWrite(rows.map((r) => ({ updateOne: { filter: { _id: r.id }, update: { $set: { name: r.name } }, upsert: true } })));
  await Store.bulkWrite([{ deleteMany: { filter: { region, closed: true } } }]);
  await mutex.release();
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 9 },
        { messageId: 'missingFenceNoToken', line: 10 },
      ],
    },
  ],
});

// Sorted sets, and fence headers spread into a request's headers.
ruleTester.run('require-fence-condition', rule, {
  valid: [
    {
      name: 'ZADD with GT or LT only moves a score one way, like $max; with NX it only adds',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function record(board: string, player: string, points: number) {
  if ((await redis.set(\`lock:\${board}\`, randomUUID(), 'PX', 5000, 'NX')) !== 'OK') return;
  await redis.zadd(\`lb:\${board}\`, 'GT', points, player);
  await redis.zadd(\`lb:\${board}:first\`, 'NX', points, player);
}`,
    },
    {
      name: 'fetch: the fence header spread in from a const object, beside other headers',
      code: `import { Etcd3 } from 'etcd3';
const etcd = new Etcd3();
export async function swap(shard: number, target: string) {
  await etcd.lock(\`alias/\${shard}\`).do(async () => {
    const put = await etcd.put(\`alias/\${shard}/epoch\`).value(target).exec();
    const fence = { 'x-fence-token': String(put.header.revision) };
    await fetch(\`http://search/_alias/\${shard}\`, { method: 'PUT', headers: { 'content-type': 'application/json', ...fence }, body: target });
  });
}`,
    },
    {
      name: 'fetch: headers spread from a helper cannot be read, so the request is not judged',
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
declare function signedHeaders(): Record<string, string>;
export async function drop(id: string) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    await fetch(\`http://search/docs/\${id}\`, { method: 'DELETE', headers: { ...signedHeaders(), accept: 'application/json' } });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'ZADD overwrites a member score: queued on a MULTI under a SET NX lock, and sent plainly',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function close(season: string, scores: { id: string; points: number }[]) {
  if ((await redis.set(\`lock:\${season}\`, randomUUID(), 'PX', 5000, 'NX')) !== 'OK') return;
  const tx = redis.multi();
  for (const s of scores) tx.zadd(\`lb:\${season}\`, s.points, s.id);
  await tx.exec();
  await redis.zadd(\`lb:\${season}:latest\`, 1, 'closed');
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 7 },
        { messageId: 'missingFenceNoToken', line: 9 },
      ],
    },
    {
      name: 'fetch: a const spread into the headers that carries no fence header is read, and the request is unfenced',
      code: `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function drop(id: string) {
  await redlock.using([\`doc:\${id}\`], 5000, async () => {
    const json = { 'content-type': 'application/json' };
    await fetch(\`http://search/docs/\${id}\`, { method: 'PUT', headers: { ...json }, body: '{}' });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 6 }],
    },
  ],
});

// Scripts registered with ioredis `defineCommand` and called by name under a lock.
const scriptedQueue = (lua: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
const redis = new Redis();
const redlock = new Redlock([redis]);
redis.defineCommand('requeue', {
  numberOfKeys: 2,
  lua: \`${lua}\`,
});
export async function retry(jobId: string, payload: string) {
  await redlock.using(['job:' + jobId], 5000, async () => {
    await (redis as any).requeue('job:' + jobId, 'queue:ready', payload, jobId);
  });
}`;

ruleTester.run('require-fence-condition: scripts defined with defineCommand', rule, {
  valid: [
    {
      name: 'a script that only adds what is absent (enqueue once) overwrites nothing',
      code: scriptedQueue(`
local added = redis.call('HSETNX', KEYS[1], 'payload', ARGV[1])
if added == 1 then
  redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[2])
end`),
    },
    {
      name: "a script that compares the caller's claim with the stored one is compare-and-set",
      code: scriptedQueue(`
if redis.call('HGET', KEYS[1], 'owner') == ARGV[2] then
  redis.call('HSET', KEYS[1], 'payload', ARGV[1])
  redis.call('SREM', KEYS[2], ARGV[2])
end`),
    },
  ],
  invalid: [
    {
      name: 'a script that rewrites the job and moves it between sets, comparing nothing',
      code: scriptedQueue(`
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
local waiting = redis.call('ZRANGE', KEYS[2], 0, 0)
if #waiting == 0 then
  redis.call('DEL', KEYS[2])
end`),
      errors: [{ messageId: 'missingFenceNoToken', line: 17 }],
    },
  ],
});

// A call reaches a method of a class of this file only through a receiver that may be that class
// (`this`, the class's name for a static, a value typed or built as it); a library client that
// merely shares the method's name does not inherit the method's writes.
const walletStore = `import Redlock from 'redlock';
import { eq, sql } from 'drizzle-orm';
import { wallets } from './schema';
import { ledger } from './ledger-client';
const redlock = new Redlock([]);
class WalletStore {
  static async update({ db, id, balance }: { db: any; id: string; balance: number }) {
    await db.update(wallets).set({ balance }).where(eq(wallets.id, id));
  }
  static async debit({ ctx, id, amount }: { ctx: any; id: string; amount: number }) {
    const { db } = ctx;
    await db.update(wallets).set({ balance: sql\`\${wallets.balance} - \${amount}\` }).where(eq(wallets.id, id));
  }
  async record(entry: string) {
    await ledger.record(entry);
  }
}
export async function charge(ctx: any, id: string, amount: number) {
  const lock = await redlock.acquire(['wallet:' + id], 5000);
  try {
    await WalletStore.debit({ ctx, id, amount });
    await ledger.update(id);
  } finally { await lock.release(); }
}
`;

ruleTester.run('require-fence-condition: calls resolved to methods of this file', rule, {
  valid: [
    {
      name: "a client's `update` inside a class with its own static `update`, and an imported client's `update`, are the library's calls",
      code: walletStore,
    },
  ],
  invalid: [
    {
      name: 'the static method called through its class still writes',
      code: `${walletStore}export async function reset(db: any, id: string) {
  const lock = await redlock.acquire(['wallet:' + id], 5000);
  try { await WalletStore.update({ db, id, balance: 0 }); } finally { await lock.release(); }
}
`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8 }],
    },
    {
      name: 'a method called on `this` kept under another name, or on a value built as the class, still writes',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
class Shelf {
  async restock(sku: string, count: number) {
    await pool.query('UPDATE shelves SET count = $1 WHERE sku = $2', [count, sku]);
  }
  async refill(sku: string) {
    const lock = await redlock.acquire(['shelf:' + sku], 5000);
    const self = this;
    try { await self.restock(sku, 10); } finally { await lock.release(); }
  }
}
export async function clear(sku: string) {
  const shelf: Shelf = new Shelf();
  const lock = await redlock.acquire(['shelf:' + sku], 5000);
  try { await shelf.restock(sku, 0); } finally { await lock.release(); }
}
`,
      errors: [
        { messageId: 'callWritesUnfenced', line: 12 },
        { messageId: 'callWritesUnfenced', line: 18 },
      ],
    },
  ],
});

// One call under a lock that leads to several unfenced writes makes each of them late: one
// finding at that call, naming the first write and listing the others.
ruleTester.run('require-fence-condition: one finding per call, listing its writes', rule, {
  valid: [],
  invalid: [
    {
      name: 'a shared helper with two writes is reported once at each locked call, naming both',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
class Dispatcher {
  async assign(job: string, worker: string) {
    await pool.query('UPDATE jobs SET worker = $1 WHERE id = $2', [worker, job]);
    await pool.query('UPDATE workers SET job = $1 WHERE id = $2', [job, worker]);
  }
  async claim(job: string, worker: string) {
    const lock = await redlock.acquire(['job:' + job], 5000);
    try { await this.assign(job, worker); } finally { await lock.release(); }
  }
  async reassign(job: string, worker: string) {
    const lock = await redlock.acquire(['job:' + job], 5000);
    try {
      await this.assign(job, worker);
      await this.assign(job, 'standby');
    } finally { await lock.release(); }
  }
}
`,
      errors: [
        { messageId: 'callWritesSeveralUnfenced', line: 12, data: { write: '`UPDATE jobs`', where: '<text>:7', others: '1 more (:8)', acquire: '`redlock.acquire` (line 11)' } },
        { messageId: 'callWritesSeveralUnfenced', line: 17 },
        { messageId: 'callWritesSeveralUnfenced', line: 18 },
      ],
    },
    {
      name: 'a helper with five unfenced writes: the first named, the other four counted, three of their lines listed',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
async function closeMonth(month: string) {
  await pool.query('UPDATE ledgers SET closed = true WHERE month = $1', [month]);
  await pool.query('UPDATE balances SET frozen = true WHERE month = $1', [month]);
  await pool.query('UPDATE invoices SET final = true WHERE month = $1', [month]);
  await pool.query('UPDATE payouts SET due = true WHERE month = $1', [month]);
  await pool.query('UPDATE reports SET stale = true WHERE month = $1', [month]);
}
export async function close(month: string) {
  const lock = await redlock.acquire(['close:' + month], 5000);
  try { await closeMonth(month); } finally { await lock.release(); }
}
export async function reopen(month: string) {
  const lock = await redlock.acquire(['close:' + month], 5000);
  try { await closeMonth(month); } finally { await lock.release(); }
}
`,
      errors: [
        { messageId: 'callWritesSeveralUnfenced', line: 14, data: { write: '`UPDATE ledgers`', where: '<text>:6', others: '4 more (:7, :8, :9, ...)', acquire: '`redlock.acquire` (line 13)' } },
        { messageId: 'callWritesSeveralUnfenced', line: 18 },
      ],
    },
  ],
});

// The path that holds a lock can leave its function before the function ends.
ruleTester.run('require-fence-condition: paths that leave the section', rule, {
  valid: [
    {
      name: 'a claim helper whose success branch returns: what follows the branch runs only when the claim was not taken',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
class Coalescer {
  private async take(key: string, id: string) {
    const ok = await redis.set('batch:' + key, 'pending:' + id, 'PX', 5000, 'NX');
    if (ok === 'OK') return { claimed: true };
    return { claimed: false, owner: await redis.get('batch:' + key) };
  }
  async join(key: string, id: string, note: string) {
    const claim = await this.take(key, id);
    if (claim.claimed) {
      return { status: 'new', id };
    }
    await pool.query('UPDATE batches SET note = $1 WHERE batch_key = $2', [note, claim.owner]);
    return { status: 'joined' };
  }
}`,
    },
    {
      name: 'an acquire returned to the caller: the code after its return statement never runs on that path',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
class Slots {
  private async grab(key: string) {
    const ok = await redis.set('slot:' + key, 'x-' + Math.random(), 'PX', 5000, 'NX');
    return ok === 'OK' ? { held: true } : null;
  }
  async wait(key: string, note: string) {
    for (let i = 0; i < 3; i++) {
      const seen = await redis.get('slot:' + key);
      if (!seen) {
        return await this.grab(key);
      }
      await pool.query('UPDATE slots SET note = $1 WHERE slot_key = $2', [note, seen]);
    }
    return null;
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the branch that took the claim is still the section, and so is the path after a test of the failure',
      code: `import Redis from 'ioredis';
import { Pool } from 'pg';
const redis = new Redis();
const pool = new Pool();
export async function run(key: string, note: string) {
  const claim = await redis.set('job:' + key, 'w-' + Math.random(), 'PX', 5000, 'NX');
  if (claim) {
    await pool.query('UPDATE jobs SET note = $1 WHERE key = $2', [note, key]);
    return;
  }
  await pool.query('UPDATE jobs SET seen = now() WHERE key = $1', [key]);
}
export async function step(key: string, note: string) {
  const claim = await redis.set('job:' + key, 'w-' + Math.random(), 'PX', 5000, 'NX');
  if (!claim) return;
  await pool.query('UPDATE jobs SET note = $1 WHERE key = $2', [note, key]);
}`,
      errors: [
        { line: 8, messageId: 'missingFenceNoToken' },
        { line: 16, messageId: 'missingFenceNoToken' },
      ],
    },
  ],
});

// A write that checks the row has not moved past a value the holder read, and moves it on itself.
ruleTester.run('require-fence-condition: optimistic checks on a column the write moves on', rule, {
  valid: [
    {
      name: 'SQL: the stamp read earlier compared with <= (or under NOT EXISTS with >), and the write stamps the row again',
      code: `${redlockPg}
export async function rotate(group: string, secret: string) {
  const lock = await redlock.acquire(['rotate:' + group], 5000);
  try {
    const { rows } = await pool.query('SELECT max(rotated_at) AS seen FROM devices WHERE group_id = $1', [group]);
    const seen = rows[0].seen;
    const a = await pool.query('UPDATE devices SET secret = $1, rotated_at = now() WHERE group_id = $2 AND rotated_at <= $3', [secret, group, seen]);
    const b = await pool.query(
      'UPDATE devices SET secret = $1, rotated_at = $4 WHERE group_id = $2 AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.group_id = $2 AND d.rotated_at > $3)',
      [secret, group, seen, new Date()],
    );
    return a.rowCount + b.rowCount;
  } finally {
    await lock.release();
  }
}`,
    },
    {
      name: 'Drizzle: a sql condition against the stamp passed in (also behind a ternary on it), with a fresh stamp in set()',
      code: `import Redlock from 'redlock';
import { and, eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { devices } from './schema';
const redlock = new Redlock([]);
const db = drizzle(process.env.DB!);
async function spread(group: string, secret: string, seen?: Date) {
  return db
    .update(devices)
    .set({ secret, rotatedAt: new Date() })
    .where(and(eq(devices.groupId, group), seen ? sql\`NOT EXISTS (SELECT 1 FROM \${devices} d WHERE d.group_id = \${group} AND d.rotated_at > \${seen.toISOString()})\` : undefined));
}
export async function rotate(group: string, secret: string, seen: Date) {
  await redlock.using(['rotate:' + group], 5000, async () => {
    await spread(group, secret, seen);
    await db.update(devices).set({ secret, rotatedAt: new Date() }).where(and(eq(devices.groupId, group), sql\`\${devices.rotatedAt} <= \${seen}\`));
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'last write wins by clock, a compare with no stamp stored, a compare with the clock, and a compare on another table are no checks',
      code: `${redlockPg}
export async function rotate(group: string, secret: string, seen: Date) {
  const lock = await redlock.acquire(['rotate:' + group], 5000);
  try {
    await pool.query('UPDATE devices SET secret = $1, rotated_at = $3 WHERE group_id = $2 AND rotated_at < $3', [secret, group, seen]);
    await pool.query('UPDATE devices SET secret = $1 WHERE group_id = $2 AND rotated_at <= $3', [secret, group, seen]);
    await pool.query('UPDATE devices SET secret = $1, rotated_at = now() WHERE group_id = $2 AND rotated_at <= $3', [secret, group, new Date()]);
    await pool.query(
      'UPDATE devices SET secret = $1, rotated_at = now() WHERE group_id = $2 AND NOT EXISTS (SELECT 1 FROM audits a WHERE a.rotated_at > $3)',
      [secret, group, seen],
    );
  } finally {
    await lock.release();
  }
}`,
      errors: [
        { line: 9, messageId: 'missingFenceNoToken' },
        { line: 10, messageId: 'missingFenceNoToken' },
        { line: 11, messageId: 'missingFenceNoToken' },
        { line: 12, messageId: 'missingFenceNoToken' },
      ],
    },
  ],
});

// A claim's own key, written by a helper its callers fill with the value naming the claim.
ruleTester.run('require-fence-condition: the claim key written through a helper', rule, {
  valid: [],
  invalid: [
    {
      name: 'a helper that marks the claim done (also called from a hook handed on in a context object) keeps the claim; a key built from it and another key stay reported',
      code: `import Redis from 'ioredis';
const redis = new Redis();
const BUSY = 'busy';
const DONE = 'done';

export async function takeDelivery({ deliveryKey }: { deliveryKey: string }) {
  const reply = await redis.set(deliveryKey, BUSY, 'PX', 60000, 'NX');
  if (reply !== null) return 'taken';
  return (await redis.get(deliveryKey)) === DONE ? 'seen' : 'busy';
}
export async function finishDelivery({ deliveryKey }: { deliveryKey: string }) {
  await redis.set(deliveryKey, DONE, 'PX', 86400000);
}
export async function noteDelivery({ deliveryKey }: { deliveryKey: string }) {
  await redis.set('note:' + deliveryKey, DONE);
}
export async function guard(ctx: any, id: string, next: () => Promise<void>) {
  const deliveryKey = 'delivery:' + id;
  const taken = await takeDelivery({ deliveryKey });
  if (taken !== 'taken') return;
  ctx.hooks = {
    done: () => finishDelivery({ deliveryKey }),
  };
  await noteDelivery({ deliveryKey });
  await redis.set(deliveryKey + ':seen', id);
  await next();
}
`,
      errors: [
        { line: 15, messageId: 'missingFenceNoToken' },
        { line: 25, messageId: 'missingFenceNoToken' },
      ],
    },
  ],
});

// Records the same transaction has just read again and checked, then removed or set to a fixed state.
ruleTester.run('require-fence-condition: writes re-checked in their transaction', rule, {
  valid: [],
  invalid: [
    {
      name: 'a constant update after a re-read that leaves, and a delete after a read that throws, are not reported; computed values, writes outside the transaction are',
      code: `import Redlock from 'redlock';
import { PrismaClient } from '@prisma/client';
import { MongoClient } from 'mongodb';
const redlock = new Redlock([]);
const prisma = new PrismaClient();
const mongo = new MongoClient('mongodb://x');

export async function closeOffers(now: Date) {
  const lock = await redlock.acquire(['offers-job'], 30000);
  try {
    const due = await prisma.offer.findMany({ where: { open: true, endsAt: { lte: now } } });
    await prisma.$transaction(async (tx) => {
      for (const offer of due) {
        const still = await tx.offer.findFirst({ where: { offerId: offer.offerId, open: true, endsAt: { lte: now } } });
        if (!still) continue;
        await tx.offer.update({ where: { offerId: offer.offerId }, data: { open: false } });
        await tx.offer.update({ where: { offerId: offer.offerId }, data: { open: false, total: offer.total + 1 } });
      }
    });
    for (const offer of due) await prisma.offer.update({ where: { offerId: offer.offerId }, data: { open: false } });
  } finally {
    await lock.release();
  }
}

export async function fold(ids: string[], expected: number, merged: object[]) {
  const lock = await redlock.acquire(['fold'], 30000);
  const pages = mongo.db('d').collection('pages');
  const session = mongo.startSession();
  try {
    await session.withTransaction(async () => {
      const seen = await pages.aggregate([{ $match: { _id: { $in: ids } } }, { $group: { _id: null, n: { $sum: 1 } } }], { session }).next();
      if (!seen || seen.n !== expected) throw new Error('changed');
      await pages.deleteMany({ _id: { $in: ids } }, { session });
      await pages.insertMany(merged as any[], { session });
    });
    await pages.deleteMany({ _id: { $in: ids } });
  } finally {
    await lock.release();
  }
}
`,
      errors: [
        { line: 17, messageId: 'missingFenceNoToken' },
        { line: 20, messageId: 'missingFenceNoToken' },
        { line: 37, messageId: 'missingFenceNoToken' },
      ],
    },
  ],
});

ruleTester.run('require-fence-condition: a probe of the lock before taking it', rule, {
  valid: [],
  invalid: [
    {
      name: 'the write after the acquire is unfenced; the earlier probe does not hand it to no-check-then-write',
      code: `import Redis from 'ioredis';
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
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
  ],
});

// redis-lock: the package's export, called with a client, is the lock function.
ruleTester.run('require-fence-condition: redis-lock', rule, {
  valid: [
    {
      name: 'a lock function of the project named like it but from no lock package takes nothing',
      code: `const lock = require('./local-queue')(null);
const { Account } = require('./models');
export async function close(id: string) {
  const unlock = await lock('account:' + id);
  await Account.updateOne({ id }, { $set: { closed: true } });
  unlock();
}`,
    },
  ],
  invalid: [
    {
      name: 'promisified: the call resolves to the release function and the section runs until it',
      code: `import { promisify } from 'util';
import { createClient } from 'redis';
const lock = promisify(require('redis-lock')(createClient()));
const { Account } = require('./models');
export async function close(id: string) {
  const unlock = await lock('account:' + id);
  try {
    await Account.updateOne({ id }, { $set: { closed: true } });
  } finally {
    await unlock();
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 8 }],
    },
    {
      name: 'the callback form, with an imported factory: the callback is the section',
      code: `import redisLock from 'redis-lock';
import { createClient } from 'redis';
const lock = redisLock(createClient());
const { Account } = require('./models');
export function close(id: string) {
  lock('account:' + id, 2000, async (done: () => void) => {
    await Account.updateOne({ id }, { $set: { closed: true } });
    done();
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
  ],
});
