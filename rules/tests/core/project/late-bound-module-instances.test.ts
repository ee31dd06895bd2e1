/**
 * A module variable declared without a value and given an instance later (`let store: Store;`
 * then `store = new PgStore()` in a branch of the module's code or in its setup function), then
 * exported: it is read as the first instance it is given, so a caller's `store.rename(...)` under a
 * lock is judged by that class's method.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const stores = `import { Pool } from 'pg';

export interface Store {
  rename(id: string, title: string): Promise<void>;
}

class PgStore implements Store {
  private pool = new Pool();
  async rename(id: string, title: string) {
    await this.pool.query('UPDATE shelves SET title = $1 WHERE id = $2', [title, id]);
  }
}

class MemoryStore implements Store {
  private titles = new Map<string, string>();
  async rename(id: string, title: string) {
    this.titles.set(id, title);
  }
}

let store: Store;
if (process.env.PG_URL) {
  store = new PgStore();
} else {
  store = new MemoryStore();
}

export { store };
`;

const handler = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { store } from './stores';

const redlock = new Redlock([new Redis()]);

export async function renameShelf(id: string, title: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    await store.rename(id, title);
  });
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a module variable given its instance later', () => {
  it('is read as that instance: its method writes under the lock of the caller', async () => {
    current = project({ 'stores.ts': stores, 'handler.ts': handler });
    const results = await current.lint('handler.ts');
    expect(findings(results.get('handler.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });
});
