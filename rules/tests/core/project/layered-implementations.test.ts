/**
 * A repository contract in the domain layer and its class in the infrastructure layer, in folders
 * that share nothing but the container binding (`{ provide: 'LedgerStore', useClass: SqlLedgerStore }`)
 * and the `@Inject(...)` token: a service that holds a lock and writes through the contract writes
 * through the class bound to it that says `implements` the contract.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const contract = `export const LEDGER_STORE = 'LedgerStore';

export interface LedgerEntry {
  walletId: string;
  balance: number;
}

export default interface ILedgerStore {
  load(walletId: string): Promise<LedgerEntry>;
  store(entry: LedgerEntry): Promise<void>;
}
`;

const sqlStore = (implementsClause: string) => `import { Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import ILedgerStore, { LedgerEntry } from '../../domain/ledger/ILedgerStore';

@Injectable()
export default class SqlLedgerStore ${implementsClause}{
  private readonly pool = new Pool();

  async load(walletId: string): Promise<LedgerEntry> {
    const { rows } = await this.pool.query('SELECT wallet_id, balance FROM ledger WHERE wallet_id = $1', [walletId]);
    return { walletId, balance: Number(rows[0].balance) };
  }

  async store(entry: LedgerEntry): Promise<void> {
    await this.pool.query('UPDATE ledger SET balance = $1 WHERE wallet_id = $2', [entry.balance, entry.walletId]);
  }
}
`;

const providers = `import SqlLedgerStore from './infra/sql/SqlLedgerStore';

export const providers = [{ provide: 'LedgerStore', useClass: SqlLedgerStore }];
`;

const service = `import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import ILedgerStore, { LEDGER_STORE } from '../domain/ledger/ILedgerStore';

@Injectable()
export class TopUpService {
  private readonly redis = new Redis();

  constructor(@Inject(LEDGER_STORE) private readonly ledger: ILedgerStore) {}

  async topUp(walletId: string, amount: number) {
    const key = 'lock:wallet:' + walletId;
    if ((await this.redis.set(key, '1', 'PX', 3000, 'NX')) !== 'OK') return;
    try {
      const entry = await this.ledger.load(walletId);
      await this.ledger.store({ ...entry, balance: entry.balance + amount });
    } finally {
      await this.redis.del(key);
    }
  }
}
`;

const base = {
  'package.json': '{ "name": "wallets", "private": true }',
  'src/domain/ledger/ILedgerStore.ts': contract,
  'src/providers.ts': providers,
  'src/application/top-up.service.ts': service,
};

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a contract implemented in another layer, joined by a container binding', () => {
  it('reads the write through the bound class that implements the contract', async () => {
    current = project({ ...base, 'src/infra/sql/SqlLedgerStore.ts': sqlStore('implements ILedgerStore ') });
    const results = await current.lint('src/application/top-up.service.ts');
    expect(findings(results.get('src/application/top-up.service.ts'))).toContain('16 fencelint/require-fence-condition');
  });

  it('does not take a bound class that does not say it implements the contract', async () => {
    current = project({ ...base, 'src/infra/sql/SqlLedgerStore.ts': sqlStore('') });
    const results = await current.lint('src/application/top-up.service.ts');
    expect(findings(results.get('src/application/top-up.service.ts'))).not.toContain('16 fencelint/require-fence-condition');
  });

  it('does not take a class that implements the contract but no container binds', async () => {
    current = project({ ...base, 'src/providers.ts': 'export const providers = [];\n', 'src/infra/sql/SqlLedgerStore.ts': sqlStore('implements ILedgerStore ') });
    const results = await current.lint('src/application/top-up.service.ts');
    expect(findings(results.get('src/application/top-up.service.ts'))).not.toContain('16 fencelint/require-fence-condition');
  });
});
