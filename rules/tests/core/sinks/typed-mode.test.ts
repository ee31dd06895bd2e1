/**
 * Typed mode: with `parserOptions.projectService`, receivers that come from another module
 * under names no heuristic knows are resolved by the type checker (`PrismaClient`, pg's
 * `Pool` from @types/pg). Without types, the module graph finds a client that another module
 * creates and exports; with neither, nothing is found there, and nothing else changes.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/typed');

function eslint(typed: boolean, project = true): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tsParser as never, parserOptions: typed ? { projectService: true, tsconfigRootDir: root } : {} },
        settings: { fencelint: { project } },
      },
      { ...(plugin.configs.recommended as object), files: ['**/*.ts'] },
    ],
  });
}

async function rulesReported(code: string, typed: boolean, project = true): Promise<string[]> {
  const [result] = await eslint(typed, project).lintText(code, { filePath: join(root, 'service.ts') });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.map((m) => `${m.ruleId}:${m.line}`);
}

const header = `import Redlock from 'redlock';
import { cache, ledger, store, warehouse } from './clients.js';
const redlock = new Redlock([]);
`;

describe('typed mode', () => {
  it('resolves a Redis client imported from another module under any name', async () => {
    const code = `${header}export async function publish(id: string, body: string) {
  const lock = await redlock.acquire([id], 5000);
  try {
    await cache.set(\`doc:\${id}\`, body);
  } finally {
    await lock.release();
  }
}
`;
    expect(await rulesReported(code, true)).toEqual(['fencelint/require-fence-condition:7']);
    // Without types, the module graph reads clients.ts and finds the same client there.
    expect(await rulesReported(code, false)).toEqual(['fencelint/require-fence-condition:7']);
    // Without types or the graph, `cache` is any object with a `set` method, like a Map.
    expect(await rulesReported(code, false, false)).toEqual([]);
  });

  it('a Prisma client under any name: by its type, and without types by its call shape', async () => {
    const code = `${header}export async function credit(id: string, amount: number) {
  const lock = await redlock.acquire([id], 5000);
  try {
    await store.account.updateMany({ where: { id }, data: { amount } });
  } finally {
    await lock.release();
  }
}
`;
    expect(await rulesReported(code, true)).toEqual(['fencelint/require-fence-condition:7']);
    expect(await rulesReported(code, false)).toEqual(['fencelint/require-fence-condition:7']);
  });

  it('resolves a factory\'s declared return type and a pg Pool from @types/pg', async () => {
    const code = `${header}export async function credit(id: string, amount: number) {
  const lock = await redlock.acquire([id], 5000);
  try {
    await ledger().account.update({ where: { id }, data: { amount } });
    await warehouse.query('UPDATE stock SET qty = $1 WHERE id = $2', [amount, id]);
  } finally {
    await lock.release();
  }
}
`;
    expect(await rulesReported(code, true)).toEqual(['fencelint/require-fence-condition:7', 'fencelint/require-fence-condition:8']);
    expect(await rulesReported(code, false)).toEqual(['fencelint/require-fence-condition:7', 'fencelint/require-fence-condition:8']);
  });

  it('a fenced write through a typed receiver is clean in both modes', async () => {
    const code = `${header}export async function credit(id: string, amount: number, fenceToken: number) {
  const lock = await redlock.acquire([id], 5000);
  try {
    const r = await store.account.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { amount, fenceToken } });
    if (r.count === 0) throw new Error('stale fence token');
  } finally {
    await lock.release();
  }
}
`;
    expect(await rulesReported(code, true)).toEqual([]);
    expect(await rulesReported(code, false)).toEqual([]);
  });
});
