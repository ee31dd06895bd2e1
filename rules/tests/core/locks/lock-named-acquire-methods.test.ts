/**
 * An acquire method whose own name says what it takes (`tryAcquireLock`, `acquireLease`) opens a
 * critical section even when its receiver resolves to nothing (a service reached through `this` in
 * a decorator, a parameter typed `any`), as a lock-named receiver does: the code after its result is
 * tested, up to the release, runs under the lock. A method that only says "acquire" on a receiver
 * with no lock in its name stays unknown, and a same-file method is read for what it does.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import { PrismaClient } from '@prisma/client';
const db = new PrismaClient();
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line, suggestions: [] });

ruleTester.run('require-fence-condition (lock-named acquire methods)', fenceRule, {
  valid: [
    {
      name: 'acquire and tryAcquire on a receiver with no lock in its name take nothing we know of',
      code: `${header}export async function restock(pool: any, sku: string, count: number) {
  const slot = await pool.tryAcquire(sku);
  if (!slot) return;
  await db.stock.update({ where: { sku }, data: { count } });
  await pool.acquire(sku);
  await db.stock.update({ where: { sku }, data: { reserved: 0 } });
}`,
    },
    {
      name: 'a same-file method named tryAcquireLock is read for what it does, not taken by its name',
      code: `${header}export class Sweeper {
  private async tryAcquireLock(id: string): Promise<boolean> {
    const claimed = await db.sweep.updateMany({ where: { id, startedAt: null }, data: { startedAt: new Date() } });
    return claimed.count === 1;
  }

  async run(id: string) {
    const mine = await this.tryAcquireLock(id);
    if (!mine) return;
    await db.sweep.update({ where: { id }, data: { startedAt: null, finishedAt: new Date() } });
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'tryAcquireLock on a service nothing resolves, its boolean result tested, then a write before the release',
      code: `${header}export function Refreshing(seconds: number) {
  return function (_target: unknown, _name: string, descriptor: PropertyDescriptor) {
    const run = descriptor.value;
    descriptor.value = async function (this: any, sku: string) {
      const services = this.services || this.fallback;
      const won = await services.tryAcquireLock('refresh:' + sku, seconds);
      if (!won) return run.call(this, sku);
      try {
        const count = await run.call(this, sku);
        await db.stock.update({ where: { sku }, data: { count } });
        return count;
      } finally {
        await services.releaseLock('refresh:' + sku);
      }
    };
  };
}`,
      errors: [unfenced(12)],
    },
    {
      name: 'acquireLease on a parameter typed any',
      code: `${header}export async function recount(registry: any, sku: string, count: number) {
  const held = await registry.acquireLease('sku:' + sku, 5000);
  if (!held) return;
  await db.stock.update({ where: { sku }, data: { count } });
}`,
      errors: [unfenced(6)],
    },
  ],
});
