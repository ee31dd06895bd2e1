export { createResource, operationIds, resourceIndependentOfAuthority } from './fenced-file-store.js';
export function createAuthority(context) {
    let counter = 0;
    const leases = new Map();
    return {
        async acquire(key, ttlMs, ownerId) {
            const now = context.clock.now();
            const live = leases.get(key);
            if (live && live.expiresAt > now)
                return null;
            const fenceToken = ++counter;
            const leaseId = `lease-${ownerId}-${fenceToken}`;
            leases.set(key, { leaseId, fenceToken, expiresAt: now + ttlMs });
            return { key, ownerId, leaseId, fenceToken };
        },
        async release(handle) {
            leases.delete(handle.key); // the bug: by key only
        },
        async holder(key) {
            const live = leases.get(key);
            return live && live.expiresAt > context.clock.now() ? { leaseId: live.leaseId, fenceToken: live.fenceToken } : null;
        },
        async restart() {
            counter = 0; // the bug: the counter is not durable
            leases.clear();
        },
    };
}
//# sourceMappingURL=memory-authority.js.map