/**
 * The module graph on real files: imports resolved by TypeScript (relative, tsconfig paths,
 * workspace packages through node_modules symlinks), lock helpers of another module opening
 * critical sections in the linted file, and the cache that follows edits of those modules.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectGraph } from '../../../src/core/modules/module-graph.js';
import { resolveImport } from '../../../src/core/modules/module-resolution.js';
import { findings, project, type Project } from './project-helpers.js';

const redisLock = `import Redis from 'ioredis';
const redis = new Redis();

export async function acquireLock(key: string): Promise<string | null> {
  const owner = Math.random().toString(36);
  const reply = await redis.set(\`lock:\${key}\`, owner, 'PX', 10000, 'NX');
  return reply === 'OK' ? owner : null;
}

export async function releaseLock(key: string, owner: string): Promise<void> {
  await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end', 1, \`lock:\${key}\`, owner);
}

export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const owner = await acquireLock(key);
  if (!owner) throw new Error('busy');
  try {
    return await fn();
  } finally {
    await releaseLock(key, owner);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('module resolution', () => {
  it('resolves relative paths, tsconfig paths and a workspace package linked into node_modules', () => {
    current = project({
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@shared/*': ['packages/shared/src/*'] } } }),
      'packages/shared/package.json': JSON.stringify({ name: '@acme/shared', main: 'src/index.ts' }),
      'packages/shared/src/index.ts': 'export const x = 1;\n',
      'packages/shared/src/lock.ts': 'export const y = 2;\n',
      'apps/api/src/a.ts': 'export {};\n',
      'apps/api/src/b.ts': 'export {};\n',
    });
    mkdirSync(join(current.root, 'node_modules', '@acme'), { recursive: true });
    symlinkSync(join(current.root, 'packages', 'shared'), join(current.root, 'node_modules', '@acme', 'shared'), 'dir');
    const from = join(current.root, 'apps/api/src/a.ts');
    expect(resolveImport(from, './b')).toBe(join(current.root, 'apps/api/src/b.ts'));
    expect(resolveImport(from, './b.js')).toBe(join(current.root, 'apps/api/src/b.ts'));
    expect(resolveImport(from, '@shared/lock')).toBe(join(current.root, 'packages/shared/src/lock.ts'));
    expect(resolveImport(from, '@acme/shared')).toBe(join(current.root, 'packages/shared/src/index.ts'));
    // Libraries are models' business, not the graph's; unresolvable specifiers stay unresolved.
    expect(resolveImport(from, 'typescript')).toBeUndefined();
    expect(resolveImport(from, './missing')).toBeUndefined();
    expect(resolveImport(from, 'node:fs')).toBeUndefined();
  });

  it('without tsconfig paths, tells installed libraries from workspace packages by where node_modules leads', () => {
    current = project({
      'package.json': JSON.stringify({ name: 'root', workspaces: ['packages/*'] }),
      'packages/shared/package.json': JSON.stringify({ name: '@acme/shared', main: 'src/index.ts' }),
      'packages/shared/src/index.ts': 'export const x = 1;\n',
      'node_modules/left-pad/package.json': JSON.stringify({ name: 'left-pad', main: 'index.js' }),
      'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
      'node_modules/.pnpm/right-pad@1.0.0/node_modules/right-pad/package.json': JSON.stringify({ name: 'right-pad', main: 'index.js' }),
      'node_modules/.pnpm/right-pad@1.0.0/node_modules/right-pad/index.js': 'module.exports = (s) => s;\n',
      'apps/api/src/a.ts': 'export {};\n',
    });
    mkdirSync(join(current.root, 'node_modules', '@acme'), { recursive: true });
    symlinkSync(join(current.root, 'packages', 'shared'), join(current.root, 'node_modules', '@acme', 'shared'), 'dir');
    symlinkSync(join(current.root, 'node_modules/.pnpm/right-pad@1.0.0/node_modules/right-pad'), join(current.root, 'node_modules', 'right-pad'), 'dir');
    const from = join(current.root, 'apps/api/src/a.ts');
    expect(resolveImport(from, '@acme/shared')).toBe(join(current.root, 'packages/shared/src/index.ts'));
    expect(resolveImport(from, 'left-pad')).toBeUndefined();
    expect(resolveImport(from, 'right-pad')).toBeUndefined();
    expect(resolveImport(from, 'crypto')).toBeUndefined();
  });
});

describe('lock helpers in another module', () => {
  it('a callback helper opens a critical section here, and the finding names the helper by file and line', async () => {
    current = project({
      'src/utils/lock.ts': redisLock,
      'src/jobs/settle.ts': `import { Pool } from 'pg';
import { withLock } from '../utils/lock';
const pool = new Pool();

export async function settle(id: string) {
  await withLock(\`invoice:\${id}\`, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
  await pool.query('UPDATE invoices SET seen = true WHERE id = $1', [id]);
}
`,
    });
    const result = await current.lint('src/jobs/settle.ts');
    const messages = result.get('src/jobs/settle.ts');
    expect(findings(messages)).toEqual(['7 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('`withLock` (lock.ts:6)');
  });

  it('an acquire and a release by name, both from another module, bound the section', async () => {
    current = project({
      'src/utils/lock.ts': redisLock,
      'src/jobs/stock.ts': `import { Pool } from 'pg';
import { acquireLock, releaseLock } from '../utils/lock';
const pool = new Pool();

export async function reserve(sku: string, n: number) {
  const owner = await acquireLock(sku);
  if (!owner) return;
  try {
    await pool.query('UPDATE stock SET available = $1 WHERE sku = $2', [n, sku]);
  } finally {
    await releaseLock(sku, owner);
  }
  await pool.query('UPDATE stock SET reserved_at = now() WHERE sku = $1', [sku]);
}
`,
    });
    const result = await current.lint('src/jobs/stock.ts');
    expect(findings(result.get('src/jobs/stock.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a helper named like a lock that only takes an in-process mutex opens no section', async () => {
    current = project({
      'src/utils/lock.ts': `import { Mutex } from 'async-mutex';
const mutexes = new Map<string, Mutex>();
export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const mutex = mutexes.get(key) ?? new Mutex();
  mutexes.set(key, mutex);
  return mutex.runExclusive(fn);
}
`,
      'src/jobs/cache.ts': `import { Pool } from 'pg';
import { withLock } from '../utils/lock';
const pool = new Pool();
export async function refresh(id: string) {
  await withLock(id, async () => {
    await pool.query('UPDATE cache SET value = $1 WHERE id = $2', ['x', id]);
  });
}
`,
    });
    const result = await current.lint('src/jobs/cache.ts');
    expect(findings(result.get('src/jobs/cache.ts'))).toEqual([]);
  });

  it('an unresolvable helper is read by its name, as without the graph', async () => {
    current = project({
      'src/jobs/settle.ts': `import { Pool } from 'pg';
import { withLock } from '../utils/missing-lock';
const pool = new Pool();
export async function settle(id: string) {
  await withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
}
`,
    });
    const result = await current.lint('src/jobs/settle.ts');
    expect(findings(result.get('src/jobs/settle.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});

describe('CommonJS barrels', () => {
  it('a member that is another module (`{ locks: require(\'./locks\') }`) and a spread of one (`{ ...require(\'./lib\') }`) are followed', async () => {
    current = project({
      'src/locks.js': `const Redlock = require('redlock');
const redlock = new Redlock([]);
const exclusive = async (key, fn) => {
  const lock = await redlock.lock(key, 10000);
  try {
    return await fn();
  } finally {
    await lock.unlock();
  }
};
module.exports = { exclusive };
`,
      'src/lib.js': "module.exports = {\n  locks: require('./locks'),\n};\n",
      'src/index.js': "module.exports = {\n  ...require('./lib'),\n};\n",
      'src/job.js': `const { locks } = require('./index');
const run = async (db, id) => {
  await locks.exclusive('job:' + id, async () => {
    await db.query('UPDATE jobs SET done = true WHERE id = $1', [id]);
  });
};
module.exports = { run };
`,
    });
    const results = await current.lint('src/job.js');
    expect(findings(results.get('src/job.js'))).toEqual(['4 fencelint/require-fence-condition']);
  });
});

describe('modules that import nothing', () => {
  it('a pure helper (no import, no lock, token, clock or write word) is not read and changes nothing', async () => {
    current = project({
      'src/utils/lock.ts': redisLock,
      'src/utils/format.ts': 'export function label(id: string): string {\n  return id.trim().toUpperCase();\n}\n',
      'src/jobs/settle.ts': `import { Pool } from 'pg';
import { withLock } from '../utils/lock';
import { label } from '../utils/format';
const pool = new Pool();
export async function settle(id: string) {
  await withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid', name = $2 WHERE id = $1", [id, label(id)]);
  });
  await pool.query('UPDATE invoices SET seen = true WHERE id = $1', [label(id)]);
}
`,
    });
    const messages = (await current.lint('src/jobs/settle.ts')).get('src/jobs/settle.ts');
    expect(findings(messages)).toEqual(['7 fencelint/require-fence-condition']);
    expect(projectGraph.dependenciesOf(join(current.root, 'src/jobs/settle.ts'))).toContain(join(current.root, 'src/utils/format.ts'));
  });
});

describe('the cache', () => {
  it('knows which modules a result used, and follows an edit of one of them', async () => {
    current = project({
      'src/utils/lock.ts': redisLock,
      'src/utils/index.ts': "export * from './lock';\n",
      'src/jobs/settle.ts': `import { Pool } from 'pg';
import { withLock } from '../utils';
const pool = new Pool();
export async function settle(id: string) {
  await withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
}
`,
    });
    const settle = 'src/jobs/settle.ts';
    expect(findings((await current.lint(settle)).get(settle))).toEqual(['6 fencelint/require-fence-condition']);
    const file = join(current.root, settle);
    expect(projectGraph.dependenciesOf(file)).toEqual([join(current.root, 'src/utils/index.ts'), join(current.root, 'src/utils/lock.ts')]);

    // The helper now takes an in-process lock only: no lease, no finding.
    current.write('src/utils/lock.ts', `export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return fn();
}
`);
    projectGraph.invalidate(join(current.root, 'src/utils/lock.ts'));
    expect(findings((await current.lint(settle)).get(settle))).toEqual([]);

    // An edit seen on disk without an explicit invalidation: the content hash decides.
    current.write('src/utils/lock.ts', redisLock);
    expect(findings((await current.lint(settle)).get(settle))).toEqual(['6 fencelint/require-fence-condition']);
  });

  it('reads an open document from its unsaved text', async () => {
    current = project({
      'src/utils/lock.ts': 'export async function withLock(key: string, fn: () => Promise<void>) { return fn(); }\n',
      'src/jobs/settle.ts': `import { Pool } from 'pg';
import { withLock } from '../utils/lock';
const pool = new Pool();
export async function settle(id: string) {
  await withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
}
`,
    });
    const settle = 'src/jobs/settle.ts';
    const lockFile = join(current.root, 'src/utils/lock.ts');
    expect(findings((await current.lint(settle)).get(settle))).toEqual([]);
    projectGraph.setFileText(lockFile, redisLock);
    try {
      expect(findings((await current.lint(settle)).get(settle))).toEqual(['6 fencelint/require-fence-condition']);
    } finally {
      projectGraph.setFileText(lockFile, undefined);
    }
  });
});
