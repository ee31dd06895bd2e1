// Settlement worker: every write below runs under a lease and misses part of its fence.
import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { PrismaClient } from '@prisma/client';
import { LeaseAuthorityClient } from '@payments/lease-authority';

const settlementDatabasePool = new Pool({ connectionString: process.env.SETTLEMENT_DATABASE_URL });
const redlock = new Redlock([new Redis(process.env.REDIS_URL)]);
const prisma = new PrismaClient();
const leaseAuthority = new LeaseAuthorityClient({ endpoint: process.env.LEASE_AUTHORITY_URL });

export class MerchantSettlementService {
  constructor(private readonly distributedLockCoordinator: Redlock) {}

  // No token in scope at all: redlock hands out none.
  async markSettlementBatchClosed(merchantAccountIdentifier: string, settlementBatchIdentifier: string): Promise<void> {
    const merchantSettlementLock = await (this.distributedLockCoordinator as any).acquire([`settlement:${merchantAccountIdentifier}`], 30_000);
    try {
      await settlementDatabasePool.query(
        'UPDATE merchant_settlement_batches SET closed_at = now(), status = $1 WHERE merchant_account_id = $2 AND batch_id = $3',
        ['closed', merchantAccountIdentifier, settlementBatchIdentifier],
      );
    } finally {
      await merchantSettlementLock.release();
    }
  }

  // A DELETE under the lock: a late one deletes, it does not overwrite.
  async purgeExpiredSettlementDrafts(merchantAccountIdentifier: string): Promise<void> {
    const purgeLock = await (redlock as any).acquire([`settlement-drafts:${merchantAccountIdentifier}`], 30_000);
    try {
      await settlementDatabasePool.query('DELETE FROM merchant_settlement_drafts WHERE merchant_account_id = $1', [merchantAccountIdentifier]);
    } finally {
      await purgeLock.release();
    }
  }
}

// The authority issues a token; the write ignores it, then compares it without storing it.
export async function recordPayoutInstruction(merchantAccountIdentifier: string, payoutInstructionPayload: string): Promise<void> {
  const payoutInstructionLease = await leaseAuthority.acquire(`payout:${merchantAccountIdentifier}`, { ttlMs: 15_000 });
  try {
    await settlementDatabasePool.query(
      'UPDATE merchant_payout_instructions SET instruction_payload = $1 WHERE merchant_account_id = $2',
      [payoutInstructionPayload, merchantAccountIdentifier],
    );
    await settlementDatabasePool.query(
      'UPDATE merchant_payout_totals SET payload = $1 WHERE merchant_account_id = $2 AND fence_token < $3',
      [payoutInstructionPayload, merchantAccountIdentifier, payoutInstructionLease.fenceToken],
    );
    await prisma.merchantPayoutSchedule.update({
      where: { merchantAccountId: merchantAccountIdentifier },
      data: { nextPayoutAt: new Date() },
    });
  } finally {
    await leaseAuthority.release(payoutInstructionLease);
  }
}

// A repository handed the caller's lease: it writes without any token.
export async function persistMerchantPayoutSchedule(merchantAccountIdentifier: string, payoutScheduleLease: { leaseId: string }, nextPayoutAt: Date): Promise<void> {
  await settlementDatabasePool.query('UPDATE merchant_payout_schedules SET next_payout_at = $1 WHERE merchant_account_id = $2', [
    nextPayoutAt,
    merchantAccountIdentifier,
  ]);
  void payoutScheduleLease;
}

// A repository handed the caller's fence token: it writes without comparing it.
export async function persistMerchantPayoutTotals(merchantAccountIdentifier: string, totalsInMinorUnits: bigint, payoutFenceToken: bigint): Promise<void> {
  await settlementDatabasePool.query('UPDATE merchant_payout_totals SET total_minor_units = $1 WHERE merchant_account_id = $2', [
    totalsInMinorUnits.toString(),
    merchantAccountIdentifier,
  ]);
  void payoutFenceToken;
}

// A helper that two locked operations share makes two writes: each call is one finding naming both.
async function moveMerchantReserveBetweenSettlementAccounts(merchantAccountIdentifier: string, reserveAmountInMinorUnits: number): Promise<void> {
  await settlementDatabasePool.query('UPDATE merchant_settlement_reserve_balances SET amount = $1, updated_at = now() WHERE merchant_account_id = $2', [reserveAmountInMinorUnits, merchantAccountIdentifier]);
  await settlementDatabasePool.query('UPDATE merchant_settlement_available_balances SET amount = $1, updated_at = now() WHERE merchant_account_id = $2', [reserveAmountInMinorUnits, merchantAccountIdentifier]);
}

export async function releaseMerchantReserve(merchantAccountIdentifier: string, reserveAmountInMinorUnits: number): Promise<void> {
  const merchantReserveLock = await redlock.acquire([`reserve:${merchantAccountIdentifier}`], 30_000);
  try {
    await moveMerchantReserveBetweenSettlementAccounts(merchantAccountIdentifier, reserveAmountInMinorUnits);
  } finally {
    await merchantReserveLock.release();
  }
}

export async function rebalanceMerchantReserve(merchantAccountIdentifier: string, reserveAmountInMinorUnits: number): Promise<void> {
  const merchantReserveLock = await redlock.acquire([`reserve:${merchantAccountIdentifier}`], 30_000);
  try {
    await moveMerchantReserveBetweenSettlementAccounts(merchantAccountIdentifier, -reserveAmountInMinorUnits);
  } finally {
    await merchantReserveLock.release();
  }
}
