/**
 * Monorepos linted before an install: a bare import of a workspace package resolves to that
 * package's sources, as it would once the package manager linked it.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearResolutions, resolveImport } from '../../../src/core/modules/module-resolution.js';
import { projectGraph, textMayExport } from '../../../src/core/modules/module-graph.js';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
  clearResolutions();
});

describe('workspace packages without node_modules', () => {
  it('pnpm workspace: an entry pointing at build output not built yet is read from the sources (outDir -> rootDir)', () => {
    current = project({
      'pnpm-workspace.yaml': "packages:\n  # libraries\n  - 'libs/*'\n  - \"services/*\"\n",
      'package.json': '{ "name": "mono", "private": true }',
      'libs/ledger/package.json': '{ "name": "@mono/ledger", "main": "out/lib/index.js", "types": "out/lib/index.d.ts" }',
      'libs/ledger/tsconfig.json': '{ "compilerOptions": { "outDir": "out/lib", "rootDir": "source" } }',
      'libs/ledger/source/index.ts': 'export * from "./entries";\n',
      'libs/ledger/source/entries.ts': 'export const x = 1;\n',
      'services/api/package.json': '{ "name": "@mono/api" }',
      'services/api/src/main.ts': 'import { x } from "@mono/ledger";\n',
    });
    const from = join(current.root, 'services/api/src/main.ts');
    expect(resolveImport(from, '@mono/ledger')).toBe(join(current.root, 'libs/ledger/source/index.ts'));
    expect(resolveImport(from, '@mono/ledger/out/lib/entries.js')).toBe(join(current.root, 'libs/ledger/source/entries.ts'));
  });

  it('npm workspaces: package exports with a source condition apply as the compiler applies them', () => {
    current = project({
      'package.json': '{ "name": "mono", "private": true, "workspaces": ["packages/*"] }',
      'packages/queue/package.json': '{ "name": "queue-kit", "exports": { ".": { "source": "./lib/entry.ts", "default": "./dist/entry.js" } } }',
      'packages/queue/lib/entry.ts': 'export const q = 1;\n',
      'packages/worker/package.json': '{ "name": "worker" }',
      'packages/worker/tsconfig.json': '{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "customConditions": ["source"] } }',
      'packages/worker/src/run.ts': 'import { q } from "queue-kit";\n',
    });
    const from = join(current.root, 'packages/worker/src/run.ts');
    expect(resolveImport(from, 'queue-kit')).toBe(join(current.root, 'packages/queue/lib/entry.ts'));
  });

  it('a JavaScript package with a hand-written declaration beside its entry resolves to the JavaScript, by name or by path', () => {
    current = project({
      'package.json': '{ "name": "mono", "private": true, "workspaces": ["packages/*"] }',
      'packages/cron/package.json': '{ "name": "@mono/cron", "main": "index.js", "types": "index.d.ts" }',
      'packages/cron/index.d.ts': 'export declare const every: unknown;\n',
      'packages/cron/index.js': "module.exports = { every: require('./src/every') };\n",
      'packages/cron/src/every.js': 'module.exports = { start() {} };\n',
      'packages/billing/package.json': '{ "name": "@mono/billing" }',
      'packages/billing/lib/jobs.js': "const { every } = require('@mono/cron');\n",
    });
    const from = join(current.root, 'packages/billing/lib/jobs.js');
    expect(resolveImport(from, '@mono/cron')).toBe(join(current.root, 'packages/cron/index.js'));
    expect(resolveImport(from, '../../cron')).toBe(join(current.root, 'packages/cron/index.js'));
  });

  it('names the workspace does not declare, excluded folders and folders outside any workspace stay unresolved', () => {
    current = project({
      'pnpm-workspace.yaml': "packages:\n  - 'pkgs/*'\n  - '!pkgs/legacy'\n",
      'pkgs/legacy/package.json': '{ "name": "legacy-lib" }',
      'pkgs/legacy/src/index.ts': 'export const old = 1;\n',
      'pkgs/app/package.json': '{ "name": "app" }',
      'pkgs/app/src/index.ts': 'import "redlock";\n',
      'elsewhere/package.json': '{ "name": "stray" }',
      'elsewhere/src/index.ts': 'export const s = 1;\n',
    });
    const from = join(current.root, 'pkgs/app/src/index.ts');
    expect(resolveImport(from, 'redlock')).toBeUndefined();
    expect(resolveImport(from, 'legacy-lib')).toBeUndefined();
    expect(resolveImport(from, 'stray')).toBeUndefined();
  });

  it('a lock helper of another workspace package opens a critical section in the linted file', async () => {
    current = project({
      'package.json': '{ "name": "mono", "private": true, "workspaces": ["libs/*", "apps/*"] }',
      'libs/locking/package.json': '{ "name": "@mono/locking", "main": "dist/index.js" }',
      'libs/locking/src/index.ts': `import Redlock from 'redlock';
const redlock = new Redlock([]);

export async function underLease<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return redlock.using([key], 8000, async () => fn());
}
`,
      'apps/billing/package.json': '{ "name": "billing" }',
      'apps/billing/src/close.ts': `import { Pool } from 'pg';
import { underLease } from '@mono/locking';
const pool = new Pool();

export async function closePeriod(id: string) {
  await underLease(\`period:\${id}\`, async () => {
    await pool.query("UPDATE periods SET closed = true WHERE id = $1", [id]);
  });
}
`,
    });
    const messages = (await current.lint('apps/billing/src/close.ts')).get('apps/billing/src/close.ts');
    expect(findings(messages)).toEqual(['7 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('index.ts:5');
  });
});

describe('large barrels', () => {
  it('a name exported through a barrel of more modules than one lint may summarise is found; the other members are not read', async () => {
    const files: Record<string, string> = {};
    const members: string[] = [];
    for (let i = 0; i < 120; i++) {
      // Each member imports something, so none is passed over as self-contained.
      files[`src/kit/part${i}.ts`] = `import { format } from 'node:util';\nexport const label${i} = (v: unknown) => format('%s', v);\n`;
      members.push(`export * from './part${i}';`);
    }
    files['src/kit/lease.ts'] = `import Redlock from 'redlock';
const redlock = new Redlock([]);

export async function withLease<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return redlock.using([key], 5000, async () => fn());
}
`;
    files['src/kit/index.ts'] = [...members, "export * from './lease';", ''].join('\n');
    files['src/jobs/close.ts'] = `import { Pool } from 'pg';
import { withLease } from '../kit';
const pool = new Pool();

export async function close(id: string) {
  await withLease(\`close:\${id}\`, async () => {
    await pool.query('UPDATE books SET closed = true WHERE id = $1', [id]);
  });
}
`;
    current = project(files);
    const result = await current.lint('src/jobs/close.ts');
    expect(findings(result.get('src/jobs/close.ts'))).toEqual(['7 fencelint/require-fence-condition']);
    const used = projectGraph.dependenciesOf(join(current.root, 'src/jobs/close.ts')).map((f) => f.slice(current!.root.length + 1));
    expect(used.some((f) => f.includes('part'))).toBe(false);
  });

  it('members that only use a name the barrel also exports (a shared logger) are not read when that name is imported', async () => {
    const files: Record<string, string> = {};
    const members: string[] = [];
    for (let i = 0; i < 120; i++) {
      files[`src/kit/part${i}.ts`] = `import { logger } from './logger';\nexport const label${i} = (v: unknown) => { logger.info(String(v)); return v; };\n`;
      members.push(`export * from './part${i}';`);
    }
    files['src/kit/logger.ts'] = `import { format } from 'node:util';\nexport const logger = { info: (m: string) => console.log(format('%s', m)) };\n`;
    files['src/kit/lease.ts'] = `import Redlock from 'redlock';
const redlock = new Redlock([]);

export async function withLease<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return redlock.using([key], 5000, async () => fn());
}
`;
    files['src/kit/index.ts'] = [...members, "export * from './logger';", "export * from './lease';", ''].join('\n');
    files['src/jobs/close.ts'] = `import { Pool } from 'pg';
import { logger, withLease } from '../kit';
const pool = new Pool();

export async function close(id: string) {
  logger.info('closing');
  await withLease(\`close:\${id}\`, async () => {
    await pool.query('UPDATE books SET closed = true WHERE id = $1', [id]);
  });
}
`;
    current = project(files);
    const result = await current.lint('src/jobs/close.ts');
    expect(findings(result.get('src/jobs/close.ts'))).toEqual(['8 fencelint/require-fence-condition']);
    const used = projectGraph.dependenciesOf(join(current.root, 'src/jobs/close.ts')).map((f) => f.slice(current!.root.length + 1));
    expect(used.some((f) => f.includes('part'))).toBe(false);
  });
});

describe('textMayExport', () => {
  it('reads declarations, export lists and whole-module re-exports; a name only used does not count', () => {
    expect(textMayExport('export const logger = {};', 'logger')).toBe(true);
    expect(textMayExport('export async function withLease() {}', 'withLease')).toBe(true);
    expect(textMayExport('export abstract class Runner {}', 'Runner')).toBe(true);
    expect(textMayExport('const a = 1;\nexport {\n  a as logger,\n};', 'logger')).toBe(true);
    expect(textMayExport("export * as jobs from './jobs';", 'jobs')).toBe(true);
    expect(textMayExport("export * from './other';", 'logger')).toBe(true);
    expect(textMayExport('module.exports = { logger };', 'logger')).toBe(true);
    expect(textMayExport("import { logger } from './logger';\nexport const loggerName = logger.name;", 'logger')).toBe(false);
    expect(textMayExport("import { logger } from './logger';\nexport { loggerName };", 'logger')).toBe(false);  });

  it('answers for names that are no identifiers without reading them as patterns', () => {
    expect(textMayExport("export { a as 'x*y' };", '*')).toBe(true);
    expect(textMayExport('export const a = 1;', 'a+b')).toBe(true);
    expect(textMayExport('export const $store = 1;', '$store')).toBe(true);
    expect(textMayExport('export const store = 1;', '$store')).toBe(false);
  });
});
