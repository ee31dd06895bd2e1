/**
 * A lock that runs a callback of its own gives the lock back when the callback returns: the call's
 * result is the callback's value, never a held lock, also when a wrapper in another module (a
 * tracing span) hands that result on. A caller's writes after such a call are outside the section.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/db.ts': `import pg from 'pg';
export const db = new pg.Pool();
`,
  'src/locker.ts': `import Redlock from 'redlock';
import { inSpan } from '@acme/tracing';
export class Locker {
  constructor(private readonly redlock: Redlock) {}
  async lock<T>(name: string, keys: string[], work: () => Promise<T>): Promise<T> {
    return inSpan(name, async () => {
      const held = await this.redlock.acquire(keys, 5000);
      try {
        return await work();
      } finally {
        await held.release();
      }
    });
  }
}
`,
  'src/planner.ts': `import { Locker } from './locker';
import { inSpan } from '@acme/tracing';
import { db } from './db';
export class Planner {
  constructor(private readonly locker: Locker) {}
  async movePlan(id: string, at: Date) {
    return inSpan('movePlan', async () => {
      return await this.locker.lock('movePlan', [id], async () => {
        const { rows } = await db.query('UPDATE plans SET due_at = $1 WHERE id = $2 RETURNING *', [at, id]);
        return rows[0];
      });
    });
  }
}
`,
  'src/notes.ts': `import { Planner } from './planner';
import { db } from './db';
export class Notes {
  constructor(private readonly planner: Planner) {}
  // Moves the plan under its lock, then notes it.
  async push(id: string, at: Date, note: string) {
    const plan = await this.planner.movePlan(id, at);
    await db.query('UPDATE plan_notes SET body = $1 WHERE plan_id = $2', [note, plan.id]);
  }
}
`,
};

describe('a callback lock handed on through a wrapper', () => {
  it("reports the write inside the callback, not the caller's write after the call", async () => {
    current = project(files);
    const results = await current.lint('src/planner.ts', 'src/notes.ts');
    expect(findings(results.get('src/planner.ts'))).toEqual(['9 fencelint/require-fence-condition']);
    expect(findings(results.get('src/notes.ts'))).toEqual([]);
  });
});
