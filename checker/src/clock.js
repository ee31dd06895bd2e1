/** The checker's logical clock: time moves only when a step moves it, so every run is repeatable. */
export class ManualClock {
    ms = 0;
    now() {
        return this.ms;
    }
    /** Logical seconds, as the timeline shows them. */
    seconds() {
        return Math.round(this.ms / 1000);
    }
    advanceTo(ms) {
        if (ms > this.ms)
            this.ms = ms;
    }
    advanceSeconds(s) {
        this.ms += s * 1000;
    }
    /** Back to an earlier reading, when the exploration backtracks. */
    set(ms) {
        this.ms = ms;
    }
    reset() {
        this.ms = 0;
    }
}
//# sourceMappingURL=clock.js.map