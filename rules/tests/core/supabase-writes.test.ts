/**
 * Supabase (PostgREST) writes: `client.from(table).update(values)` with its filters chained after
 * the write (`.eq('id', id)`), so the fence is one more filter (`.lt('fence_token', token)`). The
 * client is known by its import (`createClient`) or, when nothing resolves it, by its name.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import staleRule from '../../src/rules/require-stale-check.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { createClient } from '@supabase/supabase-js';
const redlock = new Redlock([new Redis()]);
const counters = new Redis();
const db = createClient(process.env.SUPABASE_URL!, process.env.SUPABASE_SERVICE_KEY!);
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line, suggestions: [] });
const tokenUnused = (line: number) => ({ messageId: 'missingFence' as const, line });

ruleTester.run('require-fence-condition (Supabase)', fenceRule, {
  valid: [
    {
      name: 'a fence filter chained after the write, as lt, as filter(col, "lt", t), and reads under the lock',
      code: `${header}export async function renameBoard(boardId: string, title: string) {
  await redlock.using(['board:' + boardId], 8000, async () => {
    const epoch = await counters.incr('board-epoch:' + boardId);
    const current = await db.from('boards').select('title').eq('id', boardId).single();
    await db.from('boards').update({ title, epoch }).eq('id', boardId).lt('epoch', epoch);
    await db.from('board_titles').update({ title, epoch }).filter('epoch', 'lt', epoch).eq('board_id', boardId).select('id');
    return current;
  });
}`,
    },
    {
      name: 'an upsert that ignores duplicates only inserts; a lock table is upkeep; Array.from chains are no Supabase chains',
      code: `${header}export async function seedBoard(boardId: string, names: string[]) {
  await redlock.using(['board:' + boardId], 8000, async () => {
    await db.from('boards').upsert({ id: boardId, title: 'Untitled' }, { ignoreDuplicates: true });
    await db.from('board_locks').delete().eq('board_id', boardId);
    const unique = Array.from(new Set(names)).filter(Boolean);
    return unique;
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'update, delete and upsert under the lock with no fence filter',
      code: `${header}export async function archiveBoard(boardId: string) {
  await redlock.using(['board:' + boardId], 8000, async () => {
    const { error } = await db.from('boards').update({ state: 'archived' }).eq('id', boardId);
    if (error) throw error;
    await db.from('board_cards').delete().eq('board_id', boardId).select();
    await db.from('board_stats').upsert({ board_id: boardId, cards: 0 });
  });
}`,
      errors: [unfenced(9), unfenced(11), unfenced(12)],
    },
    {
      name: 'a client nothing resolves, known by its name; a token in scope that the filters leave out',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
import { supabaseAdmin } from '../lib/clients';
const redlock = new Redlock([new Redis()]);
const counters = new Redis();
export async function moveCard(cardId: string, column: string) {
  await redlock.using(['card:' + cardId], 8000, async () => {
    const fenceToken = await counters.incr('card-fence:' + cardId);
    await supabaseAdmin.from('cards').update({ column, fence_token: fenceToken }).eq('id', cardId);
  });
}`,
      errors: [
        {
          ...tokenUnused(9),
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `import Redlock from 'redlock';
import Redis from 'ioredis';
import { supabaseAdmin } from '../lib/clients';
const redlock = new Redlock([new Redis()]);
const counters = new Redis();
export async function moveCard(cardId: string, column: string) {
  await redlock.using(['card:' + cardId], 8000, async () => {
    const fenceToken = await counters.incr('card-fence:' + cardId);
    await supabaseAdmin.from('cards').update({ column, fence_token: fenceToken }).lt('fence_token', fenceToken).eq('id', cardId);
  });
}`,
            },
          ],
        },
      ],
    },
  ],
});

ruleTester.run('require-stale-check (Supabase and RETURNING rows)', staleRule, {
  valid: [
    {
      name: 'the rows a fenced write returns are destructured and their length decides',
      code: `${header}import { Pool } from 'pg';
const pool = new Pool();
export async function renameBoard(boardId: string, title: string) {
  await redlock.using(['board:' + boardId], 8000, async () => {
    const epoch = await counters.incr('board-epoch:' + boardId);
    const { data, error } = await db.from('boards').update({ title, epoch }).eq('id', boardId).lt('epoch', epoch).select('id');
    if (error) throw error;
    if (!data?.length) throw new Error('a newer holder renamed the board');
    const { rows } = await pool.query('UPDATE board_titles SET title = $1, epoch = $2 WHERE board_id = $3 AND epoch < $2 RETURNING board_id', [title, epoch, boardId]);
    if (rows.length === 0) throw new Error('a newer holder renamed the board');
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a fenced Supabase write whose refusal is never looked at',
      code: `${header}export async function renameBoard(boardId: string, title: string) {
  await redlock.using(['board:' + boardId], 8000, async () => {
    const epoch = await counters.incr('board-epoch:' + boardId);
    const { error } = await db.from('boards').update({ title, epoch }).eq('id', boardId).lt('epoch', epoch);
    if (error) throw error;
  });
}`,
      errors: [{ messageId: 'ignored', line: 10 }],
    },
  ],
});
