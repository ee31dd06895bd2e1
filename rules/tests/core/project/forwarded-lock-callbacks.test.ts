/**
 * A scheduler helper that hands its job parameter on to a lock helper from a deferred callback
 * (`every(name, ms, job)` running `setInterval(() => withLease(name, ms, job), ms)`): whenever
 * the job runs, it runs under the lease, so a job registered through it is a critical section,
 * whether the scheduler sits in the caller's module or in another.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lease = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function withLease<T>(name: string, ms: number, job: () => Promise<T>): Promise<T | undefined> {
  const me = randomUUID();
  if ((await redis.set('lease:' + name, me, 'PX', ms, 'NX')) !== 'OK') return undefined;
  try {
    return await job();
  } finally {
    await redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, 'lease:' + name, me);
  }
}
`;

const outbox = `import { Pool } from 'pg';
const pool = new Pool();
export async function drainOutbox(): Promise<void> {
  await pool.query("UPDATE outbox SET state = $1 WHERE state = 'queued'", ['sent']);
}
`;

describe('a lock callback forwarded through a scheduler parameter', () => {
  it('reads a job registered through a scheduler of the same module as run under the lease', async () => {
    current = project({
      'src/lease.ts': lease,
      'src/outbox.ts': outbox,
      'src/jobs.ts': `import { withLease } from './lease';
import { drainOutbox } from './outbox';

function every(name: string, ms: number, job: () => Promise<void>) {
  setInterval(() => withLease(name, ms, job), ms);
}

export function start() {
  every('outbox', 30000, () => drainOutbox());
}
`,
    });
    const results = await current.lint('src/jobs.ts');
    expect(findings(results.get('src/jobs.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('reads the same through a scheduler in another module', async () => {
    current = project({
      'src/lease.ts': lease,
      'src/outbox.ts': outbox,
      'src/scheduler.ts': `import { withLease } from './lease';
export function every(name: string, ms: number, job: () => Promise<void>) {
  const timer = setInterval(() => {
    void withLease(name, ms, job);
  }, ms);
  return () => clearInterval(timer);
}
`,
      'src/jobs.ts': `import { every } from './scheduler';
import { drainOutbox } from './outbox';

export function start() {
  return every('outbox', 30000, () => drainOutbox());
}
`,
    });
    const results = await current.lint('src/jobs.ts');
    expect(findings(results.get('src/jobs.ts'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('a scheduler that runs its job with no lock makes no section', async () => {
    current = project({
      'src/lease.ts': lease,
      'src/outbox.ts': outbox,
      'src/jobs.ts': `import { withLease } from './lease';
import { drainOutbox } from './outbox';

function every(name: string, ms: number, job: () => Promise<void>) {
  setInterval(() => withLease(name, ms, async () => undefined), ms);
  setInterval(job, ms);
}

export function start() {
  every('outbox', 30000, () => drainOutbox());
}
`,
    });
    const results = await current.lint('src/jobs.ts');
    expect(findings(results.get('src/jobs.ts'))).toEqual([]);
  });
});
