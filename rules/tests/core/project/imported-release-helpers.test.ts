/**
 * A try-lock and its unlock kept as two functions of a shared module
 * (`tryLeadLock(id)` / `releaseLeadLock(id)` over `pg_try_advisory_lock` / `pg_advisory_unlock`),
 * used by a service that releases in `finally` and returns a result: the imported release ends
 * the service's section, so it holds nothing when it returns and a caller's writes after the
 * call are under no lock. A write between the acquire and the release still is. A caller that
 * drops the try-lock's answer (`await tryLeadLock(id);` as a statement) runs whether or not it got
 * the lock: it takes none, as a dropped `SET NX` reply takes none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const locks = (client: string) => `import { PrismaClient } from '@prisma/client';
${client}
export async function tryLeadLock(leadId: string): Promise<boolean> {
  const key = 'lead:' + leadId;
  const rows = await prisma.$queryRaw<[{ locked: boolean }]>\`SELECT pg_try_advisory_lock(hashtext(\${key})) AS locked\`;
  return rows[0]?.locked ?? false;
}
export async function releaseLeadLock(leadId: string): Promise<void> {
  const key = 'lead:' + leadId;
  await prisma.$executeRaw\`SELECT pg_advisory_unlock(hashtext(\${key}))\`;
}
`;

const pipeline = `import { PrismaClient } from '@prisma/client';
import { tryLeadLock, releaseLeadLock } from './locks';
const prisma = new PrismaClient();
export async function runPipeline(leadId: string): Promise<{ ran: boolean }> {
  if (!(await tryLeadLock(leadId))) return { ran: false };
  try {
    const lead = await prisma.lead.findUnique({ where: { id: leadId } });
    await prisma.lead.update({ where: { id: leadId }, data: { score: (lead?.score ?? 0) + 1 } });
    return { ran: true };
  } finally {
    await releaseLeadLock(leadId);
  }
}
`;

const caller = `import { PrismaClient } from '@prisma/client';
import { runPipeline } from './pipeline';
const prisma = new PrismaClient();
export async function onInbound(leadId: string) {
  const result = await runPipeline(leadId);
  await prisma.inbound.update({ where: { leadId }, data: { handled: result.ran } });
}
`;

const pgLocks = `import pg from 'pg';
const held = new Map<string, pg.Client>();
export async function tryLeadLock(leadId: string): Promise<boolean> {
  const client = new pg.Client();
  await client.connect();
  const result = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [leadId]);
  const locked = result.rows[0]?.locked === true;
  if (locked) held.set(leadId, client);
  else await client.end();
  return locked;
}
export async function releaseLeadLock(leadId: string): Promise<void> {
  const client = held.get(leadId);
  if (!client) return;
  held.delete(leadId);
  try {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [leadId]);
  } finally {
    await client.end();
  }
}
`;

describe('an unlock helper imported from the lock module', () => {
  it("ends the service's section: the caller's later write is under no lock", async () => {
    current = project({ 'src/locks.ts': locks('const prisma = new PrismaClient();'), 'src/pipeline.ts': pipeline, 'src/caller.ts': caller });
    const results = await current.lint('src/pipeline.ts', 'src/caller.ts');
    expect(findings(results.get('src/caller.ts'))).toEqual([]);
    expect(findings(results.get('src/pipeline.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  it('also when the lock sits on a dedicated client the module keeps by key', async () => {
    current = project({ 'src/locks.ts': pgLocks, 'src/pipeline.ts': pipeline, 'src/caller.ts': caller });
    const results = await current.lint('src/pipeline.ts', 'src/caller.ts');
    expect(findings(results.get('src/caller.ts'))).toEqual([]);
    expect(findings(results.get('src/pipeline.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  it("takes no lock where the caller drops the try-lock's answer", async () => {
    const marker = `import pg from 'pg';
import { tryLeadLock } from './locks';
const pool = new pg.Pool();
export async function startSession(leadId: string) {
  await tryLeadLock(leadId);
  await pool.query('UPDATE leads SET active_at = now() WHERE id = $1', [leadId]);
}
`;
    const tested = marker.replace('  await tryLeadLock(leadId);', '  if (!(await tryLeadLock(leadId))) return;');
    current = project({ 'src/locks.ts': pgLocks, 'src/marker.ts': marker, 'src/tested.ts': tested });
    const results = await current.lint('src/marker.ts', 'src/tested.ts');
    expect(findings(results.get('src/marker.ts'))).toEqual([]);
    expect(findings(results.get('src/tested.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
