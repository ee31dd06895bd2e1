/**
 * Statements that quote identifiers the Postgres way and mark values with positional `?`
 * (a wrapper numbers them before sending; SQLite accepts both). Neither dialect reads such text
 * as written, so the `?` are read as `$1, $2, ...`: the write is judged like any other. No edit
 * is offered on such text, since it no longer maps onto the file.
 */
import fenceRule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
const redlock = new Redlock([new Redis()]);
const pool = new Pool();
`;

ruleTester.run('require-fence-condition (quoted identifiers, positional placeholders)', fenceRule, {
  valid: [
    {
      name: 'an insert written that way overwrites nothing',
      code: `${header}export async function note(boardId: string, text: string) {
  await redlock.using(['board:' + boardId], 5000, async () => {
    await pool.query('INSERT INTO "boardNotes" ("boardId", "text") VALUES (?, ?)', [boardId, text]);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'updates written that way, one with a join through FROM',
      code: `${header}export async function pin(boardId: string, noteId: string) {
  await redlock.using(['board:' + boardId], 5000, async () => {
    await pool.query('UPDATE "boardNotes" SET "pinned" = 1 WHERE "id" = ?', [noteId]);
    await pool.query('UPDATE "boardNotes" AS n SET "pinned" = 0 FROM "boards" b WHERE n."boardId" = b."id" AND n."id" != ? AND b."id" = ?', [noteId, boardId]);
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 8 },
        { messageId: 'missingFenceNoToken', line: 9 },
      ],
    },
  ],
});
