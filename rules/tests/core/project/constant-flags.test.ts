/**
 * Flags under a lock: a Redis string SET of a constant (`SET pause:7 'on' EX 3600`), made in the
 * section or by the project's own key-value helper that the section hands the constant. Every
 * holder stores the same value, so a late SET stores nothing older than a newer holder's. A value
 * computed from data, through the same helper or directly, is still a late write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a constant stored as a Redis flag', () => {
  it('is no late write, directly or through a helper; data stored the same way is', async () => {
    current = project({
      'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
      'src/kv.ts': `import { redis } from './redis';
export async function put(key: string, value: string, ttl?: number) {
  if (ttl) await redis.set(key, value, 'EX', ttl);
  else await redis.set(key, value);
}
export async function putLater(key: string, value: string) {
  await put(key, value, 60);
}
`,
      'src/billing.ts': `import Redlock from 'redlock';
import { redis } from './redis';
import { put, putLater } from './kv';
const redlock = new Redlock([redis]);

export async function charge(accountId: string, total: number) {
  await redlock.using(['bill:' + accountId], 5000, async () => {
    await put('pause:' + accountId, 'on', 3600);
    await putLater('cooling:' + accountId, \`yes\`);
    await redis.set('paused:' + accountId, '1', 'EX', 60);
    await put('total:' + accountId, String(total), 3600);
    await putLater('last:' + accountId, String(total));
    await redis.set('sum:' + accountId, String(total));
  });
}
`,
    });
    const results = await current.lint('src/billing.ts');
    expect(findings(results.get('src/billing.ts'))).toEqual(['11 fencelint/require-fence-condition', '12 fencelint/require-fence-condition', '13 fencelint/require-fence-condition']);
  });
});
