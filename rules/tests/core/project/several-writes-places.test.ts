/**
 * A call under a lock that leads to unfenced writes in more than one module is reported once,
 * naming the first write and listing the others. The list groups the places by file: those in the
 * first write's file come first as bare lines, and each other file is named before its lines, so
 * a bare line never reads as a line of the wrong file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('the places of several unfenced writes behind one call', () => {
  it('names each file before its lines', async () => {
    current = project({
      'src/cookies.ts': `import { Pool } from 'pg';
const pool = new Pool();
export async function keepCookies(jar: string): Promise<void> {
  await pool.query('UPDATE sessions SET jar = $1 WHERE id = 1', [jar]);
}
`,
      'src/dispatch.ts': `import { Pool } from 'pg';
import { keepCookies } from './cookies';
const pool = new Pool();
export async function dispatch(id: string, jar: string): Promise<void> {
  await pool.query("UPDATE drafts SET state = 'gone' WHERE id = $1", [id]);
  await keepCookies(jar);
  await pool.query("UPDATE outbox SET state = 'sent' WHERE id = $1", [id]);
  await pool.query('UPDATE stats SET sent = $1 WHERE id = 1', [id]);
}
`,
      'src/cron.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { dispatch } from './dispatch';
const redlock = new Redlock([new Redis()]);
export async function tick(id: string, jar: string) {
  await redlock.using(['dispatch'], 60000, async () => {
    await dispatch(id, jar);
  });
}
`,
    });
    const results = await current.lint('src/cron.ts');
    const messages = (results.get('src/cron.ts') ?? []).map((m) => m.message);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('(dispatch.ts:5) and 3 more (:7, :8, cookies.ts:4)');
  });
});
