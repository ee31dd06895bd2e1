/**
 * Lease checks made by a helper: a function of another module or of the same file that throws
 * when the abort signal it is handed has fired (`for (const s of signals) if (s.aborted) throw
 * s.error`, `signal.throwIfAborted()`), or returns whether it has. Called under redlock's `using`
 * with the signal the callback receives (or a list holding it), it is a check made in one step and
 * the write after it another: `no-check-then-write` reports the write. A signal that is not the
 * section's (an outer function's own parameter), or a helper that only logs, checks nothing.
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
  'src/signals.ts': `export function assertAllHeld(signals: AbortSignal[] = []) {
  for (const s of signals) {
    if (s.aborted) throw new Error('lease lost');
  }
}
export function noteAbort(signal: AbortSignal) {
  if (signal.aborted) console.warn('lease lost');
}
`,
};

describe('an abort check made by a helper', () => {
  it('is a lease check when handed the section signal, from another module or this file', async () => {
    current = project({
      ...files,
      'src/tally.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { pool } from './db';
import { assertAllHeld, noteAbort } from './signals';
const redlock = new Redlock([new Redis()]);

function leaseGone(signal: AbortSignal) {
  return signal.aborted;
}

export async function addVote(pollId: string) {
  await redlock.using(['poll:' + pollId], 4000, async (signal) => {
    const { rows } = await pool.query('SELECT votes FROM polls WHERE id = $1', [pollId]);
    assertAllHeld([signal]);
    await pool.query('UPDATE polls SET votes = $1 WHERE id = $2', [rows[0].votes + 1, pollId]);
  });
}

export async function close(pollId: string) {
  await redlock.using(['poll:' + pollId], 4000, async (signal) => {
    if (leaseGone(signal)) return;
    await pool.query('UPDATE polls SET open = false WHERE id = $1', [pollId]);
  });
}

export async function rename(pollId: string, title: string, outer: AbortSignal) {
  await redlock.using(['poll:' + pollId], 4000, async (signal) => {
    assertAllHeld([outer]);
    noteAbort(signal);
    await pool.query('UPDATE polls SET title = $1 WHERE id = $2', [title, pollId]);
  });
}
`,
    });
    const results = await current.lint('src/tally.ts');
    expect(findings(results.get('src/tally.ts'))).toEqual([
      '15 fencelint/no-check-then-write',
      '22 fencelint/no-check-then-write',
      '30 fencelint/require-fence-condition',
    ]);
  });
});
