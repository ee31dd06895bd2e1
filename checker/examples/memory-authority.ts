/**
 * Example of an authority the checker rejects: the fence counter lives in process memory (a
 * restart starts it again at 1) and release deletes by key, whoever holds the lease now.
 * The resource is the fenced file store, so every failure here is the authority's.
 *
 *   fencelint-check --module checker/examples/memory-authority.ts     # exit 1
 */
import type { AdapterContext, AuthorityAdapter, LeaseHandle } from 'fencelint-checker';

export { createResource, operationIds, resourceIndependentOfAuthority } from './fenced-file-store.js';

export function createAuthority(context: AdapterContext): AuthorityAdapter {
  let counter = 0;
  const leases = new Map<string, { leaseId: string; fenceToken: number; expiresAt: number }>();
  return {
    async acquire(key: string, ttlMs: number, ownerId: string): Promise<LeaseHandle | null> {
      const now = context.clock.now();
      const live = leases.get(key);
      if (live && live.expiresAt > now) return null;
      const fenceToken = ++counter;
      const leaseId = `lease-${ownerId}-${fenceToken}`;
      leases.set(key, { leaseId, fenceToken, expiresAt: now + ttlMs });
      return { key, ownerId, leaseId, fenceToken };
    },
    async release(handle: LeaseHandle): Promise<void> {
      leases.delete(handle.key); // the bug: by key only
    },
    async holder(key: string) {
      const live = leases.get(key);
      return live && live.expiresAt > context.clock.now() ? { leaseId: live.leaseId, fenceToken: live.fenceToken } : null;
    },
    async restart(): Promise<void> {
      counter = 0; // the bug: the counter is not durable
      leases.clear();
    },
  };
}
