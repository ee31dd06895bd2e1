import rule from '../../src/rules/no-memory-token-counter.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

ruleTester.run('no-memory-token-counter', rule, {
  valid: [
    {
      name: 'Redis INCR issues the token',
      code: `import Redis from 'ioredis';
const redis = new Redis();
let grants = 0;
export async function grant(jobId: string, workerId: string) {
  const fencingToken = await redis.incr(\`fence:\${jobId}\`);
  grants++;
  return { jobId, workerId, fencingToken };
}`,
    },
    {
      name: 'UPDATE ... RETURNING issues the token',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export class LeaseAuthority {
  private granted = 0;
  async acquire(resource: string, owner: string) {
    const { rows } = await pool.query('UPDATE fence_counters SET token = token + 1 WHERE resource = $1 RETURNING token', [resource]);
    this.granted += 1;
    return { resource, owner, token: Number(rows[0].token) };
  }
}`,
    },
    {
      name: 'a sequence issues the epoch',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function elect(nodeId: string) {
  const { rows } = await pool.query("SELECT nextval('leader_epoch_seq') AS epoch");
  return { leader: nodeId, epoch: rows[0].epoch };
}`,
    },
    {
      name: 'the counter is loaded from the store at start and written back',
      code: `import Redis from 'ioredis';
export class FenceIssuer {
  private lastToken = 0;
  constructor(private readonly redis: Redis) {}
  async init() {
    this.lastToken = Number((await this.redis.get('fence:last')) ?? 0);
  }
  async next() {
    this.lastToken++;
    await this.redis.set('fence:last', String(this.lastToken));
    return { fenceToken: this.lastToken };
  }
}`,
    },
    {
      name: 'a module counter loaded from a file',
      code: `import { readFileSync, writeFileSync } from 'node:fs';
let lastFenceToken = JSON.parse(readFileSync('/var/lib/authority/state.json', 'utf8')).lastFenceToken as number;
export function issue() {
  lastFenceToken += 1;
  writeFileSync('/var/lib/authority/state.json', JSON.stringify({ lastFenceToken }));
  return lastFenceToken;
}`,
    },
    {
      name: 'a request counter for metrics',
      code: `import express from 'express';
const app = express();
let requests = 0;
app.use((req, res, next) => {
  requests++;
  next();
});
app.get('/metrics', (req, res) => res.send(\`http_requests_total \${requests}\`));`,
    },
    {
      name: 'a retry count is local',
      code: `export async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  let attempts = 0;
  for (;;) {
    try {
      return await work();
    } catch (err) {
      attempts++;
      if (attempts > 3) throw err;
    }
  }
}`,
    },
    {
      name: 'request ids for logs',
      code: `import { logger } from './logger';
let nextRequestId = 1;
export function handle(path: string) {
  const id = nextRequestId++;
  logger.info({ id, path }, 'request');
  return { id, path };
}`,
    },
    {
      name: 'JSON-RPC message sequence numbers',
      code: `export class RpcClient {
  private seq = 0;
  constructor(private readonly socket: { send(data: string): void }) {}
  call(method: string, params: unknown) {
    this.seq++;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id: this.seq, method, params }));
  }
}`,
    },
    {
      name: 'an in-process generation guard against stale async results never leaves the process',
      code: `export class SearchBox {
  private generation = 0;
  private results: string[] = [];
  async search(q: string, fetcher: (q: string) => Promise<string[]>) {
    const gen = ++this.generation;
    const found = await fetcher(q);
    if (gen !== this.generation) return;
    this.results = found;
  }
}`,
    },
    {
      name: 'a rebalance counter printed in a log line',
      code: `export class ShardCoordinator {
  #rebalances = 0;
  rebalance(consumers: string[]) {
    this.#rebalances++;
    console.log(\`rebalance #\${this.#rebalances}: \${consumers.length} consumers\`);
  }
}`,
    },
    {
      name: 'the start value is injected through the constructor',
      code: `export class TokenIssuer {
  constructor(private lastFencingToken: number) {}
  issue(resource: string) {
    const fencingToken = ++this.lastFencingToken;
    return { resource, fencingToken };
  }
}`,
    },
    {
      name: 'a cache version bumped on invalidation',
      code: `let cacheVersion = 0;
export function invalidate() {
  cacheVersion++;
}
export function cacheKey(key: string) {
  return \`\${key}:v\${cacheVersion}\`;
}`,
    },
    {
      name: 'an optimistic UI version per document in a Map',
      code: `const versions = new Map<string, number>();
export function edit(docId: string, text: string) {
  const version = (versions.get(docId) ?? 0) + 1;
  versions.set(docId, version);
  return { docId, text, version };
}`,
    },
    {
      name: 'a loop counter named like a token is still a local',
      code: `export function tokenize(text: string) {
  const out: Array<{ token: string; seq: number }> = [];
  let seq = 0;
  for (const token of text.split(' ')) out.push({ token, seq: seq++ });
  return out;
}`,
    },
    {
      name: 'a component state version returned from a snapshot',
      code: `export class Store {
  version = 0;
  bump() {
    this.version++;
    return this.version;
  }
  snapshot() {
    return { data: [], version: this.version };
  }
}`,
    },
    {
      name: 'the counter continues from the highest token the database holds',
      code: `import { Pool } from 'pg';
export class Authority {
  private lastToken = 0;
  constructor(private readonly pool: Pool) {}
  async start() {
    const { rows } = await this.pool.query('SELECT max(fence_token) AS t FROM leases');
    this.lastToken = Number(rows[0].t ?? 0);
  }
  acquire(key: string) {
    this.lastToken++;
    return { key, fenceToken: this.lastToken };
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the fixture: a module-level counter issues fencing tokens',
      code: `import { randomUUID } from 'node:crypto';
let lastFencingToken = 0;
export function grantJobLease(jobId: string, workerId: string) {
  const fencingToken = ++lastFencingToken;
  return { jobId, workerId, leaseId: randomUUID(), fencingToken };
}`,
      errors: [{ line: 4, messageId: 'memoryCounter', data: { where: 'This fence token', counter: '`lastFencingToken`' } }],
    },
    {
      name: 'a Nest-style service with private counter = 0',
      code: `import { Injectable } from '@nestjs/common';
@Injectable()
export class LeaseService {
  private counter = 0;
  private readonly leases = new Map<string, { owner: string; token: number; expiresAt: number }>();
  acquire(resource: string, owner: string, ttlMs: number) {
    this.counter++;
    const lease = { owner, token: this.counter, expiresAt: Date.now() + ttlMs };
    this.leases.set(resource, lease);
    return lease;
  }
}`,
      errors: [{ line: 7, messageId: 'memoryCounter', data: { where: 'The fence token in `token` (line 8)', counter: '`this.counter`' } }],
    },
    {
      name: 'the fixture: an epoch from a private class field',
      code: `export class ShardCoordinator {
  #assignments = new Map();
  #epoch = 0;
  assign(shard, consumerId) {
    const epoch = ++this.#epoch;
    const assignment = { consumerId, epoch, assignedAt: Date.now() };
    this.#assignments.set(shard, assignment);
    return assignment;
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'a closure variable inside an authority factory',
      code: `export function createAuthority(ttlMs: number) {
  let token = 0;
  return {
    acquire(key: string) {
      token += 1;
      return { key, token, expiresAt: Date.now() + ttlMs };
    },
  };
}`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'a Map entry per resource',
      code: `export class LockTable {
  private readonly tokens = new Map<string, number>();
  lock(resource: string, owner: string) {
    const next = (this.tokens.get(resource) ?? 0) + 1;
    this.tokens.set(resource, next);
    return { resource, owner, fenceToken: next };
  }
}`,
      errors: [{ line: 4, messageId: 'memoryCounter', data: { where: 'The fence token in `fenceToken` (line 6)', counter: '`this.tokens`' } }],
    },
    {
      name: 'an object of generations per shard',
      code: `const generations: Record<string, number> = {};
export function claimShard(shard: string, nodeId: string) {
  generations[shard] = (generations[shard] ?? 0) + 1;
  return { shard, nodeId, generation: generations[shard] };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'x = x + 1 then handed out',
      code: `let nextToken = 0;
export function lease(resource: string) {
  nextToken = nextToken + 1;
  return { leaseId: resource + ':' + nextToken, fencingToken: nextToken };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'a token issuer function over a module counter',
      code: `let counter = 0;
export function nextFenceToken(): number {
  return ++counter;
}`,
      errors: [{ line: 3, messageId: 'memoryCounter', data: { where: 'The fence token in the result of `nextFenceToken()`', counter: '`counter`' } }],
    },
    {
      name: 'an Express route hands out the counter',
      code: `import express from 'express';
const app = express();
let seq = 0;
app.post('/leases/:key', (req, res) => {
  const fencingToken = ++seq;
  res.status(201).json({ key: req.params.key, fencingToken });
});`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'an object-literal authority counting on this',
      code: `import { randomUUID } from 'node:crypto';
export const authority = {
  counter: 0,
  acquire(key: string) {
    return { key, leaseId: randomUUID(), token: ++this.counter };
  },
};`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'the counter goes straight into the SQL token column',
      code: `import { Pool } from 'pg';
export class JobRunner {
  private generation = 0;
  constructor(private readonly pool: Pool) {}
  async take(jobId: string) {
    await this.pool.query('UPDATE jobs SET fence_token = $1, owner = $2 WHERE id = $3', [++this.generation, 'me', jobId]);
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 6 }],
    },
    {
      name: 'a module-level state object for a leader epoch',
      code: `const state = { epoch: 0, leader: '' };
export function elect(nodeId: string) {
  state.epoch++;
  state.leader = nodeId;
  return { leader: nodeId, epoch: state.epoch };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'stored in the lease row but never loaded back: a restart repeats tokens',
      code: `import { Pool } from 'pg';
const pool = new Pool();
let lastToken = 0;
export async function grant(key: string, owner: string) {
  const fenceToken = ++lastToken;
  await pool.query('INSERT INTO leases (resource_key, owner_id, fence_token) VALUES ($1, $2, $3)', [key, owner, fenceToken]);
  return { key, owner, fenceToken };
}`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'option tokenNames: a Paxos ballot counter',
      options: [{ tokenNames: ['ballot'] }],
      code: `let ballot = 0;
export function prepare(nodeId: string) {
  ballot += 1;
  return { nodeId, ballot };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'a version on a lock handle from a counter',
      code: `let version = 0;
export function lockResource(resource: string, lock: { version: number }) {
  lock.version = ++version;
  return lock;
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'a static class field',
      code: `export class LeaseManager {
  private static nextToken = 1;
  grant(resource: string, owner: string) {
    const token = LeaseManager.nextToken++;
    return { resource, owner, token };
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'the step and the store in two statements',
      code: `export class LeaseBroker {
  private lastToken = 0;
  grant(resource: string, owner: string) {
    const next = this.lastToken + 1;
    this.lastToken = next;
    return { resource, owner, fenceToken: next };
  }
}`,
      errors: [{ line: 4, messageId: 'memoryCounter', data: { where: 'The fence token in `fenceToken` (line 6)', counter: '`this.lastToken`' } }],
    },
    {
      name: 'a local copy of a Map entry, incremented and stored back',
      code: `export class Locks {
  private readonly tokens = new Map<string, number>();
  lock(resource: string, owner: string) {
    let token = this.tokens.get(resource) ?? 0;
    token++;
    this.tokens.set(resource, token);
    return { resource, owner, token, expiresAt: Date.now() + 30_000 };
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
    {
      name: 'a token issuer class returns its private counter',
      code: `export class FenceTokenIssuer {
  #next = 1;
  issue() {
    return this.#next++;
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'a leader epoch from a field of the election class',
      code: `export class LeaderElection {
  private epoch = 0;
  campaign(nodeId: string) {
    this.epoch += 1;
    return { leaderId: nodeId, leaderEpoch: this.epoch };
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'an acquire that returns the counter itself',
      code: `export class ResourceLocks {
  private counter = 0;
  async acquire(resource: string): Promise<number> {
    return ++this.counter;
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'a module counter stored in a lease map',
      code: `const leases = new Map<string, { owner: string; fencingToken: number }>();
let issued = 0;
export function lockResource(key: string, owner: string) {
  issued += 1;
  leases.set(key, { owner, fencingToken: issued });
  return true;
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
  ],
});

// A generation compared only with its own counter, in the same process, drops stale async work:
// it is never handed to a resource, so a restart that resets it loses nothing.
ruleTester.run('no-memory-token-counter', rule, {
  valid: [
    {
      name: 'a search box: the query generation is compared with the counter after each await',
      code: `export class SearchBox {
  private queryGeneration = 0;
  private results: string[] = [];
  async search(text: string) {
    const generation = ++this.queryGeneration;
    const found = await fetch('/search?q=' + encodeURIComponent(text)).then((r) => r.json());
    if (generation !== this.queryGeneration) return;
    await this.render(found, generation);
  }
  private async render(items: string[], generation: number) {
    await Promise.resolve();
    if (generation === this.queryGeneration) this.results = items;
  }
  reset() {
    this.queryGeneration += 1;
  }
}`,
    },
    {
      name: 'a reconnect loop: each timer carries the generation it was scheduled in',
      code: `export function keepConnected(connect: () => Promise<void>) {
  let round = 0;
  const attempt = (generation: number) => {
    if (generation !== round) return;
    connect().catch(() => setTimeout(() => attempt(generation), 1000));
  };
  return () => {
    round += 1;
    attempt(round);
  };
}`,
    },
  ],
  invalid: [
    {
      name: 'the same generation sent along with the request: it leaves the process',
      code: `export class Uploader {
  private uploadGeneration = 0;
  async upload(body: string) {
    const generation = ++this.uploadGeneration;
    await fetch('/upload', { method: 'PUT', body, headers: { 'x-generation': String(generation) } });
    if (generation !== this.uploadGeneration) return;
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'passed to a helper that compares it and also writes it to the job row',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export class JobRunner {
  private runGeneration = 0;
  async start(jobId: string) {
    const generation = ++this.runGeneration;
    await this.claim(jobId, generation);
  }
  private async claim(jobId: string, generation: number) {
    if (generation !== this.runGeneration) return;
    await pool.query('UPDATE jobs SET generation = $1 WHERE id = $2', [generation, jobId]);
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 6 }],
    },
  ],
});

// A counter built into a longer string makes an owner value unique; it is not a token.
ruleTester.run('no-memory-token-counter', rule, {
  valid: [
    {
      name: 'a lock owner value with a per-process sequence number, returned by tryLock',
      code: `import { randomBytes } from 'node:crypto';
const NONCE = randomBytes(4).toString('hex');
let issued = 0;
export class KeyLock {
  constructor(private readonly redis: any) {}
  private ownerValue() {
    return \`pid=\${process.pid}:nonce=\${NONCE}:n=\${issued++}\`;
  }
  async tryLock(key: string) {
    const value = this.ownerValue();
    const ok = await this.redis.set(key, value, 'EX', 30, 'NX');
    return ok === 'OK' ? value : null;
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'a sequence number returned as is from tryLock is the token it hands out',
      code: `let issued = 0;
export class KeyLock {
  constructor(private readonly redis: any) {}
  async tryLock(key: string) {
    const value = ++issued;
    const ok = await this.redis.set(key, String(value), 'EX', 30, 'NX');
    return ok === 'OK' ? value : null;
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 5 }],
    },
  ],
});

ruleTester.run('no-memory-token-counter: every in-memory shape: static fields, per-resource entries, closures, nested state, clock seeds', rule, {
  valid: [
    {
      name: 'static counter for request ids',
      code: `export class Tracer {
  static next = 0;
  span(name: string) { return { name, spanId: ++Tracer.next }; }
}`,
    },
    {
      name: 'this.state.count++ for UI',
      code: `export class Counter {
  private state = { count: 0 };
  click() { this.state.count++; return this.state.count; }
}`,
    },
    {
      name: 'a Map of retry counts per resource',
      code: `const retries = new Map<string, number>();
export function onFailure(resource: string) {
  retries.set(resource, (retries.get(resource) ?? 0) + 1);
  return retries.get(resource);
}`,
    },
    {
      name: 'startup time recorded, not a counter',
      code: `const startedAt = Date.now();
export function uptime() { return { uptimeMs: Date.now() - startedAt }; }`,
    },
    {
      name: 'counter seeded from the store at start-up',
      code: `import { Pool } from 'pg';
const pool = new Pool();
let fenceCounter = 0;
export async function init() {
  const { rows } = await pool.query('SELECT max(fence_token) AS t FROM leases');
  fenceCounter = Number(rows[0].t);
}
export async function acquire(owner: string) {
  const { rows } = await pool.query('UPDATE fence_authority SET token = token + 1 RETURNING token');
  return { owner, fenceToken: rows[0].token };
}`,
    },
  ],
  invalid: [
    {
      name: 'Leader.next++ static field through the class name',
      code: `export class Leader {
  static next = 0;
  elect(node: string) { return { node, epoch: ++Leader.next }; }
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'this.state.token++',
      code: `export class Authority {
  private state = { token: 0, holder: '' };
  acquire(owner: string) {
    this.state.token++;
    this.state.holder = owner;
    return { owner, fenceToken: this.state.token };
  }
}`,
      errors: [{ messageId: 'memoryCounter', line: 4 }],
    },
    {
      name: 'counter seeded from the clock at start-up',
      code: `let fenceCounter = Date.now();
export function acquire(owner: string) {
  fenceCounter += 1;
  return { owner, fenceToken: fenceCounter };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'closure counter in a factory returning acquire',
      code: `export function createAuthority() {
  let generation = 0;
  return { acquire: (owner: string) => ({ owner, generation: ++generation }) };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'module Map keyed per resource',
      code: `const tokens = new Map<string, number>();
export function acquire(resource: string, owner: string) {
  const fenceToken = (tokens.get(resource) ?? 0) + 1;
  tokens.set(resource, fenceToken);
  return { resource, owner, fenceToken };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'module object keyed per resource with ++',
      code: `const epochs: Record<string, number> = {};
export function acquire(resource: string, owner: string) {
  const epoch = (epochs[resource] = (epochs[resource] ?? 0) + 1);
  return { resource, owner, epoch };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'static private field #counter',
      code: `export class TokenIssuer {
  static #counter = 0;
  static issue() { return { fencingToken: ++TokenIssuer.#counter }; }
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'class field seeded with process.hrtime.bigint',
      code: `export class Authority {
  private token = process.hrtime.bigint();
  acquire(owner: string) { this.token += 1n; return { owner, fenceToken: this.token }; }
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'module object keyed per resource fenceToken',
      code: `const tokens: Record<string, number> = {};
export function acquire(resource: string, owner: string) {
  const fenceToken = (tokens[resource] = (tokens[resource] ?? 0) + 1);
  return { resource, owner, fenceToken };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
    {
      name: 'module object ++ then read',
      code: `const epochs: Record<string, number> = {};
export function acquire(resource: string, owner: string) {
  epochs[resource] = (epochs[resource] ?? 0) + 1;
  return { resource, owner, epoch: epochs[resource] };
}`,
      errors: [{ messageId: 'memoryCounter', line: 3 }],
    },
  ],
});
