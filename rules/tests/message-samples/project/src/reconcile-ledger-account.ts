// A service takes the lock and writes through a repository in another module.
import Redlock from 'redlock';
import Redis from 'ioredis';
import { overwriteLedgerAccountBalance } from './repositories/ledger-entries.js';

const redlock = new Redlock([new Redis(process.env.REDIS_URL)]);

export async function reconcileLedgerAccountBalance(ledgerAccountIdentifier: string, recomputedBalance: bigint): Promise<void> {
  const ledgerReconciliationLock = await redlock.acquire([`ledger-reconciliation:${ledgerAccountIdentifier}`], 20_000);
  try {
    await overwriteLedgerAccountBalance(ledgerAccountIdentifier, recomputedBalance);
  } finally {
    await ledgerReconciliationLock.release();
  }
}
