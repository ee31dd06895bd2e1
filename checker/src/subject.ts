import type { AuthorityAdapter, ResourceAdapter } from './adapter.js';
import type { ManualClock } from './clock.js';

/** What the scenarios drive: a resource, an authority, and how to restart or reset them together. */
export interface Subject {
  /** e.g. `UPDATE resource_state ... (PGlite 0.5.17)` */
  description: string;
  resource: ResourceAdapter;
  /** The clock the authority reads; only the checker moves it. */
  clock: ManualClock;
  authority: AuthorityAdapter;
  authorityDescription: string;
  /** Writes carry an operationId: enables the replay scenario and the one-effect invariant. */
  operationIds: boolean;
  /** Writes never consult the authority or the clock (allows a smaller exploration, see explore.ts). */
  writesIndependentOfLeases: boolean;
  /**
   * `process`: close and reopen both (PGlite reopens its data directory, a server gets a new
   * connection). `session`: the cheap form used inside the exploration (a new session).
   */
  restart(mode: 'process' | 'session'): Promise<void>;
  /**
   * True when an explored restart cannot change anything (a SQL subject: its whole state is in
   * PostgreSQL, restarted for real in scenario 3); the exploration then explores no restarts by default.
   */
  restartIsNoopInExploration?: boolean;
  /** Back to the starting state: the seeded row, no leases, the counter at its start. */
  reset(): Promise<void>;
  /**
   * Cheap backtracking for the exploration, when the subject's whole state lives in one
   * database: one transaction, a savepoint per depth. Without it the exploration replays.
   */
  checkpoints?: {
    begin(): Promise<void>;
    /** Savepoint for `depth`; the returned function rolls back to it (any number of times). */
    save(depth: number): Promise<() => Promise<void>>;
    /** Roll everything back. */
    end(): Promise<void>;
  };
  /**
   * Set for a DELETE subject: its write is the delete, and the newer holder's own write (the row
   * it stored with its token) is put by the checker. The observation is whether the row is there.
   */
  deletes?: {
    put(key: string, value: string, token: number): Promise<void>;
    present(key: string): Promise<boolean>;
  };
  /** Issue tokens from `first` until the next reset (the built-in authority only). */
  startTokensAt?(first: number): Promise<void>;
  /** Told before every step, so that a deadline can name the step that ran out. */
  step?(action: string): void;
  /** The subject's complete state as text, when it can be read whole (lets the exploration merge equal states). */
  digest?(): Promise<string>;
}
