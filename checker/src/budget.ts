import { BadInputError } from './errors.js';

/** Default overall deadline of one check (`--timeout`). A check normally takes seconds. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default statement_timeout of every session the checker opens. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
/** Default lock_timeout of every session the checker opens. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

/** The check ran out of its overall deadline; names the step that was running. */
export class DeadlineError extends BadInputError {
  constructor(
    readonly step: string,
    readonly timeoutMs: number,
  ) {
    super(`the check ran out of time (--timeout ${seconds(timeoutMs)}) during ${step}; nothing was left behind`);
  }
}

/** The check was interrupted (SIGINT, SIGTERM, or the caller's AbortSignal). */
export class InterruptedError extends BadInputError {
  constructor(
    readonly reason: string,
    readonly step: string,
  ) {
    super(`interrupted by ${reason} during ${step}; nothing was left behind`);
  }
}

/**
 * Where a check is and how long it may still run. Every step of the check names itself here,
 * so that a deadline or an interruption says what was running; `settle` ends the wait for a
 * promise (a query, a module's write) that would otherwise never settle.
 */
export class Budget {
  private phase = 'the start';
  private action: string | undefined;
  private call: string | undefined;
  private readonly deadlineAt: number;
  /** Rejects when the deadline passes or the signal aborts; never resolves. */
  readonly expired: Promise<never>;
  private timer: NodeJS.Timeout | undefined;
  private rejectExpired!: (error: Error) => void;

  constructor(
    readonly timeoutMs: number = DEFAULT_TIMEOUT_MS,
    private readonly signal?: AbortSignal,
  ) {
    this.deadlineAt = performance.now() + timeoutMs;
    this.expired = new Promise<never>((_, reject) => (this.rejectExpired = reject));
    this.expired.catch(() => {}); // observed through settle(); never an unhandled rejection
    this.timer = setTimeout(() => this.rejectExpired(new DeadlineError(this.step, timeoutMs)), timeoutMs);
    if (signal) {
      const onAbort = () => this.rejectExpired(new InterruptedError(reasonOf(signal), this.step));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  }

  /** A stage of the check: "creating the scratch database", "scenario 1 (stale-write)". */
  enter(phase: string): void {
    this.phase = phase;
    this.action = undefined;
    this.call = undefined;
  }

  /** The action within the stage: "B: write(v2, token=42)". */
  doing(action: string): void {
    this.action = action;
    this.call = undefined;
  }

  /** A call into the user's module within the action: "the module's resource.write()". */
  calling(call: string): void {
    this.call = call;
  }

  get step(): string {
    const at = this.action ? `${this.phase}, at ${this.action}` : this.phase;
    return this.call ? `${at} (waiting for ${this.call} to settle)` : at;
  }

  remainingMs(): number {
    return Math.max(0, this.deadlineAt - performance.now());
  }

  /** Waits for `work`, but no longer than the deadline or an interruption. */
  settle<T>(work: Promise<T>): Promise<T> {
    work.catch(() => {}); // it may reject after the race was lost
    return Promise.race([work, this.expired]);
  }

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the caller (AbortSignal)';
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
