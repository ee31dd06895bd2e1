/**
 * A package the project depends on by path (`"shared": "file:../shared"`), linted before it
 * is installed: the import leads into that folder, as it will once the package manager links it.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveImport } from '../../../src/core/modules/module-resolution.js';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const shared = {
  'shared/package.json': JSON.stringify({ name: '@acme/shared', main: 'index.js' }),
  'shared/server/lock.ts': `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
export default class Lock {
  public static async take(key: string): Promise<Mutex> {
    const mutex = new Mutex(redis, key, { lockTimeout: 10000 });
    await mutex.acquire();
    return mutex;
  }
  public static async give(mutex: Mutex): Promise<void> {
    await mutex.release();
  }
}
`,
  'shared/server/jobs.ts': `import { Pool } from 'pg';
const pool = new Pool();
export async function markSwept(id: string): Promise<void> {
  await pool.query('UPDATE jobs SET swept_at = now() WHERE id = $1', [id]);
}
`,
};

describe('local packages that are not installed', () => {
  it('resolves `file:` and `link:` dependencies into their folder, and leaves registry packages alone', () => {
    current = project({
      ...shared,
      'app/package.json': JSON.stringify({ name: 'app', dependencies: { shared: 'file:../shared', ioredis: '^5.4.0' }, devDependencies: { tools: 'link:../tools' } }),
      'tools/index.ts': 'export const t = 1;\n',
      'app/src/workers/sweep.ts': 'export {};\n',
    });
    const from = join(current.root, 'app/src/workers/sweep.ts');
    expect(resolveImport(from, 'shared/server/lock')).toBe(join(current.root, 'shared/server/lock.ts'));
    expect(resolveImport(from, 'tools')).toBe(join(current.root, 'tools/index.ts'));
    expect(resolveImport(from, 'ioredis')).toBeUndefined();
    expect(resolveImport(from, 'shared/server/missing')).toBeUndefined();
  });

  it('a lock facade and a write of the local package are followed from the app', async () => {
    current = project({
      ...shared,
      'app/package.json': JSON.stringify({ name: 'app', dependencies: { shared: 'file:../shared' } }),
      'app/src/workers/sweep.ts': `import Lock from 'shared/server/lock';
import { markSwept } from 'shared/server/jobs';

export async function sweep(id: string): Promise<void> {
  const mutex = await Lock.take('sweep');
  try {
    await markSwept(id);
  } finally {
    await Lock.give(mutex);
  }
}
`,
    });
    const results = await current.lint('app/src/workers/sweep.ts');
    const messages = results.get('app/src/workers/sweep.ts') ?? [];
    expect(findings(messages)).toEqual(['7 fencelint/require-fence-condition']);
    expect(messages[0]?.message).toContain('lock.ts:');
  }, 60_000);
});
