import type { Clock } from './adapter.js';
/** The checker's logical clock: time moves only when a step moves it, so every run is repeatable. */
export declare class ManualClock implements Clock {
    private ms;
    now(): number;
    /** Logical seconds, as the timeline shows them. */
    seconds(): number;
    advanceTo(ms: number): void;
    advanceSeconds(s: number): void;
    /** Back to an earlier reading, when the exploration backtracks. */
    set(ms: number): void;
    reset(): void;
}
