// Token issuers that take their tokens from the clock, randomness or process memory.
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';

const leaseDatabasePool = new Pool({ connectionString: process.env.LEASE_DATABASE_URL });
let lastIssuedReplicationFenceToken = 0;

export class ReplicationLeaseAuthority {
  private readonly fenceTokensByReplicationShard = new Map<string, number>();

  issueReplicationLease(replicationShardIdentifier: string) {
    const replicationFenceToken = Date.now();
    return { replicationShardIdentifier, replicationFenceToken, leaseId: randomUUID() };
  }

  issueRandomReplicationLease(replicationShardIdentifier: string) {
    const fenceToken = randomUUID();
    return { replicationShardIdentifier, fenceToken };
  }

  issueShardLease(replicationShardIdentifier: string) {
    const next = (this.fenceTokensByReplicationShard.get(replicationShardIdentifier) ?? 0) + 1;
    this.fenceTokensByReplicationShard.set(replicationShardIdentifier, next);
    const fenceToken = next;
    return { replicationShardIdentifier, fenceToken };
  }
}

export function issueGlobalReplicationFenceToken(): number {
  const fencingToken = ++lastIssuedReplicationFenceToken;
  return fencingToken;
}

export async function grantReplicationLeaseRow(replicationShardIdentifier: string, holderIdentifier: string): Promise<void> {
  await leaseDatabasePool.query(
    'INSERT INTO replication_leases (shard_id, holder_id, fence_token) VALUES ($1, $2, (extract(epoch from clock_timestamp()) * 1000)::bigint)',
    [replicationShardIdentifier, holderIdentifier],
  );
  await leaseDatabasePool.query('UPDATE replication_leases SET fence_token = gen_random_uuid() WHERE shard_id = $1', [replicationShardIdentifier]);
}
