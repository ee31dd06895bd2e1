/**
 * Bad input reached through imports: cycles, unresolvable and dynamic imports, a 5 MB module,
 * a re-export chain 50 deep, modules that do not parse. No crash, no hang, no false report;
 * what cannot be read is read by its name, as without the graph.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MODULES } from '../../../src/core/modules/module-graph.js';
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

const caller = (from: string, name = 'withLock') => `import { Pool } from 'pg';
import { ${name} } from '${from}';
const pool = new Pool();
export async function settle(id: string) {
  await ${name}(id, async () => {
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

  it('`export *` modules that re-export each other, asked for a name neither has', async () => {
    current = project({
      'src/a.ts': "export * from './b';\n",
      'src/b.ts': "export * from './a';\n",
      'src/job.ts': `import { Pool } from 'pg';
import Redlock from 'redlock';
import { audit } from './a';
const pool = new Pool();
const redlock = new Redlock([]);
export async function settle(id: string) {
  await redlock.using([id], 10000, async () => {
    await audit(id);
    await pool.query("UPDATE invoices SET status = 'paid' WHERE id = $1", [id]);
  });
}
`,
    });
    // The unknown call adds nothing; the write next to it is still judged.
    expect(findings((await current.lint()).get('src/job.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('functions that call each other across an import cycle: it ends, and the answer does not depend on which file is linted first', async () => {
    const files = (fenced: boolean) => ({
      'src/lock.ts': lockModule.replace('fn: () => Promise<T>', 'fn: (token: number) => Promise<T>').replace('async () => fn()', 'async () => fn(await nextToken())').replace("const redlock", "declare function nextToken(): Promise<number>;\nconst redlock"),
      'src/a.ts': `import { Pool } from 'pg';
import { persist } from './b';
const pool = new Pool();
export async function save(id: string, token: number, retries: number): Promise<void> {
  if (retries > 0) return persist(id, token, retries - 1);
  const result = await pool.query(${fenced ? "'UPDATE t SET v = 1, fence_token = $2 WHERE id = $1 AND fence_token < $2', [id, token]" : "'UPDATE t SET v = 1 WHERE id = $1', [id]"});
  if (result.rowCount === 0) throw new Error('stale token');
}
`,
      'src/b.ts': "import { save } from './a';\nexport async function persist(id: string, token: number, retries: number): Promise<void> {\n  return save(id, token, retries);\n}\n",
      'src/job.ts': "import { withLock } from './lock';\nimport { persist } from './b';\nexport async function run(id: string) {\n  await withLock(id, async (token) => persist(id, token, 3));\n}\n",
    });
    const answers: string[] = [];
    for (const order of [['src/job.ts', 'src/a.ts', 'src/b.ts'], ['src/b.ts', 'src/a.ts', 'src/job.ts']]) {
      for (const fenced of [true, false]) {
        current?.remove();
        current = project(files(fenced));
        const result = await current.lint(...order);
        const again = await current.lint('src/job.ts');
        expect(findings(again.get('src/job.ts'))).toEqual(findings(result.get('src/job.ts')));
        expect(findings(result.get('src/a.ts'))).toEqual([]);
        expect(findings(result.get('src/b.ts'))).toEqual([]);
        if (fenced) expect(findings(result.get('src/job.ts'))).toEqual([]);
        answers.push(`${fenced} ${findings(result.get('src/job.ts')).join(',')}`);
      }
    }
    expect(answers.slice(0, 2)).toEqual(answers.slice(2));
  });

  it('a re-export chain longer than the bound: the call is read by its name, without naming a module', async () => {
    const files: Record<string, string> = { 'src/chain/m0.ts': lockModule };
    for (let i = 1; i <= 80; i++) files[`src/chain/m${i}.ts`] = `export * from './m${i - 1}';\n`;
    files['src/job.ts'] = caller('./chain/m80');
    current = project(files);
    const messages = (await current.lint('src/job.ts')).get('src/job.ts');
    expect(findings(messages)).toEqual(['6 fencelint/require-fence-condition']);
    expect(messages![0].message).not.toContain('m0.ts');
  });

  it('lock helpers that wrap one another, one per module: followed within the depth bound, unknown beyond it', async () => {
    const files: Record<string, string> = { 'src/wrap/m0.ts': lockModule.replace('withLock', 'runLocked0') };
    for (let i = 1; i <= 20; i++) {
      files[`src/wrap/m${i}.ts`] = `import { runLocked${i - 1} } from './m${i - 1}';
export function runLocked${i}<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return runLocked${i - 1}(key, fn);
}
`;
    }
    files['src/near.ts'] = caller('./wrap/m3', 'runLocked3');
    files['src/far.ts'] = caller('./wrap/m20', 'runLocked20');
    current = project(files);
    const result = await current.lint('src/near.ts', 'src/far.ts');
    expect(findings(result.get('src/near.ts'))).toEqual(['6 fencelint/require-fence-condition']);
    expect(result.get('src/near.ts')![0].message).toContain('`runLocked3` (m0.ts:4)');
    // Twenty modules down is past the bound, and the name alone does not say it takes a lock.
    expect(findings(result.get('src/far.ts'))).toEqual([]);
  });

  it('more imported helpers than one lint may read: the bound holds, and a warm cache gives the same answer as a cold one', async () => {
    const files: Record<string, string> = {};
    const imports: string[] = [];
    const calls: string[] = [];
    const count = MAX_MODULES + 40;
    for (let i = 0; i < count; i++) {
      files[`src/helpers/h${i}.ts`] = lockModule.replace('withLock', `withLock${i}`);
      imports.push(`import { withLock${i} } from './helpers/h${i}';`);
      calls.push(`  await withLock${i}(id, async () => { await pool.query('UPDATE t${i} SET v = 1 WHERE id = $1', [id]); });`);
    }
    files['src/job.ts'] = `import { Pool } from 'pg';\n${imports.join('\n')}\nconst pool = new Pool();\nexport async function run(id: string) {\n${calls.join('\n')}\n}\n`;
    current = project(files);
    const cold = findings((await current.lint('src/job.ts')).get('src/job.ts'));
    const warm = findings((await current.lint('src/job.ts')).get('src/job.ts'));
    expect(cold.length).toBe(MAX_MODULES);
    expect(warm).toEqual(cold);
  });

  it('imports of JSON, CSS, a folder, a declaration file and the linted file itself', async () => {
    current = project({
      'src/data.json': '{ "retries": 3 }\n',
      'src/theme.css': 'body { color: red; }\n',
      'src/locks/index.ts': lockModule,
      'src/declared.d.ts': 'export declare function withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;\n',
      'src/job.ts': `${caller('./locks')}import data from './data.json';\nimport './theme.css';\nexport const retries = data.retries;\n`,
      'src/declared-job.ts': caller('./declared'),
      'src/self.ts': `import { withLock as again } from './self';\n${lockModule}export async function touch(id: string) {\n  await again(id, async () => id);\n}\n`,
    });
    const result = await current.lint('src/job.ts', 'src/declared-job.ts', 'src/self.ts');
    expect(findings(result.get('src/job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
    expect(result.get('src/job.ts')![0].message).toContain('(index.ts:4)');
    // A declaration has no body to read: the call is read by its name.
    expect(findings(result.get('src/declared-job.ts'))).toEqual(['6 fencelint/require-fence-condition']);
    expect(findings(result.get('src/self.ts'))).toEqual([]);
  });
});
