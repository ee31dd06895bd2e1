import type { AuthorityAdapter, Clock, LeaseHandle } from './adapter.js';
import type { Database } from './backend/database.js';
/**
 * The checker's own lock authority: a table in the scratch schema holding, per key, a durable
 * monotonic counter and the live lease. acquire is one `UPDATE ... RETURNING token`, release
 * names the lease it releases, so it is the reference a user's authority is compared with.
 * Tokens start at 41, as in the article.
 */
export declare const AUTHORITY_TABLE = "fencelint_authority";
export declare class DurableAuthority implements AuthorityAdapter {
    private readonly db;
    private readonly clock;
    /** Leases granted per owner, to name a second lease of the same owner `lease-A-2`. */
    private readonly granted;
    constructor(db: Database, clock: Clock);
    install(): Promise<void>;
    acquire(key: string, ttlMs: number, ownerId: string): Promise<LeaseHandle | null>;
    release(handle: LeaseHandle): Promise<boolean>;
    holder(key: string): Promise<{
        leaseId: string;
        fenceToken: number;
    } | null>;
    /** Reopen the database that holds the table: the counter is durable, so it survives. */
    restart(): Promise<void>;
    /** The in-process part of the state (lease naming), for backtracking with savepoints. */
    snapshot(): Map<string, number>;
    restore(granted: Map<string, number>): void;
    reset(): Promise<void>;
}
