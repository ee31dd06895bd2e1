import { Pool } from 'pg';

const ledgerDatabasePool = new Pool({ connectionString: process.env.LEDGER_DATABASE_URL });

export async function overwriteLedgerAccountBalance(ledgerAccountIdentifier: string, balanceInMinorUnits: bigint): Promise<void> {
  await ledgerDatabasePool.query('UPDATE ledger_account_balances SET balance_minor_units = $1 WHERE account_id = $2', [
    balanceInMinorUnits.toString(),
    ledgerAccountIdentifier,
  ]);
}
