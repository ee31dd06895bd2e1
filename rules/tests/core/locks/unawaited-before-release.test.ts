/**
 * A same-file async function the section calls without `await` just before it releases the lock
 * runs its code after its first `await` once the lock is given back: those writes are not the
 * section's. Awaited, or with an `await` between the call and the release, it runs under the lock;
 * a write it sends before its first `await` is sent while the lock is held.
 */
import { describe } from 'vitest';
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
async function tally(pollId: string, choice: string) {
  const { rows } = await pool.query('SELECT votes FROM polls WHERE id = $1', [pollId]);
  await pool.query('UPDATE polls SET leader = $1 WHERE id = $2', [rows[0].votes > 10 ? choice : null, pollId]);
}
`;

describe('calls left running when the lock is released', () => {
  ruleTester.run('require-fence-condition: un-awaited calls before the release', rule, {
    valid: [
      {
        name: 'the promise kept in a const and returned after the release',
        code: `${header}
export async function vote(pollId: string, choice: string) {
  const lock = await redlock.acquire(['poll:' + pollId], 5000);
  const pending = tally(pollId, choice);
  await lock.release();
  return pending;
}`,
      },
      {
        name: 'the promise dropped with a catch, the release on the next line',
        code: `${header}
export async function vote(pollId: string, choice: string) {
  const lock = await redlock.acquire(['poll:' + pollId], 5000);
  tally(pollId, choice).catch(() => undefined);
  await lock.release();
}`,
      },
    ],
    invalid: [
      {
        name: 'awaited before the release',
        code: `${header}
export async function vote(pollId: string, choice: string) {
  const lock = await redlock.acquire(['poll:' + pollId], 5000);
  await tally(pollId, choice);
  await lock.release();
}`,
        errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
      },
      {
        name: 'not awaited, but the section awaits something else before the release',
        code: `${header}
export async function vote(pollId: string, choice: string) {
  const lock = await redlock.acquire(['poll:' + pollId], 5000);
  const pending = tally(pollId, choice);
  await pool.query('INSERT INTO poll_log (poll_id) VALUES ($1)', [pollId]);
  await lock.release();
  return pending;
}`,
        errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
      },
      {
        name: 'a write sent before the first await of the un-awaited function is sent under the lock',
        code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
async function close(pollId: string) {
  await pool.query("UPDATE polls SET state = 'closed' WHERE id = $1", [pollId]);
  await pool.query("UPDATE polls SET closed_note = 'late' WHERE id = $1", [pollId]);
}
export async function finish(pollId: string) {
  const lock = await redlock.acquire(['poll:' + pollId], 5000);
  const pending = close(pollId);
  await lock.release();
  return pending;
}`,
        errors: [{ messageId: 'missingFenceNoToken', line: 6 }],
      },
    ],
  });
});
