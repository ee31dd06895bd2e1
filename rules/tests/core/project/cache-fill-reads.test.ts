/**
 * A read-through cache: a method named for reading (`catalog.hget(kind, id, field)`) that, on a
 * miss, loads the database and keeps what it loaded in Redis. A call of it under a lock reads; the
 * cache write is the reader's own upkeep. A method named for reading that also writes the database,
 * or one that makes what is missing (`getOrCreate...`), still writes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/catalog.ts': `import Redis from 'ioredis';
import { Pool } from 'pg';

const pool = new Pool();

export class Catalog {
  constructor(private readonly redis: Redis) {}

  async hget(kind: string, id: string, field: string) {
    const cached = await this.redis.hget(kind + ':' + id, field);
    if (cached !== null) return cached;
    const { rows } = await pool.query('SELECT value FROM fields WHERE kind = $1 AND id = $2 AND name = $3', [kind, id, field]);
    await this.redis.hset(kind + ':' + id, field, rows[0].value);
    return rows[0].value;
  }

  async getOrCreateShelf(id: string, label: string) {
    const cached = await this.redis.get('shelf:' + id);
    if (cached !== null) return cached;
    await this.redis.set('shelf:' + id, label);
    return label;
  }

  async loadAndStamp(id: string) {
    const { rows } = await pool.query('SELECT value FROM fields WHERE id = $1', [id]);
    await pool.query('UPDATE fields SET read_count = $1 WHERE id = $2', [rows.length, id]);
    return rows;
  }
}
`,
};

describe('a read that fills a cache', () => {
  it('is a read at the call, while a reader that makes or writes rows still writes', async () => {
    current = project({
      ...files,
      'src/shelves.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Catalog } from './catalog';

const redis = new Redis();
const redlock = new Redlock([redis]);
const catalog = new Catalog(redis);

export async function inspect(id: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const label = await catalog.hget('shelf', id, 'label');
    const shelf = await catalog.getOrCreateShelf(id, String(label));
    const rows = await catalog.loadAndStamp(id);
    return [label, shelf, rows];
  });
}
`,
    });
    const results = await current.lint('src/shelves.ts');
    expect(findings(results.get('src/shelves.ts'))).toEqual(['12 fencelint/require-fence-condition', '13 fencelint/require-fence-condition']);
  });
});
