/**
 * Lock helpers that take several locks and say so in the plural (`withLocks(keys, fn)`,
 * `ctx.usingLocks(lists, fn)` on a request context nothing resolves): when the helper cannot be
 * read, its name says the callback runs under the locks, as the singular's does. Names that only
 * contain the word (`withBlocks`, `usingLockers`) say nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a plural lock helper', () => {
  it('runs its callback under the locks when nothing else is known of it', async () => {
    current = project({
      'src/boards.ts': `import { withLocks, withBlocks, usingLockers } from 'board-kit';
import { Pool } from 'pg';
const pool = new Pool();

export async function pin(ctx: any, boardId: string, cardId: string) {
  return ctx.usingLocks([['board:' + boardId], ['card:' + cardId]], async () => {
    await pool.query('UPDATE cards SET pinned = $1 WHERE id = $2', [boardId, cardId]);
  });
}

export async function move(boardId: string, cardId: string) {
  await withLocks(['board:' + boardId], async () => {
    await pool.query('UPDATE cards SET board_id = $1 WHERE id = $2', [boardId, cardId]);
  });
  await withBlocks([boardId], async () => {
    await pool.query('UPDATE boards SET layout = $1 WHERE id = $2', ['grid', boardId]);
  });
  await usingLockers([boardId], async () => {
    await pool.query('UPDATE boards SET shelf = $1 WHERE id = $2', ['top', boardId]);
  });
}
`,
    });
    const results = await current.lint('src/boards.ts');
    expect(findings(results.get('src/boards.ts'))).toEqual(['7 fencelint/require-fence-condition', '13 fencelint/require-fence-condition']);
  });
});
