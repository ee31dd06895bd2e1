/**
 * A helper whose write sits behind a test of a plain parameter (`if (force) ...`, the `else` of
 * `if (enabled)`): a call under a lock that passes a literal ruling that branch out makes no such
 * write. A value that is not a literal is never guessed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const shelves = `import { Pool } from 'pg';

const pool = new Pool();

export async function setHold(shelf: string, held: boolean) {
  if (held) {
    await pool.query('UPDATE shelves SET held = true, held_at = now() WHERE id = $1', [shelf]);
  } else {
    await pool.query('DELETE FROM shelf_holds WHERE shelf = $1', [shelf]);
  }
}

export async function recount(shelf: string, force: boolean) {
  if (!force) return;
  await pool.query('UPDATE shelves SET counted_at = now() WHERE id = $1', [shelf]);
}
`;

const picker = (calls: string) => `import Redis from 'ioredis';
import { recount, setHold } from './shelves';

const redis = new Redis();

export async function pick(shelf: string, flag: boolean) {
  if ((await redis.set('lock:shelf:' + shelf, '1', 'PX', 4000, 'NX')) !== 'OK') return;
  try {
${calls}
  } finally {
    await redis.del('lock:shelf:' + shelf);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe("literal arguments that rule a helper's branch out", () => {
  it('reports only the branch the literal takes', async () => {
    current = project({ 'src/shelves.ts': shelves, 'src/picker.ts': picker('    await setHold(shelf, true);\n    await recount(shelf, false);') });
    const results = await current.lint('src/picker.ts');
    const messages = results.get('src/picker.ts') ?? [];
    expect(findings(messages).filter((f) => f.endsWith('require-fence-condition'))).toEqual(['9 fencelint/require-fence-condition']);
    expect(messages.find((m) => m.line === 9)?.message).toContain('UPDATE shelves');
  });

  it('takes the other branch for the other literal', async () => {
    current = project({ 'src/shelves.ts': shelves, 'src/picker.ts': picker('    await setHold(shelf, false);\n    await recount(shelf, true);') });
    const results = await current.lint('src/picker.ts');
    expect(findings(results.get('src/picker.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual(['9 fencelint/require-fence-condition', '10 fencelint/require-fence-condition']);
  });

  it('guesses nothing for a value that is not a literal', async () => {
    current = project({ 'src/shelves.ts': shelves, 'src/picker.ts': picker('    await setHold(shelf, flag);\n    await recount(shelf, flag);') });
    const results = await current.lint('src/picker.ts');
    expect(findings(results.get('src/picker.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual(['9 fencelint/require-fence-condition', '10 fencelint/require-fence-condition']);
  });
});
