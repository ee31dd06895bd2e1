/**
 * The lock-word gate runs over every linted file's text, so it is written without lookbehinds.
 * It must answer as the plain reading of its words does: `lock`/`lease` starting a word or a
 * camelCase part, never `block`, `clock`, `release` or OAuth's `acquireToken`.
 */
import { describe, expect, it } from 'vitest';
import { LOCK_HINT } from '../../../src/core/file-analysis.js';

// The same words written with lookbehinds: the reference the gate must agree with.
const READABLE = /acquire(?!Token)|(?<![A-Za-z])[lL]ock|(?<=[a-z0-9_])Lock|(?<![A-Za-z])[lL]ease|(?<=[a-z0-9_])Lease|LOCK|LEASE|[rR]edlock|mutex|Mutex|semaphore|Semaphore|\bNX\b|\bnx\s*:|setnx|setNX|advisory|fenc|Fenc|\.election\s*\(/;

const opens = ['lock', 'Lock', 'lease', 'Lease', '(lock)', 'await lock.run()', 'takeLease()', 'jobLock', 'job_Lock', 'v2Lease', 'LOCK_KEY', 'acquire()', "'NX'", '{ nx: true }', 'redlock', 'Mutex', 'fencing'];
const stays = ['block', 'clock', 'Block', 'release', 'unblock()', 'acquireToken()', 'Clock', 'ABlock', 'xBlocks', 'please', 'NXT'];

describe('the lock-word gate', () => {
  it.each(opens)('opens on %s', (text) => {
    expect(LOCK_HINT.test(text)).toBe(true);
    expect(LOCK_HINT.test(`const a = 1;\n${text}\n`)).toBe(true);
  });

  it.each(stays)('stays shut on %s', (text) => {
    expect(LOCK_HINT.test(text)).toBe(false);
    expect(LOCK_HINT.test(`const a = 1;\n${text}\n`)).toBe(false);
  });

  it('agrees with the lookbehind reading at every boundary', () => {
    const before = ['', ' ', 'a', 'Z', '_', '1', '.', '$', '\n'];
    const words = ['lock', 'Lock', 'lease', 'Lease', 'LOCK', 'ock', 'Lck'];
    for (const b of before) for (const w of words) for (const a of ['', 'x', ' ']) {
      const text = `${b}${w}${a}`;
      expect(LOCK_HINT.test(text), text).toBe(READABLE.test(text));
    }
  });
});
