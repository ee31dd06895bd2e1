/**
 * A project's Redis wrapper whose `set(key, value, options)` turns its options into flags
 * (`{ NX: true, PX }` becomes `'NX', 'PX', ms`) and hands them to the client: a caller that
 * passes `NX` takes the lock through it, as with the client itself, so what it writes before the
 * release is a write under that lease. A call without `NX` is a plain write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const store = `import Redis from 'ioredis';
export class KeyStore {
  private readonly redis = new Redis();
  async set(key: string, value: string, options?: { NX?: boolean; PX?: number }) {
    if (!options) return this.redis.set(key, value);
    const flags: Array<string | number> = [];
    if (options.NX) flags.push('NX');
    if (options.PX) flags.push('PX', options.PX);
    return this.redis.set(key, value, ...(flags as ['NX']));
  }
  async putJson(key: string, value: unknown) {
    await this.redis.set(key, JSON.stringify(value));
  }
  async del(key: string) {
    await this.redis.del(key);
  }
}
`;

describe('SET NX through a wrapper that forwards its options', () => {
  it("reads the caller's NX as the lock and its later write as under it", async () => {
    current = project({
      'src/key-store.ts': store,
      'src/tables.ts': `import { KeyStore } from './key-store';
export class Tables {
  constructor(private readonly store: KeyStore) {}
  async deal(tableId: string, hand: unknown) {
    const taken = await this.store.set('lock:table:' + tableId, '1', { NX: true, PX: 5000 });
    if (taken !== 'OK') throw new Error('busy');
    try {
      await this.store.putJson('table:' + tableId, hand);
    } finally {
      await this.store.del('lock:table:' + tableId);
    }
  }
  async remember(tableId: string, hand: unknown) {
    await this.store.set('last:' + tableId, JSON.stringify(hand), { PX: 60000 });
    await this.store.putJson('table:' + tableId, hand);
  }
}
`,
    });
    const results = await current.lint('src/tables.ts');
    expect(findings(results.get('src/tables.ts'))).toEqual(['8 fencelint/require-fence-condition', '10 fencelint/no-release-by-name']);
  });
});
