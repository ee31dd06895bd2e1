/**
 * A file can take a lock without naming one: `runExclusive('digest', async () => ...)` comes from
 * the project's own job module, which takes a PostgreSQL advisory lock inside. The caller's text
 * has no lock word, so the file-level hint alone would skip it; the import, summarised as a
 * callback acquire, is what puts the file under analysis. An import of plain code from the same
 * module, or of a module that names no lock, leaves a file of plain code unanalysed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const jobs = `import { Pool } from 'pg';
export const pool = new Pool();
export async function runExclusive<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [name]);
    if (!rows[0].ok) return undefined;
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    client.release();
  }
}
export function jobName(kind: string, day: string): string {
  return kind + ':' + day;
}
`;

describe('a lock helper imported under a name that says nothing of locks', () => {
  it('opens the file to analysis: the writes its callback makes are reported', async () => {
    current = project({
      'src/jobs/scheduler.ts': jobs,
      'src/digest/send-digest.ts': `import { pool, runExclusive } from '../jobs/scheduler';

export async function sendDigest(day: string, body: string) {
  await runExclusive('digest:' + day, async () => {
    await pool.query('UPDATE digests SET body = $1, sent = true WHERE day = $2', [body, day]);
  });
}
`,
    });
    const results = await current.lint('src/digest/send-digest.ts');
    expect(findings(results.get('src/digest/send-digest.ts'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('also through a barrel that re-exports the helper', async () => {
    current = project({
      'src/jobs/scheduler.ts': jobs,
      'src/jobs/index.ts': `export { runExclusive, pool } from './scheduler';
`,
      'src/digest/send-digest.ts': `import { pool, runExclusive } from '../jobs';

export async function sendDigest(day: string, body: string) {
  await runExclusive('digest:' + day, async () => {
    await pool.query('UPDATE digests SET body = $1 WHERE day = $2', [body, day]);
  });
}
`,
    });
    const results = await current.lint('src/digest/send-digest.ts');
    expect(findings(results.get('src/digest/send-digest.ts'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('through a namespace import, and through CommonJS require', async () => {
    current = project({
      'src/jobs/scheduler.ts': jobs,
      'src/digest/send-digest.ts': `import * as jobs from '../jobs/scheduler';

export async function sendDigest(day: string, body: string) {
  await jobs.runExclusive('digest:' + day, async () => {
    await jobs.pool.query('UPDATE digests SET body = $1 WHERE day = $2', [body, day]);
  });
}
`,
      'src/digest/resend.js': `const { pool, runExclusive } = require('../jobs/scheduler');

async function resend(day, body) {
  await runExclusive('digest:' + day, async () => {
    await pool.query('UPDATE digests SET body = $1 WHERE day = $2', [body, day]);
  });
}
module.exports = { resend };
`,
    });
    const results = await current.lint('src/digest/send-digest.ts', 'src/digest/resend.js');
    expect(findings(results.get('src/digest/send-digest.ts'))).toEqual(['5 fencelint/require-fence-condition']);
    expect(findings(results.get('src/digest/resend.js'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('an import of plain code from the same module, or from a module naming no lock, leaves the file alone', async () => {
    current = project({
      'src/jobs/scheduler.ts': jobs,
      'src/util/text.ts': `export const trim = (s: string) => s.trim();
`,
      'src/digest/store.ts': `import { pool, jobName } from '../jobs/scheduler';
import { trim } from '../util/text';

export async function saveDigest(day: string, body: string) {
  await pool.query('UPDATE digests SET body = $1 WHERE day = $2', [trim(body), jobName('digest', day)]);
}
`,
    });
    const results = await current.lint('src/digest/store.ts');
    expect(findings(results.get('src/digest/store.ts'))).toEqual([]);
  });
});
