import rule from '../../src/rules/no-clock-token.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const pgHeader = `import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
const pool = new Pool();
`;

ruleTester.run('no-clock-token', rule, {
  valid: [
    {
      name: 'Date.now() for the lease expiry, the token from a durable counter',
      code: `${pgHeader}
export async function grantLease(resourceKey: string, ownerId: string, ttlMs: number) {
  const { rows } = await pool.query(
    'UPDATE fence_counters SET token = token + 1 WHERE resource_key = $1 RETURNING token',
    [resourceKey],
  );
  const expiresAt = new Date(Date.now() + ttlMs);
  return { leaseId: randomUUID(), ownerId, fenceToken: rows[0].token, expiresAt };
}`,
    },
    {
      name: 'a deadline loop while renewing',
      code: `export async function waitForLease(lease: { renew(): Promise<boolean> }) {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await lease.renew()) return true;
  }
  return false;
}`,
    },
    {
      name: 'a log line carries the clock next to the token',
      code: `import { logger } from './logger';
export function onGranted(fenceToken: number, key: string) {
  logger.info({ key, fenceToken, at: Date.now(), tookMs: performance.now() });
}`,
    },
    {
      name: 'metrics: a duration from performance.now()',
      code: `import { histogram } from './metrics';
export async function timed<T>(work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    histogram.observe(performance.now() - started);
  }
}`,
    },
    {
      name: 'createdAt / updatedAt and a random id on a record',
      code: `import { v4 as uuidv4 } from 'uuid';
export function newOrder(customerId: string) {
  return { id: uuidv4(), customerId, createdAt: new Date(), updatedAt: new Date().toISOString(), version: 1 };
}`,
    },
    {
      name: 'cache busting: a clock "version" in unrelated code',
      code: `export function assetManifest(files: string[]) {
  const version = Date.now();
  return { version, files: files.map((f) => \`/static/\${f}?v=\${version}\`) };
}`,
    },
    {
      name: 'an "epoch" that is a Unix timestamp for a JWT',
      code: `import jwt from 'jsonwebtoken';
export function sign(sub: string, secret: string) {
  const epoch = Math.floor(Date.now() / 1000);
  return jwt.sign({ sub, iat: epoch, exp: epoch + 3600 }, secret);
}`,
    },
    {
      name: 'a random lock value named token is the owner value a compare-and-delete checks',
      code: `import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
const redis = new Redis();
export async function acquire(key: string, ttlMs: number) {
  const token = randomBytes(16).toString('hex');
  const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
  return ok ? { key, token, expiresAt: Date.now() + ttlMs } : undefined;
}`,
    },
    {
      name: 'SQL: now() sets the expiry, the token increments in place',
      code: `${pgHeader}
export async function renew(key: string, owner: string) {
  await pool.query(
    "UPDATE leases SET expires_at = now() + interval '30 seconds', fence_token = fence_token + 1, updated_at = now() WHERE resource_key = $1 AND owner_id = $2",
    [key, owner],
  );
}`,
    },
    {
      name: 'SQL: a clock "version" on a document table is optimistic concurrency, not a fence',
      code: `${pgHeader}
export async function saveDraft(id: string, body: string) {
  await pool.query('UPDATE drafts SET body = $1, version = $2 WHERE id = $3', [body, Date.now(), id]);
}`,
    },
    {
      name: 'the token comes from Redis INCR; the clock only stamps the grant time',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function grant(jobId: string, workerId: string) {
  const fencingToken = await redis.incr(\`fence:\${jobId}\`);
  const fencingStartedAt = Date.now();
  return { jobId, workerId, fencingToken, fencingStartedAt };
}`,
    },
    {
      name: 'an injected clock is not the wall clock',
      code: `export class Authority {
  constructor(private readonly clock: { now(): number }, private readonly counter: { next(): Promise<number> }) {}
  async acquire(key: string) {
    const fenceToken = await this.counter.next();
    return { key, fenceToken, grantedAt: this.clock.now() };
  }
}`,
    },
    {
      name: 'a request id from randomUUID() goes into a header',
      code: `import { randomUUID } from 'node:crypto';
export async function call(url: string, fenceToken: number) {
  const requestId = randomUUID();
  return fetch(url, { method: 'PUT', headers: { 'x-request-id': requestId, 'x-fence-token': String(fenceToken) } });
}`,
    },
    {
      name: 'a local Date shadows the global',
      code: `import { Date } from './sim-clock';
export function tick() {
  const generation = Date.now();
  return generation;
}`,
    },
    {
      name: 'dayjs parsing a stored value is not the clock',
      code: `import dayjs from 'dayjs';
export function restore(row: { fence_token: string; granted: string }) {
  return { fenceToken: Number(row.fence_token), grantedOn: dayjs(row.granted).valueOf() };
}`,
    },
    {
      name: 'an access token with an owner and an expiry is not a fence',
      code: `export function issueSession(ownerId: string) {
  return { ownerId, accessToken: Date.now().toString(36), expiresAt: Date.now() + 3_600_000 };
}`,
    },
    {
      name: 'Prisma: a clock token on a session model',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function touch(key: string) {
  await prisma.session.update({ where: { key }, data: { token: Date.now() } });
}`,
    },
    {
      name: 'knex: fn.now() for updated_at next to a counter token',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function take(id: number) {
  await db('leases').where({ id }).update({ fence_token: db.raw('fence_token + 1'), updated_at: db.fn.now() });
}`,
    },
    {
      name: 'a lease class keeps an epoch-millisecond timestamp of its last renewal',
      code: `export class LeaseKeeper {
  private lastRenewalEpoch = 0;
  renew(lease: { leaseId: string; previous?: string }) {
    this.lastRenewalEpoch = Date.now();
    return { leaseId: lease.leaseId, prev: Date.now() };
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the fixture: an authority stamps fence tokens with Date.now()',
      code: `${pgHeader}
export async function grantLease(resourceKey: string, ownerId: string) {
  const fenceToken = Date.now();
  await pool.query('INSERT INTO leases (resource_key, owner_id, fence_token) VALUES ($1, $2, $3)', [resourceKey, ownerId, fenceToken]);
  return { resourceKey, ownerId, fenceToken };
}`,
      errors: [{ line: 6, messageId: 'clockToken', data: { place: '`fenceToken`', source: '`Date.now()`', at: '' } }],
    },
    {
      name: 'a token property on the returned lease',
      code: `import { randomUUID } from 'node:crypto';
export function acquireLease(resource: string, ttlMs: number) {
  return {
    leaseId: randomUUID(),
    resource,
    fencingToken: Date.now(),
    expiresAt: Date.now() + ttlMs,
  };
}`,
      errors: [{ messageId: 'clockToken', line: 6 }],
    },
    {
      name: 'a generation field stamped with performance.now()',
      code: `export class LeaderElector {
  private generation = 0;
  becomeLeader() {
    this.generation = performance.now();
    return this.generation;
  }
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'followed through a local: const t = Date.now(); return { fenceToken: t }',
      code: `export function issue(resource: string) {
  const t = Date.now();
  return { resource, fenceToken: t };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'a plain "token" on what an acquire returns',
      code: `export class LockService {
  async acquire(resource: string, owner: string, ttlMs: number) {
    const issued = Date.now();
    return { resource, owner, token: issued, expiresAt: issued + ttlMs };
  }
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'new Date().getTime() as the fencing token',
      code: `export function grant(jobId: string) {
  const fencingToken = new Date().getTime();
  return { jobId, fencingToken };
}`,
      errors: [{ line: 2, messageId: 'clockToken', data: { place: '`fencingToken`', source: '`new Date()`', at: '' } }],
    },
    {
      name: '+new Date() and valueOf()',
      code: `export const leases = new Map<string, { fenceToken: number; lockEpoch: number }>();
export function take(key: string) {
  const lockEpoch = new Date().valueOf();
  leases.set(key, { fenceToken: +new Date(), lockEpoch });
}`,
      errors: [
        { messageId: 'clockToken', line: 3 },
        { messageId: 'clockToken', line: 4 },
      ],
    },
    {
      name: 'process.hrtime.bigint() as a generation',
      code: `export function nextShardOwner(shard: number, node: string) {
  const generation = process.hrtime.bigint();
  return { shard, node, generation };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'crypto.randomUUID() as a fence token has no order',
      code: `export function grant(resource: string) {
  return { resource, fenceToken: crypto.randomUUID() };
}`,
      errors: [{ line: 2, messageId: 'randomToken', data: { place: '`fenceToken`', source: '`crypto.randomUUID()`', at: '' } }],
    },
    {
      name: 'uuid v4 through its import',
      code: `const { v4: uuidv4 } = require('uuid');
function assign(partition, consumer) {
  const fencingToken = uuidv4();
  return { partition, consumer, fencingToken };
}
module.exports = { assign };`,
      errors: [{ messageId: 'randomToken', line: 3 }],
    },
    {
      name: 'the token position of a SQL write: a parameter assigned to fence_token',
      code: `${pgHeader}
export async function takeOver(key: string, owner: string) {
  await pool.query('UPDATE leases SET owner_id = $1, fence_token = $2 WHERE resource_key = $3', [owner, Date.now(), key]);
}`,
      errors: [{ messageId: 'clockToken', line: 6, column: 105, endColumn: 115 }],
    },
    {
      name: 'postgres.js: a clock value into the token column of a lock table',
      code: `import postgres from 'postgres';
const sql = postgres();
export async function steal(name: string, holder: string) {
  await sql\`UPDATE locks SET holder = \${holder}, token = \${Date.now()} WHERE name = \${name}\`;
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'SQL: INSERT with extract(epoch from now()) as the token',
      code: `${pgHeader}
export async function grant(key: string, owner: string) {
  await pool.query(
    \`INSERT INTO leases (resource_key, owner_id, fence_token)
     VALUES ($1, $2, extract(epoch from now()))\`,
    [key, owner],
  );
}`,
      errors: [{ line: 8, column: 22, endColumn: 47, messageId: 'sqlClockToken', data: { column: '`fence_token`', source: '`now()`' } }],
    },
    {
      name: 'SQL: an upsert stamps the generation with clock_timestamp()',
      code: `${pgHeader}
export async function claim(shard: number, node: string) {
  await pool.query(
    \`INSERT INTO shard_owners (shard, node_id, generation) VALUES ($1, $2, 0)
     ON CONFLICT (shard) DO UPDATE
        SET node_id = EXCLUDED.node_id,
            generation = (extract(epoch from clock_timestamp()) * 1000)::bigint\`,
    [shard, node],
  );
}`,
      errors: [{ messageId: 'sqlClockToken', line: 10 }],
    },
    {
      name: 'SQL: an upsert inserts the clock and carries it on with EXCLUDED: reported where the clock is written',
      code: `${pgHeader}
export async function claim(shard: number, node: string) {
  await pool.query(
    \`INSERT INTO shard_owners (shard, node_id, generation)
     VALUES ($1, $2, (extract(epoch from clock_timestamp()) * 1000)::bigint)
     ON CONFLICT (shard) DO UPDATE
        SET node_id = EXCLUDED.node_id, generation = EXCLUDED.generation\`,
    [shard, node],
  );
}`,
      errors: [{ messageId: 'sqlClockToken', line: 8, column: 22 }],
    },
    {
      name: 'a token issuer helper returns the clock',
      code: `function nextFenceToken(): number {
  return Date.now();
}
export function grant(key: string) {
  return { key, fenceToken: nextFenceToken() };
}`,
      errors: [{ line: 2, messageId: 'clockToken', data: { place: 'The result of `nextFenceToken()`', source: '`Date.now()`', at: '' } }],
    },
    {
      name: 'passed into a parameter named for the token',
      code: `function recordLease(key: string, ownerId: string, fenceToken: number) {
  return { key, ownerId, fenceToken };
}
export function grant(key: string, ownerId: string) {
  return recordLease(key, ownerId, Date.now());
}`,
      errors: [{ messageId: 'clockToken', line: 5 }],
    },
    {
      name: 'a lease epoch in seconds',
      code: `export function elect(nodeId: string) {
  return { leader: nodeId, leaseEpoch: Math.floor(Date.now() / 1000) };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'mysql2: a clock value bound to ? in the lease_epoch column',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
export async function take(jobId: number) {
  await db.execute('UPDATE jobs SET lease_epoch = ? WHERE id = ?', [Date.now(), jobId]);
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'a token method of the authority reads the clock',
      code: `export class Coordinator {
  private nextToken() {
    return Date.now();
  }
  acquire(key: string, owner: string) {
    const token = this.nextToken();
    return { key, owner, token };
  }
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'MongoDB $set of a fencing token from the clock',
      code: `import { MongoClient } from 'mongodb';
const leases = new MongoClient('mongodb://x').db().collection('leases');
export async function grant(key: string, owner: string) {
  await leases.updateOne({ _id: key }, { $set: { owner, fencingToken: Date.now() } }, { upsert: true });
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'knex: the token column updated with the clock',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function take(id: number) {
  await db('leases').where({ id }).update({ fence_token: Date.now(), owner: 'me' });
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'a weak name on a lock handle: lease.token = Date.now()',
      code: `export function refresh(lease: { token: number; expiresAt: number }) {
  lease.token = Date.now();
  lease.expiresAt = Date.now() + 10_000;
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'a clock string in a template is still the clock',
      code: `export function grant(key: string) {
  const fenceToken = \`\${Date.now()}-\${process.pid}\`;
  return { key, fenceToken };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'ULID through its import: ordered by one machine clock only',
      code: `import { ulid } from 'ulid';
export function issue(key: string) {
  return { key, fenceToken: ulid() };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'option tokenNames: a Paxos ballot from the clock',
      options: [{ tokenNames: ['ballot'] }],
      code: `export function prepare(nodeId: string) {
  const ballot = Date.now();
  return { nodeId, ballot };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'settings.fencelint.tokenColumn names the token column',
      settings: { fencelint: { tokenColumn: 'owner_seq' } },
      code: `${pgHeader}
export async function take(id: string) {
  await pool.query('UPDATE resources SET owner_seq = $1 WHERE id = $2', [Date.now(), id]);
}`,
      errors: [{ messageId: 'clockToken', line: 6 }],
    },
    {
      name: 'a Redis hash field named for the token',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function grant(key: string, owner: string) {
  await redis.hset(\`lease:\${key}\`, 'owner', owner, 'fencingToken', Date.now());
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'Prisma: a plain token written to the lease model',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function takeOver(key: string) {
  await prisma.lease.update({ where: { key }, data: { token: Date.now() } });
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'through a same-file clock helper',
      code: `const now = () => Date.now();
export function grant(key: string) {
  return { key, fenceToken: now() };
}`,
      errors: [{ line: 3, messageId: 'clockToken', data: { place: '`fenceToken`', source: '`Date.now()`', at: ' (line 1)' } }],
    },
    {
      name: 'a constructor parameter of a same-file lease class',
      code: `export class Lease {
  constructor(public readonly resource: string, public readonly fenceToken: number) {}
}
export const grant = (resource: string) => new Lease(resource, Date.now());`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'an HTTP fencing header from the clock',
      code: `export function write(url: string, body: string) {
  return fetch(url, { method: 'PUT', body, headers: { 'X-Fencing-Token': String(Date.now()) } });
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'a producer epoch',
      code: `export function initProducer(producerId: string) {
  return { producerId, producerEpoch: Date.now() };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'knex: the database clock through fn.now()',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function steal(id: number, owner: string) {
  await db('leases').where({ id }).update({ owner, fence_token: db.fn.now() });
}`,
      errors: [{ line: 4, messageId: 'clockToken', data: { place: '`fence_token`', source: '`fn.now()`', at: '' } }],
    },
    {
      name: 'Sequelize: a NOW() fragment as the token',
      code: `import { Sequelize } from 'sequelize';
export async function takeOver(Lease: any, id: number) {
  await Lease.update({ fencingToken: Sequelize.literal('CURRENT_TIMESTAMP') }, { where: { id } });
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
  ],
});

// A time built into a longer string names an owner; it is not compared for order.
ruleTester.run('no-clock-token', rule, {
  valid: [
    {
      name: 'a lock value made of host, pid and the time: an owner id that a compare-and-delete checks',
      code: `import { hostname } from 'node:os';
export async function acquire(redis: any, key: string) {
  const token = \`\${hostname()}:\${process.pid}:\${Date.now()}\`;
  const ok = await redis.set(key, token, 'PX', 30000, 'NX');
  return ok === 'OK' ? { key, token } : undefined;
}`,
    },
    {
      name: 'a worker name built with the start time, returned with the lease',
      code: `export function claimShard(shard: string) {
  const owner = 'worker-' + process.pid + '-' + Date.now();
  return { shard, lease: owner, version: 'w-' + Date.now() };
}`,
    },
  ],
  invalid: [
    {
      name: 'the same string under a fence-token name is meant as a token',
      code: `import { hostname } from 'node:os';
export function acquire(key: string) {
  const fencingToken = \`\${Date.now()}:\${hostname()}\`;
  return { key, fencingToken };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
  ],
});

const pgOnly = `import { Pool } from 'pg';
const pool = new Pool();
`;

ruleTester.run('no-clock-token: every clock, random and time-ordered source, in every token position', rule, {
  valid: [
    {
      name: 'Math.floor(Date.now()/1000) for a JWT iat',
      code: `export function claims(sub: string) {
  return { sub, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600 };
}`,
    },
    {
      name: 'nanoid for a request id',
      code: `import { nanoid } from 'nanoid';
export function requestId() { return { requestId: nanoid() }; }`,
    },
    {
      name: 'clock for lease expiry in a write condition',
      code: `${pgOnly}export async function renew(key: string, owner: string, fenceToken: number) {
  await pool.query('UPDATE leases SET expires_at = $3 WHERE resource_key = $1 AND owner = $2 AND fence_token = $4', [key, owner, new Date(Date.now() + 5000), fenceToken]);
}`,
    },
    {
      name: 'performance.now() for timing a write',
      code: `${pgOnly}export async function save(key: string, value: string, fenceToken: number) {
  const started = performance.now();
  await pool.query('UPDATE t SET v = $1, fence_token = $3 WHERE k = $2 AND fence_token < $3', [value, key, fenceToken]);
  console.log('took', performance.now() - started);
}`,
    },
  ],
  invalid: [
    {
      name: 'Math.floor(Date.now() / 1000) as the fence token',
      code: `export function grant(owner: string) {
  const fenceToken = Math.floor(Date.now() / 1000);
  return { owner, fenceToken };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'Date.now() * 1000 + seq as the token',
      code: `let seq = 0;
export function nextToken() {
  seq = (seq + 1) % 1000;
  const fencingToken = Date.now() * 1000 + seq;
  return fencingToken;
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'performance.now() as the fence token',
      code: `import { performance } from 'node:perf_hooks';
export function grant(owner: string) {
  return { owner, fenceToken: performance.now() };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'process.hrtime() pair as a token',
      code: `export function grant(owner: string) {
  const [s, ns] = process.hrtime();
  const fenceToken = s * 1e9 + ns;
  return { owner, fenceToken };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'nanoid as a fence token',
      code: `import { nanoid } from 'nanoid';
export function grant(owner: string) {
  return { owner, fenceToken: nanoid() };
}`,
      errors: [{ messageId: 'randomToken', line: 3 }],
    },
    {
      name: 'KSUID as a fence token',
      code: `import KSUID from 'ksuid';
export async function grant(owner: string) {
  const fencingToken = (await KSUID.random()).string;
  return { owner, fencingToken };
}`,
      errors: [{ messageId: 'clockToken', line: 3 }],
    },
    {
      name: 'clock compared as the token in a write condition',
      code: `${pgOnly}export async function save(key: string, value: string) {
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3', [value, key, Date.now()]);
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'clock bound to the token column through a local',
      code: `${pgOnly}export async function save(key: string, value: string) {
  const now = Date.now();
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, now]);
}`,
      errors: [{ messageId: 'clockToken', line: 5 }],
    },
    {
      name: 'now() stored as the token',
      code: `${pgOnly}export async function grant(key: string, owner: string) {
  await pool.query("UPDATE leases SET owner = $2, fence_token = extract(epoch from clock_timestamp()) * 1000 WHERE resource_key = $1", [key, owner]);
}`,
      errors: [{ messageId: 'sqlClockToken', line: 4 }],
    },
    {
      name: 'Date.now() assigned to this.token of a lease class',
      code: `export class Lease {
  fenceToken = 0;
  constructor(readonly owner: string) {}
  renew() { this.fenceToken = Date.now(); }
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'uuid v7 time-ordered id as token',
      code: `import { v7 as uuidv7 } from 'uuid';
export function grant(owner: string) {
  const token = uuidv7();
  return { owner, fenceToken: token };
}`,
      errors: [{ messageId: 'clockToken', line: 4 }],
    },
    {
      name: 'BigInt(Date.now()) as token',
      code: `export function grant(owner: string) {
  return { owner, fenceToken: BigInt(Date.now()) };
}`,
      errors: [{ messageId: 'clockToken', line: 2 }],
    },
    {
      name: 'Mongo filter compares a clock as the token',
      code: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('mongodb://127.0.0.1').db('a').collection('docs');
export async function save(id: string, body: string) {
  const t = Date.now();
  await docs.updateOne({ _id: id, fenceToken: { $lt: t } }, { $set: { body, fenceToken: t } });
}`,
      errors: [{ messageId: 'clockToken', line: 5 }, { messageId: 'clockToken', line: 5 }],
    },
  ],
});
