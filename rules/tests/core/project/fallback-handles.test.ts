/**
 * A helper that takes a lock only when its caller has not handed one in
 * (`const release = opts?.release ?? (await this.lock(id))`) and gives it back in `finally` holds
 * nothing for its callers, also when it returns a value from inside the `try`: the `finally` runs
 * first. Its own write is under the lock; the caller's writes after the call are not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a handle taken as the fallback of one handed in', () => {
  it('is released by the helper: the caller holds no lock after the call', async () => {
    current = project({
      'src/locks.ts': `import Redis from 'ioredis';
const redis = new Redis();
export type Release = () => Promise<void>;
export async function takeBoardLock(board: string): Promise<Release> {
  const owner = String(process.pid);
  const ok = await redis.set('board:' + board, owner, 'EX', 10, 'NX');
  if (!ok) throw new Error('board busy');
  return async () => {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end', 1, 'board:' + board, owner);
  };
}
`,
      'src/boards.ts': `import { Pool } from 'pg';
import { takeBoardLock, type Release } from './locks';
const pool = new Pool();
export class Boards {
  async saveLayout(board: string, layout: string, opts?: { release?: Release }) {
    const release = opts?.release ?? (await takeBoardLock(board));
    try {
      await pool.query('UPDATE boards SET layout = $1 WHERE id = $2', [layout, board]);
      return { saved: true };
    } finally {
      await release();
    }
  }
}
`,
      'src/publisher.ts': `import { Pool } from 'pg';
import { Boards } from './boards';
const pool = new Pool();
export class Publisher {
  constructor(private boards: Boards) {}
  async publish(board: string, layout: string, user: string) {
    await this.boards.saveLayout(board, layout);
    await pool.query('UPDATE users SET last_published = $1 WHERE id = $2', [board, user]);
  }
}
`,
    });
    const results = await current.lint('src/boards.ts', 'src/publisher.ts');
    expect(findings(results.get('src/boards.ts'))).toEqual(['8 fencelint/require-fence-condition']);
    expect(findings(results.get('src/publisher.ts'))).toEqual([]);
  });
});
