import type { Subject } from './subject.js';
import type { InvariantId, TimelineEvent } from './timeline.js';
/**
 * Systematic exploration of the workers' step sequences.
 *
 * Each worker runs `acquire, pause, write, release` (a failed acquire ends it); the environment
 * may `expire` every live lease (up to `workers - 1` times) and `restart` resource and authority
 * (once, as a new session). Every interleaving is run for real against the subject, replaying
 * the prefix from a reset when the search backtracks.
 *
 * Partial-order reduction, and why it is sound here. Two steps are dependent when they belong
 * to the same worker or touch a common object: the resource R, the authority A, the clock C.
 *   write: R (plus A and C for a module whose resource may consult leases)
 *   acquire, release: A, C       expire: C       restart: R, A       pause: nothing
 * Independent steps commute: running them in either order leaves R, A and C in the same state
 * and neither enables or disables the other (expire is enabled by live leases, which only
 * acquire and release change, both dependent with it; restart is enabled once a lease was
 * granted or a write ran). Every invariant (world.ts) reads either R's history or A's history,
 * and steps on the same object are never reordered, so all interleavings of one Mazurkiewicz
 * trace reach the same verdict. The search therefore needs one interleaving per trace:
 * - sleep sets (Godefroid): after exploring step t from a state, t is not tried again from the
 *   states reached through steps independent of t, whose orderings were already covered;
 * - a pause is independent of every step and never disabled, so when a worker's next step is a
 *   pause it is taken alone (a persistent set of size one).
 * The clock only moves on expire (world.ts), which is what keeps write independent of leases.
 * The reduction assumes the subject is deterministic: the same steps give the same results.
 */
type Kind = 'acquire' | 'pause' | 'write' | 'release' | 'expire' | 'restart';
export interface Step {
    actor: string;
    kind: Kind;
}
export interface ExploreOptions {
    workers: number;
    /** Expire steps allowed in one schedule (default workers - 1). */
    maxExpires?: number;
    /** Restart steps allowed in one schedule (default 1; 0 for subjects whose restart changes nothing, see Subject). */
    maxRestarts?: number;
    /** false: try every interleaving (no reduction); for cross-checking the reduction. Default true. */
    reduce?: boolean;
    /** Called now and then with the figures so far. */
    onProgress?(progress: ExploreProgress): void;
}
export interface ExploreProgress {
    workers: number;
    states: number;
    schedules: number;
}
export interface CounterExample {
    invariant: InvariantId;
    message: string;
    schedule: string[];
    timeline: TimelineEvent[];
}
export interface ExploreResult {
    workers: number;
    bound: {
        maxExpires: number;
        maxRestarts: number;
    };
    /** Distinct states reached (edges of the reduced search tree). */
    states: number;
    /** Complete schedules (one per trace), plus the cut-off violating ones. */
    schedules: number;
    /** Steps run against the subject, replays included. */
    stepsExecuted: number;
    elapsedMs: number;
    counterExample?: CounterExample;
}
export declare const describeStep: (s: Step) => string;
export declare function dependent(a: Step, b: Step, writesIndependent: boolean): boolean;
export declare function explore(subject: Subject, options: ExploreOptions): Promise<ExploreResult>;
export {};
