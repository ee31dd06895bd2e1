/**
 * A project class that wraps a Redis client and hands out its batches (`pipeline()`, `multi()`):
 * a batch taken from the wrapper in another module is a batch of that client, so the commands
 * queued on it are writes. Only methods named like a client factory of the catalog are asked;
 * other methods of the wrapper are not summarised to learn what they return.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const wrapper = `import Redis from 'ioredis';

export class KeyStore {
  private readonly client = new Redis();

  async claim(key: string, seconds: number) {
    return this.client.set(key, '1', 'EX', seconds, 'NX');
  }

  pipeline() {
    return this.client.pipeline();
  }

  async readAll(pattern: string) {
    return this.client.keys(pattern);
  }
}
`;

describe('batches handed out by a wrapper of a Redis client', () => {
  it('commands queued on the wrapper\'s pipeline under a lock are writes', async () => {
    current = project({
      'src/key-store.ts': wrapper,
      'src/rooms.ts': `import { KeyStore } from './key-store';

export class Rooms {
  constructor(private readonly store: KeyStore) {}

  async resetAll(ids: string[]) {
    const lock = await this.store.claim('lock:rooms-reset', 10);
    if (!lock) return;
    const batch = this.store.pipeline();
    for (const id of ids) batch.hset('room:' + id, { state: 'idle' });
    await batch.exec();
  }
}
`,
    });
    const results = await current.lint('src/rooms.ts');
    expect(findings(results.get('src/rooms.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a batch taken with no lock held is not reported', async () => {
    current = project({
      'src/key-store.ts': wrapper,
      'src/rooms.ts': `import { KeyStore } from './key-store';

export class Rooms {
  constructor(private readonly store: KeyStore) {}

  async resetAll(ids: string[]) {
    const batch = this.store.pipeline();
    for (const id of ids) batch.hset('room:' + id, { state: 'idle' });
    await batch.exec();
  }

  async release() {
    await this.store.claim('lock:rooms-reset', 10);
  }
}
`,
    });
    const results = await current.lint('src/rooms.ts');
    expect(findings(results.get('src/rooms.ts'))).toEqual([]);
  });
});
