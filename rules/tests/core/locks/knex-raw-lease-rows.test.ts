/**
 * A lease row claimed through knex's `raw` SQL text: the raw `UPDATE ..._leases SET holder = ?`
 * takes the lease as the same text sent through pg does (knex itself is no lock, but what it
 * sends can be), so the writes of the claiming helper's caller run under the lease.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
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

ruleTester.run('knex raw lease claims open a section', fenceRule, {
  valid: [
    {
      name: 'knex raw SQL that only reads a lease table takes nothing',
      code: `import knex from 'knex';
const db = knex({ client: 'pg' });
export async function repaint(boardId: string, colour: string) {
  const { rows } = await db.raw('SELECT holder FROM board_leases WHERE board_id = ?', [boardId]);
  if (rows.length > 0) return;
  await db('boards').where({ id: boardId }).update({ colour });
}`,
    },
  ],
  invalid: [
    {
      name: 'the caller of a helper that claims the row through db.raw writes under the lease',
      code: `${head}
export async function repaint(boardId: string, me: string, colour: string) {
  if (!(await takeBoard(boardId, me))) return;
  await db('boards').where({ id: boardId }).update({ colour });
  await db('board_leases').where({ board_id: boardId, holder: me }).update({ holder: null });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 13 }],
    },
  ],
});
