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
  /** Back to the starting state: the seeded row, no leases, the counter at its start. */
  reset(): Promise<void>;
}
