/**
 * A lease row in a table named in Pascal case (`"JobLease"`), taken by a Prisma `$executeRaw`
 * upsert that only wins over an expired row and released by a `DELETE` of the holder's row: the
 * helper that runs a job under it is a lock, its own writes to the lease table are lock upkeep, and
 * a table that only ends in the letters (`blocks`, `releases`) is no lock table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isLockTable } from '../../../src/core/models/lock-tables.js';
import { findings, project, type Project } from './project-helpers.js';

const files: Record<string, string> = {
  "package.json": "{ \"name\": \"x\", \"private\": true }\n",
  "src/lib/db.ts": "import { PrismaClient } from '@prisma/client';\nconst prisma = new PrismaClient();\nexport default prisma;\n",
  "src/lib/job-lease.ts": "import prisma from './db';\n\nexport async function takeJobLease(job: string, ttlMs = 600_000) {\n  const holder = `${job}-${Date.now()}`;\n  const now = new Date();\n  const until = new Date(now.getTime() + ttlMs);\n  const taken = await prisma.$executeRaw`\n    INSERT INTO \"JobLease\" (\"job\", \"holder\", \"until\") VALUES (${job}, ${holder}, ${until})\n    ON CONFLICT (\"job\") DO UPDATE SET \"holder\" = ${holder}, \"until\" = ${until}\n    WHERE \"JobLease\".\"until\" < ${now}`;\n  return taken === 1 ? { acquired: true, holder } : { acquired: false };\n}\n\nexport async function dropJobLease(job: string, holder: string) {\n  await prisma.$executeRaw`DELETE FROM \"JobLease\" WHERE \"job\" = ${job} AND \"holder\" = ${holder}`;\n}\n\nexport async function withJobLease<T>(job: string, fn: () => Promise<T>) {\n  const lease = await takeJobLease(job);\n  if (!lease.acquired || !lease.holder) return { skipped: true as const };\n  try {\n    return { skipped: false as const, result: await fn() };\n  } finally {\n    await dropJobLease(job, lease.holder);\n  }\n}\n",
  "src/jobs/settle.ts": "import prisma from '../lib/db';\nimport { withJobLease } from '../lib/job-lease';\n\nexport async function settleOrders() {\n  return withJobLease('settle', async () => {\n    const orders = await prisma.order.findMany({ where: { settled: false } });\n    for (const o of orders) await prisma.order.update({ where: { id: o.id }, data: { invoiceNo: `INV-${o.id}` } });\n  });\n}\n",
  "src/blocks.ts": "import prisma from './lib/db';\nexport async function touch(id: string) {\n  await prisma.$executeRaw`UPDATE \"blocks\" SET \"seen\" = now() WHERE id = ${id}`;\n  await prisma.block.update({ where: { id }, data: { name: 'x' } });\n}\n"
};

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lease table named in camel or Pascal case', () => {
  it("is read as a lock: the job's update under it is reported, the lease's own upkeep is not", async () => {
    current = project(files);
    const results = await current.lint('src/jobs/settle.ts', 'src/lib/job-lease.ts', 'src/blocks.ts');
    expect(findings(results.get('src/jobs/settle.ts'))).toEqual(['7 fencelint/require-fence-condition']);
    expect(findings(results.get('src/lib/job-lease.ts'))).toEqual([]);
    expect(findings(results.get('src/blocks.ts'))).toEqual([]);
  });

  it('tells lock tables from words that only end in lock or lease', () => {
    for (const table of ['cronlock', 'jobleases', 'JobLease', 'sync_locks', 'task_mutexes']) expect(isLockTable(table)).toBe(true);
    for (const table of ['blocks', 'releases', 'clocks', 'unlock', 'deadlocks', 'orders']) expect(isLockTable(table)).toBe(false);
  });
});
