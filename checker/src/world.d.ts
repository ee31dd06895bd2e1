import { type LeaseHandle, type WriteResult } from './adapter.js';
import type { ManualClock } from './clock.js';
import type { Subject } from './subject.js';
import type { TimelineEvent, Violation } from './timeline.js';
export declare const RESOURCE_KEY = "resource-7";
export declare const LEASE_TTL_MS = 10000;
/**
 * Executes the steps of a scenario or of an explored schedule against a subject, records the
 * timeline and checks the invariants after every step:
 * - accepted tokens strictly increase (a stale or replayed write is never accepted);
 * - the stored value is the value of the highest accepted token (a rejected write changes nothing,
 *   an accepted one is really stored);
 * - a write ends in an explicit outcome, not an error;
 * - at most one accepted write per operationId;
 * - releasing an old handle leaves a newer lease in place;
 * - the authority's tokens strictly increase, across restarts too.
 * Every invariant is about the resource's history or the authority's history alone; explore.ts
 * relies on that.
 */
export declare class World {
    readonly subject: Subject;
    readonly clock: ManualClock;
    readonly key: string;
    events: TimelineEvent[];
    violations: Violation[];
    handles: Map<string, LeaseHandle>;
    private highestAccepted;
    private expectedValue;
    private highestIssued;
    private effects;
    private leaseExpiry;
    /**
     * Shown time in seconds. Separate from the clock on purpose: the clock moves only on expire(),
     * so whether a lease is live never depends on how many other steps ran (explore.ts needs that).
     */
    private shownT;
    constructor(subject: Subject, clock: ManualClock, key?: string);
    /** Read the starting value; call once before the first step. */
    start(): Promise<void>;
    /** Everything the next steps and the invariants depend on, to backtrack the exploration. */
    snapshot(): WorldSnapshot;
    restore(s: WorldSnapshot): void;
    /** The state as far as the invariants and the next steps can tell (not the timeline). */
    digest(): string;
    get broken(): boolean;
    private record;
    private tick;
    acquire(worker: string): Promise<LeaseHandle | null>;
    pause(worker: string): void;
    /** Move the clock past every lease granted so far. */
    expire(): void;
    write(worker: string, value: string, token: number, operationId?: string): Promise<WriteResult>;
    release(worker: string): Promise<void>;
    /** Restart resource and authority; the stored value must survive. */
    restart(mode: 'process' | 'session'): Promise<void>;
    /** A check specific to a scenario, recorded as a violation on the timeline. */
    fail(violation: Violation, call: string): void;
    value(): string | null;
    get issuedHighest(): number;
}
export interface WorldSnapshot {
    events: TimelineEvent[];
    violations: Violation[];
    handles: Map<string, LeaseHandle>;
    highestAccepted: number;
    expectedValue: string | null;
    highestIssued: number;
    effects: Map<string, number>;
    leaseExpiry: Map<string, number>;
    shownT: number;
    clockMs: number;
}
