/**
 * A receiver nothing resolves (a service reached through `this` in a decorator, a parameter typed
 * `any`) that is named for Redis (`redisService`, `redisClient`) sends Redis commands: its `set`
 * and `hset` under a lock are writes, as on a client resolved through its import. Other names stay
 * unknown, and a receiver that resolves to something else (a `Map`) keeps what it is.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line, suggestions: [] });

ruleTester.run('require-fence-condition (Redis-named receivers)', fenceRule, {
  valid: [
    {
      name: 'a cache store of another name, and a Map named for Redis, are no Redis clients',
      code: `${header}export async function warm(this: any, key: string, value: string) {
  const redisCache = new Map<string, string>();
  await redlock.using(['warm:' + key], 3000, async () => {
    await this.cacheStore.set(key, value, 60);
    redisCache.set(key, value);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'set and hset on this.redisService and on a redisClient parameter typed any',
      code: `${header}export async function warm(this: any, redisClient: any, key: string, value: string) {
  await redlock.using(['warm:' + key], 3000, async () => {
    await this.redisService.set(key, value, 60);
    await redisClient.hset('warm-index', key, value);
  });
}`,
      errors: [unfenced(6), unfenced(7)],
    },
  ],
});
