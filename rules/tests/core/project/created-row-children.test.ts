/**
 * A row keyed by the id of a record the call path has just created belongs to that call: nobody
 * else knows the id yet, so an upsert of the new record's child row (`ON CONFLICT (article_id)`)
 * has no newer row to overwrite. The record stays the holder's when it is read back by the id the
 * insert returned, carried in an object a helper returns, and handed through the creating
 * function's own steps in a `let`. The same upsert for an existing record stays reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/guard.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';

const redlock = new Redlock([new Redis()]);

export function underLock<T>(key: string, body: () => Promise<T>): Promise<T> {
  return redlock.using([key], 15000, body);
}
`,
  'src/db.ts': `import { Pool } from 'pg';

export const pool = new Pool();
`,
  'src/store/rows.ts': `type Table = { rawInsert(data: object): Promise<string>; findOne(id: string): Promise<{ id: string; text: string }> };

export async function insertAndRead(table: Table, data: object) {
  const newId = await table.rawInsert(data);
  const row = await table.findOne(newId);
  return row;
}

export async function insertWithContext(table: Table, data: object, context: object) {
  const created = await insertAndRead(table, data);
  const props = { ...context, record: created };
  return props;
}
`,
  'src/store/summaries.ts': `import { pool } from '../db';

export async function saveSummary(articleId: string, body: string) {
  await pool.query('INSERT INTO summaries (article_id, body) VALUES ($1, $2) ON CONFLICT (article_id) DO UPDATE SET body = $2', [articleId, body]);
}

export async function refreshSummary(article: { id: string; text: string }) {
  await saveSummary(article.id, article.text.slice(0, 200));
}
`,
  'src/articles.ts': `import { insertWithContext } from './store/rows';
import { refreshSummary } from './store/summaries';

type Table = Parameters<typeof insertWithContext>[0];

async function addLabels(article: { id: string; text: string }) {
  return { ...article, labels: [] };
}

export async function createArticle(table: Table, data: { text: string }, context: object) {
  const props = await insertWithContext(table, data, context);
  let article = props.record;
  article = await addLabels(article);
  await refreshSummary(article);
  return article;
}

export async function touchArticle(article: { id: string; text: string }) {
  await refreshSummary(article);
}
`,
};

describe('a child row of a record the call has just created', () => {
  it('is not reported when the creating function upserts it by the new id', async () => {
    current = project({
      ...files,
      'src/publish.ts': `import { underLock } from './guard';
import { createArticle } from './articles';

export function publishWeekly(table: Parameters<typeof createArticle>[0]) {
  return underLock('weekly-article', async () => {
    await createArticle(table, { text: 'This week' }, {});
  });
}
`,
    });
    const results = await current.lint('src/publish.ts');
    expect(findings(results.get('src/publish.ts'))).toEqual([]);
  });

  it('is still reported for a record that already existed', async () => {
    current = project({
      ...files,
      'src/publish.ts': `import { underLock } from './guard';
import { touchArticle } from './articles';

export function republish(article: { id: string; text: string }) {
  return underLock('article:' + article.id, async () => {
    await touchArticle(article);
  });
}
`,
    });
    const results = await current.lint('src/publish.ts');
    expect(findings(results.get('src/publish.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
