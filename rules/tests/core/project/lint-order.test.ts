/**
 * A file's findings do not depend on what the same process linted before it. The module
 * graph's cache is shared by every lint (a CLI run, a worker thread, the language server), so
 * a summary it keeps must be the one a lint of this file alone would build: not one built on
 * a module that was still being built (an import cycle entered from elsewhere), nor one built
 * where the depth bound did not reach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { projectGraph } from '../../../src/core/modules/module-graph.js';
import { findings, project, type Project } from './project-helpers.js';

const lockModule = `import Redis from 'ioredis';
const redis = new Redis();

export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const owner = Math.random().toString(36);
  if ((await redis.set(\`lock:\${key}\`, owner, 'PX', 10000, 'NX')) !== 'OK') throw new Error('busy');
  try {
    return await fn();
  } finally {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end', 1, \`lock:\${key}\`, owner);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

/** Each file's findings when it is the only file linted since the cache was emptied. */
async function alone(p: Project, files: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    projectGraph.clear();
    out.set(file, findings((await p.lint(file)).get(file)));
  }
  return out;
}

/** Each file's findings when the files are linted one after another in `order`, on one cache. */
async function inOrder(p: Project, order: readonly string[]): Promise<Map<string, string[]>> {
  projectGraph.clear();
  const out = new Map<string, string[]>();
  for (const file of order) out.set(file, findings((await p.lint(file)).get(file)));
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

function sorted(answers: Map<string, string[]>): Map<string, string[]> {
  return new Map([...answers].sort(([a], [b]) => a.localeCompare(b)));
}

describe('an import cycle entered from another file', () => {
  // orders.ts and audit.ts import each other. Linting close.ts first builds orders.ts, and
  // audit.ts inside it while orders.ts is still being built: that summary of `recordAudit`
  // cannot see `markShipped`'s write. It must not be the one review.ts gets later.
  const files = {
    'src/lock.ts': lockModule,
    'src/orders.ts': `import { Pool } from 'pg';
import { recordAudit } from './audit';
const pool = new Pool();

export async function markShipped(id: string): Promise<void> {
  await pool.query("UPDATE orders SET state = 'shipped' WHERE id = $1", [id]);
}

export async function closeOrder(id: string): Promise<void> {
  await recordAudit(id);
  await pool.query("UPDATE orders SET state = 'closed' WHERE id = $1", [id]);
}
`,
    'src/audit.ts': `import { markShipped } from './orders';

export async function recordAudit(id: string): Promise<void> {
  await markShipped(id);
}
`,
    'src/close.ts': `import { withLock } from './lock';
import { closeOrder } from './orders';

export async function close(id: string) {
  await withLock(\`order:\${id}\`, () => closeOrder(id));
}
`,
    'src/review.ts': `import { withLock } from './lock';
import { recordAudit } from './audit';

export async function review(id: string) {
  await withLock(\`order:\${id}\`, () => recordAudit(id));
}
`,
  };

  it('the member linted through the other gives the answer it gives alone', async () => {
    current = project(files);
    const single = await alone(current, ['src/review.ts', 'src/close.ts']);
    // Alone, review.ts sees audit.ts whole: recordAudit writes through markShipped.
    expect(single.get('src/review.ts')).toEqual(['5 fencelint/require-fence-condition']);
    expect(single.get('src/close.ts')).toEqual(['5 fencelint/require-fence-condition']);
    expect(await inOrder(current, ['src/close.ts', 'src/review.ts'])).toEqual(sorted(single));
    expect(await inOrder(current, ['src/review.ts', 'src/close.ts'])).toEqual(sorted(single));
  });

  it('a warm cache keeps giving that answer, lint after lint', async () => {
    current = project(files);
    const single = await alone(current, ['src/review.ts']);
    projectGraph.clear();
    for (const file of ['src/close.ts', 'src/review.ts', 'src/close.ts', 'src/review.ts']) {
      const result = (await current.lint(file)).get(file);
      if (file === 'src/review.ts') expect(findings(result)).toEqual(single.get('src/review.ts'));
    }
  });
});

describe('the depth bound', () => {
  // save1 calls save2 ... calls save7, which writes. From job.ts save7 is seven imports deep,
  // past the bound; from near.ts it is within it. A summary of save3 that near.ts left in the
  // cache holds the whole chain, and must not carry job.ts past the bound.
  const files: Record<string, string> = { 'src/lock.ts': lockModule };
  for (let i = 1; i <= 7; i++) {
    files[`src/chain/save${i}.ts`] =
      i < 7
        ? `import { save${i + 1} } from './save${i + 1}';\nexport async function save${i}(id: string): Promise<void> {\n  await save${i + 1}(id);\n}\n`
        : `import { Pool } from 'pg';\nconst pool = new Pool();\nexport async function save7(id: string): Promise<void> {\n  await pool.query('UPDATE ledger SET posted = true WHERE id = $1', [id]);\n}\n`;
  }
  const caller = (n: number) => `import { withLock } from '../lock';
import { save${n} } from '../chain/save${n}';

export async function run(id: string) {
  await withLock(\`ledger:\${id}\`, () => save${n}(id));
}
`;
  files['src/jobs/job.ts'] = caller(1);
  files['src/jobs/near.ts'] = caller(3);

  it('is counted from the linted file, whatever the cache holds', async () => {
    current = project(files);
    const single = await alone(current, ['src/jobs/job.ts', 'src/jobs/near.ts']);
    expect(single.get('src/jobs/near.ts')).toEqual(['5 fencelint/require-fence-condition']);
    // Seven modules down is past the bound: save1 is unknown, and its name says nothing.
    expect(single.get('src/jobs/job.ts')).toEqual([]);
    expect(await inOrder(current, ['src/jobs/near.ts', 'src/jobs/job.ts'])).toEqual(sorted(single));
    expect(await inOrder(current, ['src/jobs/job.ts', 'src/jobs/near.ts'])).toEqual(sorted(single));
  });
});

/** A small deterministic generator (mulberry32), so a failing order can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Service modules that call one another (cycles among them), some writing, some taking the
 * lock around a call into another, and one caller per service that runs it under the lock.
 */
function generatedProject(seed: number): Record<string, string> {
  const next = random(seed);
  const count = 7;
  const files: Record<string, string> = { 'src/lock.ts': lockModule };
  for (let i = 0; i < count; i++) {
    const callees = [...new Set([Math.floor(next() * count), Math.floor(next() * count)])].filter((j) => j !== i);
    const writes = next() < 0.5;
    const locks = next() < 0.3;
    const lines = [`import { Pool } from 'pg';`, `import { withLock } from '../lock';`];
    for (const j of callees) lines.push(`import { step${j} } from './service${j}';`);
    lines.push('const pool = new Pool();', '', `export async function step${i}(id: string): Promise<void> {`);
    for (const j of callees) lines.push(locks ? `  await withLock(\`s${i}:\${id}\`, () => step${j}(id));` : `  await step${j}(id);`);
    if (writes) lines.push(`  await pool.query('UPDATE service${i} SET done = true WHERE id = $1', [id]);`);
    lines.push('}', '');
    files[`src/services/service${i}.ts`] = lines.join('\n');
    files[`src/jobs/job${i}.ts`] = `import { withLock } from '../lock';
import { step${i} } from '../services/service${i}';

export async function run(id: string) {
  await withLock(\`job:\${id}\`, () => step${i}(id));
}
`;
  }
  return files;
}

describe('any order', () => {
  it('over generated projects with import cycles, each file gets the answer it gets alone', async () => {
    for (const seed of [1, 2]) {
      current?.remove();
      current = project(generatedProject(seed));
      const linted = Object.keys(generatedProject(seed)).filter((f) => f !== 'src/lock.ts').sort();
      const single = sorted(await alone(current, linted));
      const next = random(seed * 7919);
      for (const order of [linted, [...linted].reverse(), shuffled(linted, next)]) {
        expect(await inOrder(current, order), `seed ${seed}, order ${order.join(' ')}`).toEqual(single);
      }
    }
  }, 120_000);
});
