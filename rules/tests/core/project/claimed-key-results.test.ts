/**
 * An idempotency claim: a request takes its key with a set-if-absent helper of the project's
 * cache service, runs, then stores its result under that same key (marking the claim done). That
 * write keeps the claim itself, as a renewal does; it is no write the lock protects. The key may
 * be computed again from the same request in a helper of the same class (`this.keyOf(request)`),
 * and the store go through the cache service of another module. A write of another key, or of a
 * key computed from another value, is still judged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const cache = `import Redis from 'ioredis';

export class ResponseCache {
  private readonly redis = new Redis();

  async setIfNotExist(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.redis.set(key, value, 'PX', ttlMs, 'NX');
    return reply === 'OK';
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(key, value, 'PX', ttlMs);
  }
}
`;

const guard = (store: string, helper = '') => `import { randomUUID } from 'node:crypto';
import { ResponseCache } from './cache';

interface Request { headers: Record<string, string>; path: string; userId: string }

export class IdempotencyGuard {
  constructor(private readonly cache: ResponseCache) {}

  private keyOf(request: Request): string {
    return 'idem:' + request.userId + ':' + request.headers['idempotency-key'];
  }

  async handle(request: Request, run: () => Promise<unknown>): Promise<unknown> {
    const key = this.keyOf(request);
    const claimed = await this.cache.setIfNotExist(key, JSON.stringify({ state: 'running', owner: randomUUID() }), 60000);
    if (!claimed) throw new Error('a request with this key is running');
    const body = await run();
${store}
    return body;
  }
${helper}}
`;

async function lintGuard(store: string, helper?: string, cacheModule = cache): Promise<string[]> {
  current = project({ 'src/cache.ts': cacheModule, 'src/guard.ts': guard(store, helper) });
  const results = await current.lint('src/guard.ts');
  return findings(results.get('src/guard.ts')).filter((f) => f.endsWith('require-fence-condition'));
}

describe('a result stored under the key an idempotency claim took', () => {
  it('keeps the claim when stored through the cache service in the same method', async () => {
    expect(await lintGuard(`    await this.cache.set(key, JSON.stringify({ state: 'done', body }), 86400000);`)).toEqual([]);
  });

  it('keeps the claim when a helper of the class computes the key again from the same request', async () => {
    const helper = `
  private async remember(request: Request, body: unknown): Promise<void> {
    const key = this.keyOf(request);
    await this.cache.set(key, JSON.stringify({ state: 'done', body }), 86400000);
  }
`;
    expect(await lintGuard(`    await this.remember(request, body);`, helper)).toEqual([]);
  });

  it('still judges a write of another key', async () => {
    expect(await lintGuard(`    await this.cache.set('last-response:' + request.userId, JSON.stringify(body), 86400000);`)).toEqual(['18 fencelint/require-fence-condition']);
  });

  it('still judges a helper that computes the key from another request', async () => {
    const helper = `
  private async remember(request: Request, body: unknown): Promise<void> {
    const key = this.keyOf(request);
    await this.cache.set(key, JSON.stringify({ state: 'done', body }), 86400000);
  }
`;
    expect(await lintGuard(`    await this.remember({ ...request, userId: 'audit' }, body);`, helper)).toEqual(['24 fencelint/require-fence-condition']);
  });

  it('still judges a store of the argument when the claim is taken on a key built from it', async () => {
    const prefixed = cache.replace("this.redis.set(key, value, 'PX', ttlMs, 'NX')", "this.redis.set('running:' + key, value, 'PX', ttlMs, 'NX')");
    expect(await lintGuard(`    await this.cache.set(key, JSON.stringify({ state: 'done', body }), 86400000);`, '', prefixed)).toEqual(['18 fencelint/require-fence-condition']);
  });
});
