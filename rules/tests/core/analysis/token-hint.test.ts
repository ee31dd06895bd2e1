/**
 * The token rules skip a file whose text names no place a fence token could live in, before
 * registering any listener. `elect` and `lease` count only at a word or camelCase start: every
 * `SELECT` and `release()` passing the gate made the token rules walk most files of a database-heavy project.
 */
import { describe, expect, it } from 'vitest';
import { mayHoldFenceTokens } from '../../../src/core/tokens/token-places.js';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';

// The gate reads the text alone.
const holds = (text: string, options = {}) => mayHoldFenceTokens({ text } as SourceCode, options);

describe('the token-word gate', () => {
  it('opens on token, lease and election words', () => {
    for (const text of ['const fencingToken = 1;', 'electLeader()', 'reElect()', 'election.campaign()', 'const epoch = 0;', 'lease.revision', 'renewLease()', 'LEASE_TTL', 'nextToken()']) {
      expect(holds(text), text).toBe(true);
    }
  });

  it('stays shut on SELECT, selected and release', () => {
    for (const text of ["db.query('SELECT id FROM users')", 'const selected = rows.filter(Boolean);', 'select.value = 1;', 'client.release();', 'const onRelease = () => {};']) {
      expect(holds(text), text).toBe(false);
    }
  });

  it('opens on a configured token name or column', () => {
    expect(holds('const ballot = 3;', { extraNames: ['ballot'] })).toBe(true);
    expect(holds("db.query('UPDATE t SET term = $1')", { tokenColumn: 'term' })).toBe(true);
  });
});
