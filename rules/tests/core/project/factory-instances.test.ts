/**
 * An instance of a project class handed out by an imported factory: a function that returns
 * `new Ledger(...)` on its every path, or a memoising wrapper around one (`once(() => new Ledger())`,
 * as lodash's `once` or `memoize` make), so `sharedLedger().settle(...)` is the class's method and
 * its writes are made at the call. A factory that hands back something else on another path says
 * nothing about what it returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/ledger.ts': `import { Pool } from 'pg';

export class Ledger {
  constructor(private readonly pool: Pool) {}

  async settle(accountId: string, cents: number) {
    await this.pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [cents, accountId]);
  }

  async peek(accountId: string) {
    const { rows } = await this.pool.query('SELECT balance FROM accounts WHERE id = $1', [accountId]);
    return rows[0]?.balance;
  }
}
`,
  'src/ledgers.ts': `import { once } from 'lodash';
import { Pool } from 'pg';
import { Ledger } from './ledger';

const pool = new Pool();
let cached: Ledger | undefined;

export const sharedLedger = once(() => new Ledger(pool));

export function openLedger() {
  return new Ledger(pool);
}

export function reuseLedger(fresh: boolean) {
  if (!fresh && cached) return cached;
  cached = new Ledger(pool);
  return cached;
}
`,
};

describe('an instance an imported factory hands out', () => {
  it('has the methods of its class, through a memoising wrapper or a plain factory', async () => {
    current = project({
      ...files,
      'src/payouts.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { sharedLedger, openLedger, reuseLedger } from './ledgers';

const redlock = new Redlock([new Redis()]);

export async function payout(accountId: string, cents: number) {
  await redlock.using(['account:' + accountId], 5000, async () => {
    await sharedLedger().settle(accountId, cents);
    await openLedger().settle(accountId, cents + 1);
    await sharedLedger().peek(accountId);
    await reuseLedger(false).settle(accountId, cents + 2);
  });
}
`,
    });
    const results = await current.lint('src/payouts.ts');
    expect(findings(results.get('src/payouts.ts'))).toEqual(['9 fencelint/require-fence-condition', '10 fencelint/require-fence-condition']);
  });
});
