/**
 * Bad input reached through imports: cycles, unresolvable and dynamic imports, a 5 MB module,
 * a re-export chain 50 deep, modules that do not parse. No crash, no hang, no false report;
 * what cannot be read is read by its name, as without the graph.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lockModule = `import Redlock from 'redlock';
const redlock = new Redlock([]);
export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return redlock.using([key], 10000, async () => fn());
}
`;

const caller = (from: string) => `import { Pool } from 'pg';
import { withLock } from '${from}';
const pool = new Pool();
export async function settle(id: string) {
  await withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
}
`;

describe('bad modules behind imports', () => {
  it('an import cycle between helpers', async () => {
    current = project({
      'src/a.ts': `import { b } from './b';
${lockModule}
export function a() { return b(); }
`,
      'src/b.ts': "import { a } from './a';\nexport function b(): unknown { return a(); }\nexport { withLock } from './a';\n",
      'src/job.ts': caller('./b'),
    });
    const result = await current.lint();
    expect(findings(result.get('src/job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
    expect(result.get('src/job.ts')![0].message).toContain('`withLock` (a.ts:5)');
    expect(findings(result.get('src/a.ts'))).toEqual([]);
    expect(findings(result.get('src/b.ts'))).toEqual([]);
  });

  it('a module that imports itself', async () => {
    current = project({ 'src/lock.ts': `export * from './lock';\nimport { withLock as again } from './lock';\n${lockModule}`, 'src/job.ts': caller('./lock') });
    expect(findings((await current.lint('src/job.ts')).get('src/job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });

  it('dynamic and unresolvable imports', async () => {
    current = project({
      'src/job.ts': `import { Pool } from 'pg';
const pool = new Pool();
export async function settle(id: string, name: string) {
  const { withLock } = await import(name);
  const helpers = await import('./nowhere');
  await helpers.withLock(id, async () => {
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
  await withLock(id, async () => pool.query('UPDATE a SET b = 1 WHERE id = $1', [id]));
}
`,
    });
    const result = await current.lint('src/job.ts');
    // Both calls are read by their names: `withLock`-style helpers take a lock.
    expect(findings(result.get('src/job.ts'))).toEqual(['7 fencelint/require-fence-condition', '9 fencelint/require-fence-condition']);
  });

  it('a 5 MB imported module is not read, and the call is read by its name', async () => {
    const filler = Array.from({ length: 60_000 }, (_, i) => `export const value${i} = 'padding padding padding padding padding padding ${i}';`).join('\n');
    current = project({ 'src/lock.ts': `${lockModule}\n${filler}\n`, 'src/job.ts': caller('./lock') });
    const started = Date.now();
    const result = await current.lint('src/job.ts');
    expect(findings(result.get('src/job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
    expect(result.get('src/job.ts')![0].message).not.toContain('lock.ts');
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a re-export chain 50 modules deep', async () => {
    const files: Record<string, string> = { 'src/chain/m0.ts': lockModule };
    for (let i = 1; i <= 50; i++) files[`src/chain/m${i}.ts`] = `export * from './m${i - 1}';\n`;
    files['src/job.ts'] = caller('./chain/m50');
    current = project(files);
    const messages = (await current.lint('src/job.ts')).get('src/job.ts');
    expect(findings(messages)).toEqual(['6 fencelint/require-fence-condition']);
    expect(messages![0].message).toContain('`withLock` (m0.ts:4)');
  });

  it('an imported module that does not parse, and one that is binary', async () => {
    current = project({
      'src/lock.ts': 'export async function withLock(key: string, fn: () => Promise<void>) {\n  return fn(\n',
      'src/bin.ts': '\u0000\u0001\u0002 not text',
      'src/job.ts': `${caller('./lock')}\nimport { helper } from './bin';\nexport const h = helper;\n`,
    });
    const result = await current.lint('src/job.ts');
    expect(findings(result.get('src/job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });

  it('a helper that cannot be read does not make a lock out of a plain function', async () => {
    current = project({
      'src/save.ts': 'export async function save(id: string) {\n  return id +\n',
      'src/job.ts': `import { Pool } from 'pg';
import { save } from './save';
const pool = new Pool();
// lock words alone: no acquire here
export async function run(id: string) {
  await save(id);
  await pool.query('UPDATE t SET v = 1 WHERE id = $1', [id]);
}
`,
    });
    expect(findings((await current.lint('src/job.ts')).get('src/job.ts'))).toEqual([]);
  });
});
