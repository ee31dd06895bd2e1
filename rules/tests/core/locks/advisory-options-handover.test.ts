/**
 * An advisory xact lock's transaction handed to a same-file function inside an options object
 * (`purge({ conn: trx, orgId })`, the function destructuring `{ conn }` or `{ conn: db }`): the function writes on
 * the locked transaction and cannot outlive the lock. Handed the pool, or called once with the
 * pool, its write is reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const jobs = (first: string, second: string) => `import { drizzle } from 'drizzle-orm/postgres-js';
import { eq, sql } from 'drizzle-orm';
import { invites, quotas } from './schema';

const pool = drizzle(process.env.DATABASE_URL!);

export class Cleanup {
  static async forOrg(orgId: string) {
    return pool.transaction(async (trx) => {
      const got = await trx.execute(sql\`select pg_try_advisory_xact_lock(hashtext(\${orgId})) as locked\`);
      if (!got[0]?.locked) return;
      await Cleanup.#purge({ conn: ${first}, orgId });
      await resetQuota({ orgId, conn: ${second} });
    });
  }

  static async #purge({ conn, orgId }: { conn: any; orgId: string }) {
    await conn.delete(invites).where(eq(invites.orgId, orgId));
  }
}

async function resetQuota({ orgId, conn: db }: { orgId: string; conn: any }) {
  await db.update(quotas).set({ used: 0 }).where(eq(quotas.orgId, orgId));
}
`;

const schema = 'export const invites = {} as any;\nexport const quotas = {} as any;\n';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('an xact lock transaction handed on inside an options object', () => {
  it('a destructured property every caller fills with the locked transaction: no finding', async () => {
    current = project({ 'schema.ts': schema, 'jobs.ts': jobs('trx', 'trx') });
    const results = await current.lint('jobs.ts');
    expect(findings(results.get('jobs.ts'))).toEqual([]);
  });

  it('the same property filled with the pool is reported', async () => {
    current = project({ 'schema.ts': schema, 'jobs.ts': jobs('pool', 'pool') });
    const results = await current.lint('jobs.ts');
    expect(findings(results.get('jobs.ts'))).toEqual(['18 fencelint/require-fence-condition', '23 fencelint/require-fence-condition']);
  });

  it('a property renamed where it is destructured, filled with the pool, keeps that write reported', async () => {
    current = project({ 'schema.ts': schema, 'jobs.ts': jobs('trx', 'pool') });
    const results = await current.lint('jobs.ts');
    expect(findings(results.get('jobs.ts'))).toEqual(['23 fencelint/require-fence-condition']);
  });
});
