import { normalizeWriteResult, type LeaseHandle, type WriteResult } from './adapter.js';
import type { ManualClock } from './clock.js';
import { BadInputError } from './errors.js';
import type { Subject } from './subject.js';
import type { TimelineEvent, Violation } from './timeline.js';

export const RESOURCE_KEY = 'resource-7';
export const LEASE_TTL_MS = 10_000;

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
export class World {
  events: TimelineEvent[] = [];
  violations: Violation[] = [];
  handles = new Map<string, LeaseHandle>();
  private highestAccepted = 0;
  private expectedValue: string | null = null;
  private highestIssued = 0;
  private effects = new Map<string, number>();
  private leaseExpiry = new Map<string, number>();
  /**
   * Shown time in seconds. Separate from the clock on purpose: the clock moves only on expire(),
   * so whether a lease is live never depends on how many other steps ran (explore.ts needs that).
   */
  private shownT = 0;

  constructor(
    readonly subject: Subject,
    readonly clock: ManualClock,
    readonly key = RESOURCE_KEY,
  ) {}

  /** Read the starting value; call once before the first step. */
  async start(): Promise<void> {
    this.subject.step?.('reading the starting value');
    this.expectedValue = await this.subject.resource.read(this.key);
  }

  /** Everything the next steps and the invariants depend on, to backtrack the exploration. */
  snapshot(): WorldSnapshot {
    return {
      events: this.events.slice(),
      violations: this.violations.slice(),
      handles: new Map(this.handles),
      highestAccepted: this.highestAccepted,
      expectedValue: this.expectedValue,
      highestIssued: this.highestIssued,
      effects: new Map(this.effects),
      leaseExpiry: new Map(this.leaseExpiry),
      shownT: this.shownT,
      operations: this.operations,
      clockMs: this.clock.now(),
    };
  }

  restore(s: WorldSnapshot): void {
    this.events = s.events.slice();
    this.violations = s.violations.slice();
    this.handles = new Map(s.handles);
    this.highestAccepted = s.highestAccepted;
    this.expectedValue = s.expectedValue;
    this.highestIssued = s.highestIssued;
    this.effects = new Map(s.effects);
    this.leaseExpiry = new Map(s.leaseExpiry);
    this.shownT = s.shownT;
    this.operations = s.operations;
    this.clock.set(s.clockMs);
  }

  /** The state as far as the invariants and the next steps can tell (not the timeline). */
  digest(): string {
    const live = [...this.leaseExpiry.entries()].filter(([, at]) => at > this.clock.now()).map(([id, at]) => `${id}@${at - this.clock.now()}`);
    return JSON.stringify([
      [...this.handles.entries()].map(([w, h]) => [w, h.leaseId, h.fenceToken]),
      this.highestAccepted,
      this.expectedValue,
      this.highestIssued,
      [...this.effects.entries()],
      live,
    ]);
  }

  get broken(): boolean {
    return this.violations.length > 0;
  }

  private record(event: Omit<TimelineEvent, 't'>): TimelineEvent {
    const full = { t: this.shownT, ...event };
    this.events.push(full);
    if (full.violation) this.violations.push(full.violation);
    return full;
  }

  private tick(): void {
    this.shownT += 1;
  }

  async acquire(worker: string): Promise<LeaseHandle | null> {
    const now = this.clock.now();
    this.subject.step?.(`${worker}: acquire(${this.key})`);
    const handle = await this.subject.authority.acquire(this.key, LEASE_TTL_MS, worker);
    const call = `acquire(${this.key})`;
    if (!handle) {
      this.record({ actor: worker, action: 'acquire', call, result: 'busy (another lease is live)' });
      this.tick();
      return null;
    }
    let violation: Violation | undefined;
    if (handle.fenceToken <= this.highestIssued) {
      violation = {
        invariant: 'token-not-increasing',
        message: `the authority issued fenceToken=${handle.fenceToken} after it had issued ${this.highestIssued}: tokens must strictly increase`,
      };
    }
    this.highestIssued = Math.max(this.highestIssued, handle.fenceToken);
    this.handles.set(worker, handle);
    this.leaseExpiry.set(handle.leaseId, now + LEASE_TTL_MS);
    this.record({
      actor: worker,
      action: 'acquire',
      call,
      result: `${handle.leaseId}, fenceToken=${handle.fenceToken}`,
      lease: { leaseId: handle.leaseId, fenceToken: handle.fenceToken },
      violation,
    });
    this.tick();
    return handle;
  }

  pause(worker: string): void {
    this.record({ actor: worker, action: 'pause', call: 'pause (GC pause, slow call)' });
  }

  /** Move the clock past every lease granted so far. */
  expire(): void {
    const live = [...this.leaseExpiry.entries()].filter(([, at]) => at > this.clock.now());
    const until = Math.max(this.clock.now(), ...live.map(([, at]) => at));
    this.clock.advanceTo(until);
    this.shownT += LEASE_TTL_MS / 1000 - 1;
    const names = live.map(([id]) => id).join(', ');
    this.record({ actor: 'system', action: 'expire', call: live.length ? `${names} expired` : 'time passes (no live lease)' });
    this.tick();
  }

  private operations = 0;

  /** With an operationId-aware subject, a write without one given gets a fresh id (a new operation). */
  async write(worker: string, value: string, token: number, givenOperationId?: string): Promise<WriteResult> {
    const operationId = givenOperationId ?? (this.subject.operationIds ? `op-new-${++this.operations}` : undefined);
    const request = { key: this.key, value, fenceToken: token, ...(operationId !== undefined ? { operationId } : {}) };
    this.subject.step?.(`${worker}: write(${value}, token=${token})`);
    let result: WriteResult;
    try {
      result = normalizeWriteResult(await this.subject.resource.write(request));
    } catch (error) {
      // A deadline, an interruption or a lost session ends the check; it is no write outcome.
      if (error instanceof BadInputError) throw error;
      result = { status: 'error', detail: (error as Error).message };
    }
    const stored = await this.subject.resource.read(this.key);
    const call = `write(${value}, token=${token}${operationId ? `, op=${operationId}` : ''})`;
    const duplicate = result.status === 'duplicate' || (result.status === 'stale' && operationId !== undefined && this.effects.has(operationId));
    const shown = duplicate ? 'rejected as duplicate' : result.status === 'stale' ? 'rejected' : result.status;
    const highest = result.highest !== undefined ? `; highest=${result.highest}` : '';
    let violation: Violation | undefined;
    if (result.status === 'accepted') {
      if (token <= this.highestAccepted) {
        violation = {
          invariant: 'stale-write-accepted',
          message:
            token === this.highestAccepted
              ? `a replay with the same token ${token} was accepted: the resource must accept only a token above the stored one (fence_token < $token, not <=)`
              : `a stale write with token ${token} was accepted after token ${this.highestAccepted}: the resource does not reject older tokens`,
        };
      }
      if (operationId !== undefined) {
        const count = (this.effects.get(operationId) ?? 0) + 1;
        this.effects.set(operationId, count);
        if (count > 1 && !violation) {
          violation = {
            invariant: 'duplicate-effect',
            message: `operation ${operationId} took effect ${count} times: fencing does not deduplicate retries; check the operationId at the resource`,
          };
        }
      }
      if (token > this.highestAccepted) {
        this.highestAccepted = token;
        this.expectedValue = value;
      }
    } else if (result.status === 'stale' && token > this.highestAccepted && !(operationId !== undefined && this.effects.has(operationId))) {
      // A fence refuses only tokens not above the stored one; refusing the newest write means the
      // check proves nothing (or the resource refuses valid work): say so rather than pass.
      violation = {
        invariant: 'newest-write-rejected',
        message: `the write with token ${token}, above every accepted token (${this.highestAccepted || 'none'}), was rejected: a fence accepts it, so this update is lost (or the starting row does not meet the statement's other conditions: give one in a --schema file)`,
      };
    } else if (result.status === 'error') {
      violation = {
        invariant: 'write-error',
        message: `the write failed instead of reporting accepted or stale: ${result.detail ?? 'unknown error'}`,
      };
    }
    if (!violation && stored !== this.expectedValue) {
      violation = {
        invariant: 'value-not-latest',
        message:
          result.status === 'accepted'
            ? `the write reported success but the stored value is ${show(stored)}, not ${value}`
            : `the write was reported ${shown} but the stored value changed to ${show(stored)}; expected ${show(this.expectedValue)}`,
      };
    }
    this.record({
      actor: worker,
      action: 'write',
      call,
      result: `${shown}${highest}${result.status === 'error' && result.detail ? ` (${result.detail})` : ''}`,
      write: { value, token, status: result.status, ...(operationId ? { operationId } : {}) },
      violation,
    });
    this.tick();
    return result;
  }

  /** The token of the key's row as the holders left it (for a DELETE subject): 0 is the seeded row, null no row. */
  private rowToken: number | null = 0;

  /** A DELETE subject: the holder's own write, its row stored with its token (done by the checker). */
  async put(worker: string, value: string, token: number): Promise<void> {
    const deletes = this.requireDeletes();
    this.subject.step?.(`${worker}: store its row (${value}, token=${token})`);
    await deletes.put(this.key, value, token);
    this.rowToken = token;
    this.expectedValue = await this.subject.resource.read(this.key);
    this.record({ actor: worker, action: 'write', call: `store row (${value}, token=${token})`, result: 'stored by the checker' });
    this.tick();
  }

  /** A DELETE subject: the statement under check, deleting the key's row with `token`. */
  async remove(worker: string, token: number): Promise<void> {
    const deletes = this.requireDeletes();
    this.subject.step?.(`${worker}: delete(token=${token})`);
    let result: WriteResult;
    try {
      result = normalizeWriteResult(await this.subject.resource.write({ key: this.key, value: '', fenceToken: token }));
    } catch (error) {
      if (error instanceof BadInputError) throw error;
      result = { status: 'error', detail: (error as Error).message };
    }
    const present = await deletes.present(this.key);
    const before = this.rowToken;
    let violation: Violation | undefined;
    if (result.status === 'error') {
      violation = { invariant: 'write-error', message: `the delete failed instead of deleting or refusing: ${result.detail ?? 'unknown error'}` };
    } else if (before !== null && !present && before > token) {
      violation = {
        invariant: 'stale-delete-accepted',
        message: `a stale delete with token ${token} removed the row a newer holder stored with token ${before}: the delete does not compare the stored token (AND fence_token <= $token)`,
      };
    } else if (before !== null && present && before < token) {
      violation = {
        invariant: 'newest-delete-rejected',
        message: `the delete with token ${token}, above the row's token ${before}, did not remove the row: a fence lets the newest holder delete (or the starting row does not meet the statement's other conditions: give one in a --schema file)`,
      };
    } else if (result.status === 'accepted' && present) {
      violation = { invariant: 'value-not-latest', message: `the delete reported success but the row is still there` };
    }
    if (!present) this.rowToken = null;
    this.expectedValue = present ? await this.subject.resource.read(this.key) : null;
    this.record({
      actor: worker,
      action: 'write',
      call: `delete(token=${token})`,
      result: `${present ? 'row kept' : 'row deleted'}${result.status === 'error' && result.detail ? ` (${result.detail})` : ''}`,
      write: { value: '(delete)', token, status: present ? 'stale' : 'accepted' },
      violation,
    });
    this.tick();
  }

  private requireDeletes(): NonNullable<Subject['deletes']> {
    if (!this.subject.deletes) throw new Error('not a DELETE subject');
    return this.subject.deletes;
  }

  async release(worker: string): Promise<void> {
    const handle = this.handles.get(worker);
    if (!handle) return;
    const authority = this.subject.authority;
    this.subject.step?.(`${worker}: release(${handle.leaseId})`);
    const before = authority.holder ? await authority.holder(this.key) : undefined;
    await authority.release(handle);
    const after = authority.holder ? await authority.holder(this.key) : undefined;
    let violation: Violation | undefined;
    if (before && before.leaseId !== handle.leaseId && after?.leaseId !== before.leaseId) {
      violation = {
        invariant: 'release-removed-newer-lease',
        message: `releasing the old ${handle.leaseId} removed the live ${before.leaseId}: release must name the lease (DELETE ... WHERE lease_id = $id), not only the key`,
      };
    }
    const result = before === undefined ? 'released' : before?.leaseId === handle.leaseId ? 'released' : `no-op; ${before ? `${before.leaseId} still holds` : 'no live lease'}`;
    this.record({ actor: worker, action: 'release', call: `release(${handle.leaseId})`, result: violation ? `removed ${before?.leaseId}` : result, violation });
    this.leaseExpiry.delete(handle.leaseId);
    this.tick();
  }

  /** Restart resource and authority; the stored value must survive. */
  async restart(mode: 'process' | 'session'): Promise<void> {
    this.subject.step?.(`restart (${mode})`);
    await this.subject.restart(mode);
    const stored = await this.subject.resource.read(this.key);
    let violation: Violation | undefined;
    if (stored !== this.expectedValue) {
      violation = {
        invariant: 'state-lost-on-restart',
        message: `after the restart the resource holds ${show(stored)}, not ${show(this.expectedValue)}: its state is not durable`,
      };
    }
    this.record({ actor: 'system', action: 'restart', call: `restart resource and authority (${mode})`, result: `value=${show(stored)}`, violation });
    this.tick();
  }

  /** A check specific to a scenario, recorded as a violation on the timeline. */
  fail(violation: Violation, call: string): void {
    this.record({ actor: 'system', action: 'note', call, violation });
  }

  value(): string | null {
    return this.expectedValue;
  }

  get issuedHighest(): number {
    return this.highestIssued;
  }
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
  operations: number;
  clockMs: number;
}

function show(value: string | null): string {
  return value === null ? 'nothing' : value;
}
