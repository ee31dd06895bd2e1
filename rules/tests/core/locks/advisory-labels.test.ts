/** Findings under a PostgreSQL advisory lock name the exact function that took it. */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

function messagesFor(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error' } }], 'service.ts')
    .map((m) => m.message);
}

const service = (fn: string) => `import { Pool } from 'pg';
const pool = new Pool();
export async function rebuild(id: number, body: string) {
  await pool.query('SELECT ${fn}($1)', [id]);
  await pool.query('UPDATE reports SET body = $1 WHERE id = $2', [body, id]);
}`;

describe('advisory lock labels', () => {
  for (const fn of ['pg_advisory_lock', 'pg_try_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock_shared', 'pg_advisory_xact_lock', 'pg_try_advisory_xact_lock', 'pg_advisory_xact_lock_shared']) {
    it(`names \`${fn}\``, () => {
      const [message, ...rest] = messagesFor(service(fn));
      expect(rest).toEqual([]);
      expect(message).toContain(`under \`${fn}\` (line 4)`);
    });
  }

  it('reads the function out of upper-case SQL', () => {
    const [message] = messagesFor(service('PG_TRY_ADVISORY_XACT_LOCK'));
    expect(message).toContain('under `pg_try_advisory_xact_lock` (line 4)');
  });
});
