/**
 * A lock row whose acquire stores a holder id made for that acquire (the job's name joined to
 * the clock, or a random value), inserted or set when the upsert takes an expired row over. A
 * release that compares that column besides the lock's name deletes only its own holder's row;
 * a release by the name alone, or by a column every acquire fills alike, still frees whoever
 * holds the lock now.
 */
import rule from '../../../src/rules/no-release-by-name.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const acquire = (holder: string) => `import { Pool } from 'pg';
const pool = new Pool();
export async function takeRunLock(task: string, ttlMs: number) {
  const holder = ${holder};
  const now = new Date();
  const until = new Date(now.getTime() + ttlMs);
  const taken = await pool.query(
    \`INSERT INTO "TaskLock" ("task", "holderRef", "takenAt", "expiresAt") VALUES ($1, $2, $3, $4)
     ON CONFLICT ("task") DO UPDATE SET "holderRef" = $2, "takenAt" = $3, "expiresAt" = $4
     WHERE "TaskLock"."expiresAt" < $3\`,
    [task, holder, now, until],
  );
  return taken.rowCount === 1 ? holder : undefined;
}
`;

ruleTester.run('no-release-by-name (per-acquire holder ids)', rule, {
  valid: [
    {
      name: "a holder id joined from the task and the clock: the delete by it is the holder's own",
      code: `${acquire('`${task}:${Date.now()}`')}export async function dropRunLock(task: string, holder: string) {
  await pool.query('DELETE FROM "TaskLock" WHERE "task" = $1 AND "holderRef" = $2', [task, holder]);
}`,
    },
    {
      name: 'the same with a random holder id concatenated to the host name',
      code: `import { randomUUID } from 'node:crypto';
${acquire("process.env.HOSTNAME + '/' + randomUUID()")}export async function dropRunLock(task: string, holder: string) {
  await pool.query('DELETE FROM "TaskLock" WHERE "task" = $1 AND "holderRef" = $2', [task, holder]);
}`,
    },
  ],
  invalid: [
    {
      name: 'the delete by the task alone frees whoever holds it now',
      code: `${acquire('`${task}:${Date.now()}`')}export async function dropRunLock(task: string) {
  await pool.query('DELETE FROM "TaskLock" WHERE "task" = $1', [task]);
}`,
      errors: [{ messageId: 'sqlRelease' }],
    },
    {
      name: 'a holder column every acquire fills with the same constant names no holder',
      code: `${acquire("'scheduler'")}export async function dropRunLock(task: string, holder: string) {
  await pool.query('DELETE FROM "TaskLock" WHERE "task" = $1 AND "holderRef" = $2', [task, holder]);
}`,
      errors: [{ messageId: 'sqlRelease' }],
    },
  ],
});
