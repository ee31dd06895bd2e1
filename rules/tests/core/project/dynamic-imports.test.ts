/**
 * A module reached through a dynamic import with a constant path inside the section (`const {
 * schedules } = await import('./schedules')`, then `schedules.advance(id)`): its exports are read as
 * a static import's would be, so their writes under the lock are reported at the call. An import
 * whose path is computed cannot be followed and reports nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const schedules = `import { Pool } from 'pg';
const pool = new Pool();
export const schedules = {
  async advance(id: string, next: Date) {
    await pool.query('UPDATE schedules SET next_run_at = $2, runs = runs + 1 WHERE id = $1', [id, next]);
  },
};
export async function cancel(id: string) {
  await pool.query("UPDATE schedules SET state = $2 WHERE id = $1", [id, 'cancelled']);
}
`;

const cron = (path: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
export async function spawn(id: string, next: Date, drop: boolean) {
  await redlock.using(['spawn-recurring'], 60000, async () => {
    const { schedules, cancel: stop } = await import(${path});
    await schedules.advance(id, next);
    if (drop) await stop(id);
  });
}
`;

describe('modules reached through a dynamic import in the section', () => {
  it('reads a constant path as a static import', async () => {
    current = project({ 'src/schedules.ts': schedules, 'src/cron.ts': cron("'./schedules'") });
    const results = await current.lint('src/cron.ts');
    expect(findings(results.get('src/cron.ts'))).toEqual(['7 fencelint/require-fence-condition', '8 fencelint/require-fence-condition']);
  });

  it('follows nothing for a computed path', async () => {
    current = project({ 'src/schedules.ts': schedules, 'src/cron.ts': cron('process.env.SCHEDULES_MODULE!') });
    const results = await current.lint('src/cron.ts');
    expect(findings(results.get('src/cron.ts'))).toEqual([]);
  });
});
