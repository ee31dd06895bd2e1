/**
 * A helper that takes one redlock lock per group of keys by wrapping its callback in a loop (each
 * new wrapper runs the previous one inside `redlock.using`, the first being the callback handed in)
 * and then calls the last wrapper: the callback runs under every lock, so the helper is a callback
 * acquire for its callers. A loop that wraps the callback in something that takes no lock, or a
 * helper that builds the wrappers and never calls them, takes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/db.ts': `import { Pool } from 'pg';
export const pool = new Pool();
`,
  'src/nested-locks.ts': `import type Redlock from 'redlock';
import type { RedlockAbortSignal } from 'redlock';

export function holdAll<T>(redlock: Redlock, groups: string[][], body: (held: RedlockAbortSignal[]) => Promise<T>) {
  let step = body;
  for (const keys of groups) {
    const inner = step;
    step = (held) => redlock.using(keys, 6000, (signal) => inner([...held, signal]));
  }
  return step([]);
}

export function timedAll<T>(groups: string[][], body: (marks: number[]) => Promise<T>) {
  let step = body;
  for (const keys of groups) {
    const inner = step;
    step = async (marks) => inner([...marks, keys.length]);
  }
  return step([]);
}

export function prepareAll<T>(redlock: Redlock, groups: string[][], body: (held: RedlockAbortSignal[]) => Promise<T>) {
  let step = body;
  for (const keys of groups) {
    const inner = step;
    step = (held) => redlock.using(keys, 6000, (signal) => inner([...held, signal]));
  }
  return step;
}
`,
  'src/app-locks.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { holdAll as holdAllWith } from './nested-locks';

const redlock = new Redlock([new Redis()]);

export function holdAll<T>(groups: string[][], body: (held: unknown[]) => Promise<T>) {
  return holdAllWith(redlock, groups, body);
}
`,
};

describe('locks nested in a loop of wrappers', () => {
  it('run the callback under them, also through a wrapper that passes it on', async () => {
    current = project({
      ...files,
      'src/teams.ts': `import { holdAll } from './app-locks';
import { timedAll } from './nested-locks';
import { pool } from './db';

export async function rename(teamId: string, name: string) {
  await holdAll([['team:' + teamId]], async () => {
    await pool.query('UPDATE teams SET name = $1 WHERE id = $2', [name, teamId]);
  });
}

export async function retitle(teamId: string, title: string) {
  await timedAll([['team:' + teamId]], async () => {
    await pool.query('UPDATE teams SET title = $1 WHERE id = $2', [title, teamId]);
  });
}
`,
    });
    const results = await current.lint('src/teams.ts');
    expect(findings(results.get('src/teams.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('take nothing while the helper only hands the wrappers back', async () => {
    current = project({
      ...files,
      'src/boards.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { prepareAll } from './nested-locks';
import { pool } from './db';

const redlock = new Redlock([new Redis()]);

export async function archive(boardId: string) {
  const later = prepareAll(redlock, [['board:' + boardId]], async () => {
    await pool.query('UPDATE boards SET archived = $1 WHERE id = $2', [true, boardId]);
  });
  return later;
}
`,
    });
    const results = await current.lint('src/boards.ts');
    expect(findings(results.get('src/boards.ts'))).toEqual([]);
  });
});
