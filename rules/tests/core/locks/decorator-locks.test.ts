/**
 * A project's own lock decorator: a factory in a helper module returns a method decorator that
 * keeps the method and puts in its place one that runs it under a Redis lock. Where the decorator
 * is applied, the method's body is the critical section; the factory called anywhere else, and the
 * class's other methods, hold nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const decorator = `import Redis from 'ioredis';
import Redlock from 'redlock';

const redlock = new Redlock([new Redis()]);

export function DistributedLock(resource: string, ttlMs = 10_000) {
  return function (target: object, propertyKey: string, descriptor: PropertyDescriptor) {
    const original = descriptor.value;
    descriptor.value = async function (...args: unknown[]) {
      const held = await redlock.acquire([resource], ttlMs);
      try {
        return await original.apply(this, args);
      } finally {
        await held.release();
      }
    };
    return descriptor;
  };
}

export function Timed(metric: string) {
  return function (target: object, propertyKey: string, descriptor: PropertyDescriptor) {
    const original = descriptor.value;
    descriptor.value = async function (...args: unknown[]) {
      const started = Date.now();
      try {
        return await original.apply(this, args);
      } finally {
        console.log(metric, Date.now() - started);
      }
    };
  };
}
`;

const service = `import { Pool } from 'pg';
import { DistributedLock, Timed } from './decorators';

const pool = new Pool();

export class PayoutService {
  @DistributedLock('payouts:settle')
  async settle(batchId: string, total: number) {
    await pool.query('UPDATE payout_batches SET total = $1 WHERE id = $2', [total, batchId]);
  }

  @Timed('payouts.describe')
  async describe(batchId: string, note: string) {
    await pool.query('UPDATE payout_batches SET note = $1 WHERE id = $2', [note, batchId]);
  }

  async reopen(batchId: string) {
    await pool.query("UPDATE payout_batches SET status = 'open' WHERE id = $1", [batchId]);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lock decorator of the project', () => {
  it('reports the write in the decorated method, and nothing in the undecorated or the timed one', async () => {
    current = project({ 'decorators.ts': decorator, 'payouts.ts': service });
    const results = await current.lint('payouts.ts', 'decorators.ts');
    expect(findings(results.get('payouts.ts'))).toEqual(['9 fencelint/require-fence-condition']);
    expect(findings(results.get('decorators.ts'))).toEqual([]);
  });

  it('the same decorator written in the service file', async () => {
    const inline = service.replace("import { DistributedLock, Timed } from './decorators';\n", decorator.replace(/^import .*\n/gm, '').replace('const redlock', "import Redis from 'ioredis';\nimport Redlock from 'redlock';\nconst redlock"));
    current = project({ 'payouts.ts': inline });
    const results = await current.lint('payouts.ts');
    const lines = findings(results.get('payouts.ts'));
    expect(lines).toHaveLength(1);
    expect(inline.split('\n')[Number(lines[0].split(' ')[0]) - 1]).toContain("SET total = $1");
  });
});
