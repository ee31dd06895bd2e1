/**
 * A lease row given back through knex's `update`: an `update({ holder: null })` of the row by
 * its key alone frees whoever holds it now, as `UPDATE ... SET holder = NULL WHERE key = $1`
 * does in SQL text.
 */
import releaseRule from '../../../src/rules/no-release-by-name.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const head = `import knex from 'knex';
const db = knex({ client: 'pg', connection: process.env.PG_URL });
async function takeBoard(boardId: string, me: string) {
  const { rows } = await db.raw(
    "UPDATE board_leases SET holder = ?, until = now() + interval '1 minute' WHERE board_id = ? AND (holder IS NULL OR until < now()) RETURNING board_id",
    [me, boardId],
  );
  return rows.length > 0;
}
`;

ruleTester.run('knex updates that empty a lease row by its key', releaseRule, {
  valid: [
    {
      name: 'the holder named in the where: only this holder\'s row is freed',
      code: `${head}
export async function giveBack(boardId: string, me: string) {
  await db('board_leases').where({ board_id: boardId, holder: me }).update({ holder: null, until: null });
}`,
    },
    {
      name: 'a row of a table that is no lock table, emptied by its key',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function unassign(boardId: string) {
  await db('boards').where({ id: boardId }).update({ owner: null });
}`,
    },
    {
      name: 'a renewal that moves the expiry on is no release',
      code: `${head}
export async function extendBoard(boardId: string) {
  await db('board_leases').where({ board_id: boardId }).update({ until: db.raw("now() + interval '1 minute'") });
}`,
    },
  ],
  invalid: [
    {
      name: 'holder and expiry set to null by the board id alone',
      code: `${head}
export async function giveBack(boardId: string) {
  await db('board_leases').where({ board_id: boardId }).update({ holder: null, until: null });
}`,
      errors: [{ messageId: 'leaseClear', line: 12 }],
    },
    {
      name: 'a held flag cleared by the key alone, on a table named for locks',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function unlockBoard(boardId: string) {
  await db('board_locks').where('board_id', boardId).update({ locked: false });
}`,
      errors: [{ messageId: 'leaseClear', line: 4 }],
    },
  ],
});
