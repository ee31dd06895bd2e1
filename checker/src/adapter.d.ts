/**
 * The contracts between the checker and the thing it checks. A user module implements
 * `ResourceAdapter` (and optionally `AuthorityAdapter`) so that any resource, SQL or not,
 * can be replayed under the stale-write interleavings. See checker/README.md.
 */
/** Logical time, advanced only by the checker: an authority must read time from here, never from Date.now(). */
export interface Clock {
    /** Current logical time in milliseconds. */
    now(): number;
}
export interface WriteRequest {
    key: string;
    value: string;
    fenceToken: number;
    /** Present when the subject declares an operationId (idempotency key). */
    operationId?: string;
}
/**
 * `accepted`: the write took effect. `stale`: the resource refused it because of the token.
 * `duplicate`: refused because the operationId was already applied. Anything else is an error.
 */
export type WriteStatus = 'accepted' | 'stale' | 'duplicate' | 'error';
export interface WriteResult {
    status: WriteStatus;
    /** Highest token the resource had accepted, when it can tell. Shown in the timeline. */
    highest?: number;
    detail?: string;
}
export interface ResourceAdapter {
    write(request: WriteRequest): Promise<WriteStatus | WriteResult>;
    /** The current value for the key, or null when there is none. */
    read(key: string): Promise<string | null>;
    /** Close and reopen (a process restart). State that is durable must survive it. */
    restart?(): Promise<void>;
    /** Forget everything, back to the state right after creation. Used between explored schedules. */
    reset?(): Promise<void>;
    close?(): Promise<void>;
}
export interface LeaseHandle {
    key: string;
    ownerId: string;
    leaseId: string;
    fenceToken: number;
}
export interface AuthorityAdapter {
    /** Grant a lease for `key` lasting `ttlMs` of the checker's clock, or return null while another lease is live. */
    acquire(key: string, ttlMs: number, ownerId: string): Promise<LeaseHandle | null>;
    /** Release this handle's lease. Must not remove a newer lease on the same key. */
    release(handle: LeaseHandle): Promise<void | boolean>;
    /** Close and reopen the authority (a process restart). A durable authority keeps its counter. */
    restart(): Promise<void>;
    /** The live lease on `key` (expired leases count as none). Optional: without it the checker probes with acquire. */
    holder?(key: string): Promise<{
        leaseId: string;
        fenceToken?: number;
    } | null>;
    reset?(): Promise<void>;
    close?(): Promise<void>;
}
/** What the checker hands to the module's factories. */
export interface AdapterContext {
    clock: Clock;
    /** The resource key every scenario uses. */
    key: string;
    /** A scratch directory for this check, removed afterwards. */
    workDir: string;
}
/**
 * The shape of a module given to `fencelint-check --module`. Named exports or a default export
 * with the same members.
 */
export interface CheckerModule {
    createResource(context: AdapterContext): ResourceAdapter | Promise<ResourceAdapter>;
    createAuthority?(context: AdapterContext): AuthorityAdapter | Promise<AuthorityAdapter>;
    /** True when `write` honours `operationId`; enables the replay scenario. */
    operationIds?: boolean;
    /**
     * True when the resource adapter never consults the authority or the clock. Lets the
     * exploration treat writes as independent of lease steps (a smaller search). Default false.
     */
    resourceIndependentOfAuthority?: boolean;
}
export declare function normalizeWriteResult(result: WriteStatus | WriteResult | unknown): WriteResult;
