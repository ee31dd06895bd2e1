/**
 * A project's query wrapper: a method that runs one of its parameters as SQL on a SQL client
 * (`store.exec('write', 'UPDATE ...', [a, b])` over `pool.query({ text, values })`, the text
 * rewritten from `?` placeholders first). The statement a caller passes is its write, judged as
 * if the caller ran it on the pool: unfenced, fenced, or an insert that overwrites nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const store = `import { Pool } from 'pg';

export interface Store {
  exec(kind: 'read' | 'write', statement: string, args?: unknown[]): Promise<any>;
}

export class PgStore implements Store {
  private pool = new Pool();

  async exec(kind: 'read' | 'write', statement: string, args?: unknown[]): Promise<any> {
    let n = 0;
    statement = statement.replace(/\\?/g, () => '$' + ++n);
    const pool: Pool = this.pool;
    const result = await pool.query({ text: statement, values: args });
    return kind === 'read' ? result.rows : undefined;
  }
}

export const store: Store = new PgStore();
`;

const handler = `import Redis from 'ioredis';
import { store } from './store';

const redis = new Redis();

export async function rename(listId: string, title: string, fence: number) {
  if ((await redis.set('list:' + listId, '1', 'PX', 10_000, 'NX')) !== 'OK') return;
  try {
    await store.exec('write', 'UPDATE lists SET title = ? WHERE id = ?', [title, listId]);
    await store.exec('write', 'UPDATE lists SET title = ?, fence = ? WHERE id = ? AND fence < ?', [title, fence, listId, fence]);
    await store.exec('write', 'INSERT INTO list_events (list_id, title) VALUES (?, ?)', [listId, title]);
    await store.exec('read', 'SELECT title FROM lists WHERE id = ?', [listId]);
  } finally {
    await redis.del('list:' + listId);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a project query wrapper', () => {
  it('runs the statement its caller passes: the unfenced update is reported; the fenced one, the insert and the read are not', async () => {
    current = project({ 'store.ts': store, 'handler.ts': handler });
    const results = await current.lint('handler.ts');
    const fenceFindings = findings(results.get('handler.ts')).filter((f) => f.endsWith('require-fence-condition'));
    expect(fenceFindings).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a method that runs SQL of its own, not its parameter, is no wrapper', async () => {
    current = project({
      'store.ts': `import { Pool } from 'pg';
export class Audit {
  private pool = new Pool();
  async note(message: string) {
    const pool: Pool = this.pool;
    await pool.query('INSERT INTO audit (message) VALUES ($1)', [message]);
  }
}
export const audit = new Audit();
`,
      'handler.ts': `import Redis from 'ioredis';
import { audit } from './store';
const redis = new Redis();
export async function rename(listId: string) {
  const token = String(Math.random());
  if ((await redis.set('list:' + listId, token, 'PX', 10_000, 'NX')) !== 'OK') return;
  await audit.note('UPDATE lists SET title = 1');
}
`,
    });
    const results = await current.lint('handler.ts');
    expect(findings(results.get('handler.ts'))).toEqual([]);
  });
});
