import type { Clock } from './adapter.js';

/** The checker's logical clock: time moves only when a step moves it, so every run is repeatable. */
export class ManualClock implements Clock {
  private ms = 0;
  now(): number {
    return this.ms;
  }
  /** Logical seconds, as the timeline shows them. */
  seconds(): number {
    return Math.round(this.ms / 1000);
  }
  advanceTo(ms: number): void {
    if (ms > this.ms) this.ms = ms;
  }
  advanceSeconds(s: number): void {
    this.ms += s * 1000;
  }
  /** Back to an earlier reading, when the exploration backtracks. */
  set(ms: number): void {
    this.ms = ms;
  }
  reset(): void {
    this.ms = 0;
  }
}
