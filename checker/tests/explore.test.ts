import { describe, expect, it } from 'vitest';
import type { LeaseHandle, WriteRequest } from '../src/adapter.js';
import { ManualClock } from '../src/clock.js';
import { explore } from '../src/explore.js';
import type { Subject } from '../src/subject.js';

/**
 * An in-memory subject, so that the reduction can be compared with the full search quickly.
 * `flaw` picks the bug: none, an unfenced resource, `<=`, a release by key, an in-memory counter.
 */
function memorySubject(flaw: 'none' | 'unfenced' | 'equal' | 'release-by-key' | 'volatile-counter'): Subject {
  const clock = new ManualClock();
  let value: string | null = 'v0';
  let stored = 0;
  let counter = 40;
  let lease: { id: string; expiresAt: number } | undefined;
  let granted = 0;
  return {
    description: flaw,
    clock,
    authorityDescription: 'memory',
    operationIds: false,
    writesIndependentOfLeases: true,
    resource: {
      async write({ value: v, fenceToken }: WriteRequest) {
        const ok = flaw === 'unfenced' || (flaw === 'equal' ? fenceToken >= stored : fenceToken > stored);
        if (!ok) return { status: 'stale' as const, highest: stored };
        value = v;
        stored = fenceToken;
        return { status: 'accepted' as const, highest: stored };
      },
      async read() {
        return value;
      },
    },
    authority: {
      async acquire(key: string, ttl: number, owner: string): Promise<LeaseHandle | null> {
        if (lease && lease.expiresAt > clock.now()) return null;
        lease = { id: `lease-${owner}-${++granted}`, expiresAt: clock.now() + ttl };
        return { key, ownerId: owner, leaseId: lease.id, fenceToken: ++counter };
      },
      async release(handle: LeaseHandle) {
        if (flaw === 'release-by-key' || lease?.id === handle.leaseId) lease = undefined;
      },
      async holder() {
        return lease && lease.expiresAt > clock.now() ? { leaseId: lease.id } : null;
      },
      async restart() {
        if (flaw === 'volatile-counter') counter = 0;
      },
    },
    async restart() {
      await this.authority.restart();
    },
    async reset() {
      value = 'v0';
      stored = 0;
      counter = 40;
      lease = undefined;
      granted = 0;
    },
  };
}

describe('systematic exploration', () => {
  const flaws = ['none', 'unfenced', 'equal', 'release-by-key', 'volatile-counter'] as const;

  for (const flaw of flaws) {
    for (const workers of [2, 3]) {
      it(`the reduction reaches the same verdict as the full search: ${flaw}, ${workers} workers`, async () => {
        // The full search with three workers and a restart takes minutes: one restart with two workers.
        const maxRestarts = workers === 2 ? 1 : 0;
        const reduced = await explore(memorySubject(flaw), { workers, maxRestarts });
        const full = await explore(memorySubject(flaw), { workers, maxRestarts, reduce: false });
        expect(reduced.counterExample?.invariant).toBe(full.counterExample?.invariant);
        expect(reduced.counterExample?.schedule.length).toBe(full.counterExample?.schedule.length);
        if (!full.counterExample) expect(reduced.states).toBeLessThan(full.states);
      });
    }
  }

  it('gives the shortest counter-example, shrunk to the steps that matter', async () => {
    const result = await explore(memorySubject('unfenced'), { workers: 3 });
    expect(result.counterExample?.schedule).toEqual(['A:acquire', 'A:pause', 'expire', 'B:acquire', 'B:write', 'A:write']);
    expect(result.counterExample?.timeline.at(-1)?.violation?.invariant).toBe('stale-write-accepted');
  });

  it('finds the release by key and the in-memory counter', async () => {
    const release = await explore(memorySubject('release-by-key'), { workers: 2, maxRestarts: 0 });
    expect(release.counterExample?.invariant).toBe('release-removed-newer-lease');
    // Shrinking drops A's write too: an old handle released without writing shows the bug as well.
    expect(release.counterExample?.schedule).toEqual(['A:acquire', 'expire', 'B:acquire', 'A:release']);
    const counter = await explore(memorySubject('volatile-counter'), { workers: 2 });
    expect(counter.counterExample?.invariant).toBe('token-not-increasing');
  });

  it('finds nothing for a correct subject and counts its states', async () => {
    const result = await explore(memorySubject('none'), { workers: 3 });
    expect(result.counterExample).toBeUndefined();
    expect(result.states).toBeGreaterThan(100);
    expect(result.schedules).toBeGreaterThan(10);
  });
});
