/**
 * A repository of another module built on an advisory xact lock's transaction
 * (`new LedgerRepository(trx)`), whose methods write through what their constructor was given:
 * called inline, through a `const`, or through a parameter that every same-file caller fills with
 * such an instance, its writes run in the locked transaction. Built on the pool, they are reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const repository = `import { eq } from 'drizzle-orm';
import { ledgers } from './schema';

export class LedgerRepository {
  constructor(private readonly db: any) {}

  async close(ledgerId: string) {
    await this.db.update(ledgers).set({ state: 'closed' }).where(eq(ledgers.id, ledgerId));
  }
}
`;

const service = (built: string) => `import { drizzle } from 'drizzle-orm/postgres-js';
import { sql } from 'drizzle-orm';
import { LedgerRepository } from './ledger-repository';

const pool = drizzle(process.env.DATABASE_URL!);

export class PeriodClose {
  async run(ledgerId: string) {
    return pool.transaction(async (trx) => {
      const got = await trx.execute(sql\`select pg_try_advisory_xact_lock(hashtext(\${ledgerId})) as locked\`);
      if (!got[0]?.locked) return;
      const ledgers = new LedgerRepository(${built});
      await ledgers.close(ledgerId);
      await new LedgerRepository(${built}).close(ledgerId);
      await this.#finish({ ledgers, ledgerId });
    });
  }

  async #finish({ ledgers, ledgerId }: { ledgers: LedgerRepository; ledgerId: string }) {
    await ledgers.close(ledgerId);
  }
}
`;

const schema = 'export const ledgers = {} as any;\n';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a repository instance built on the locked transaction', () => {
  it('inline, through a const and through a destructured parameter: no finding', async () => {
    current = project({ 'schema.ts': schema, 'ledger-repository.ts': repository, 'period-close.ts': service('trx') });
    const results = await current.lint('period-close.ts');
    expect(findings(results.get('period-close.ts'))).toEqual([]);
  });

  it('the same repository built on the pool is reported at each call', async () => {
    current = project({ 'schema.ts': schema, 'ledger-repository.ts': repository, 'period-close.ts': service('pool') });
    const results = await current.lint('period-close.ts');
    expect(findings(results.get('period-close.ts'))).toEqual([
      '13 fencelint/require-fence-condition',
      '14 fencelint/require-fence-condition',
      '20 fencelint/require-fence-condition',
    ]);
  });
});
