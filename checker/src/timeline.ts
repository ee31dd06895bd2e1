/** What happened in one run, step by step, in the article's notation. */
export type Actor = string; // 'A', 'B', 'C' for workers, 'system' for expiry and restarts

export type Action = 'acquire' | 'pause' | 'expire' | 'write' | 'release' | 'restart' | 'read' | 'note';

export interface TimelineEvent {
  /** Logical time in seconds. */
  t: number;
  actor: Actor;
  action: Action;
  /** The call, e.g. `write(v1, token=41)`. */
  call: string;
  /** The result, e.g. `rejected; highest=42`. */
  result?: string;
  lease?: { leaseId: string; fenceToken: number };
  write?: { value: string; token: number; status: string; operationId?: string };
  /** Invariant broken by this step, if any. */
  violation?: Violation;
}

export type InvariantId =
  | 'stale-write-accepted'
  | 'value-not-latest'
  | 'write-error'
  | 'duplicate-effect'
  | 'release-removed-newer-lease'
  | 'token-not-increasing'
  | 'state-lost-on-restart'
  | 'lease-refused'
  | 'newest-write-rejected'
  | 'stale-delete-accepted'
  | 'newest-delete-rejected';

export interface Violation {
  invariant: InvariantId;
  message: string;
}

export function renderTimeline(events: TimelineEvent[]): string {
  const width = Math.max(1, ...events.map((e) => String(e.t).length));
  return events
    .map((e) => {
      const time = `t=${String(e.t).padEnd(width)}`;
      const who = e.actor === 'system' ? '' : `${e.actor}: `;
      const line = `${time} ${who}${e.call}${e.result !== undefined ? ` -> ${e.result}` : ''}`;
      return e.violation ? `${line}\n${' '.repeat(time.length + 1)}!! ${e.violation.message}` : line;
    })
    .join('\n');
}
