import type { Subject } from './subject.js';
import type { TimelineEvent, Violation } from './timeline.js';
import { World } from './world.js';

export type ScenarioStatus = 'holds' | 'broken' | 'not-applicable';

export interface ScenarioResult {
  id: string;
  title: string;
  status: ScenarioStatus;
  /** Why it is broken or not applicable; empty when it holds. */
  reason?: string;
  violations: Violation[];
  timeline: TimelineEvent[];
}

export interface Scenario {
  id: string;
  title: string;
  /** Returns a reason when the scenario does not apply to the subject. */
  notApplicable?(subject: Subject): string | undefined;
  run(world: World): Promise<void>;
}

/** 1: the article's late write. */
const staleWrite: Scenario = {
  id: 'stale-write',
  title: 'A pauses past its lease, B writes v2, late A writes v1: A must get an explicit stale result',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    w.pause('A');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.write('B', 'v2', b.fenceToken);
    await w.write('A', 'v1', a.fenceToken);
  },
};

/** 2: equal-token replay, then the older token; a statement that compares but does not store the token fails here. */
const replayAndOlderToken: Scenario = {
  id: 'equal-token-replay',
  title: 'after 42 is accepted, another write with 42 and then with 41 must both be rejected',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.write('B', 'v2', b.fenceToken);
    await w.write('B', 'v3', b.fenceToken);
    await w.write('A', 'v1', a.fenceToken);
  },
};

/** 3: restart both; the token 42 is not accepted again and the next acquire gets more than 42. */
const restart: Scenario = {
  id: 'restart',
  title: 'after a restart of resource and authority, 42 is not accepted again and the next token is above 42',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    await w.write('A', 'v1', a.fenceToken);
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.write('B', 'v2', b.fenceToken);
    const before = w.issuedHighest;
    await w.restart('process');
    await w.write('B', 'v3', b.fenceToken);
    w.expire();
    const c = await w.acquire('C');
    if (c && c.fenceToken <= before && !w.broken) {
      w.fail(
        {
          invariant: 'token-not-increasing',
          message: `after the restart the authority issued ${c.fenceToken}, not more than ${before}: its counter does not survive a restart (an in-memory counter?); keep it durable, e.g. UPDATE fence_authority SET token = token + 1 ... RETURNING token`,
        },
        'check: next token after restart',
      );
    }
  },
};

/** 4: the old handle's release must not remove the newer lease. */
const oldHandleRelease: Scenario = {
  id: 'old-handle-release',
  title: "A's release after its lease expired leaves B's lease intact",
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    w.pause('A');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.release('A');
    if (!w.subject.authority.holder) {
      // Without holder(), probe: while B's lease is live nobody else may acquire.
      const probe = await w.acquire('C');
      if (probe) {
        w.fail(
          {
            invariant: 'release-removed-newer-lease',
            message: `after A released its old handle, C could acquire although ${b.leaseId} was live: release must name the lease, not only the key`,
          },
          'check: B still holds the lease',
        );
      }
    }
  },
};

/** 5: the same operationId delivered twice creates one effect. */
const operationReplay: Scenario = {
  id: 'operation-replay',
  title: 'the same operationId delivered twice (the retry under a newer lease) creates one effect',
  notApplicable: (subject) =>
    subject.operationIds ? undefined : 'the subject declares no operationId (give the role operationId to check idempotency)',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    await w.write('A', 'v1', a.fenceToken, 'op-1');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.write('B', 'v1', b.fenceToken, 'op-1');
  },
};

/**
 * 6, 7: the stale write with tokens across a digit boundary (9 then 10, 99 then 100). A token
 * column of type text compares '41' < '42' like numbers, but '10' < '9' holds too: the late
 * holder's 9 then passes a fence that compares text.
 */
function digitBoundary(first: number): Scenario {
  return {
    id: `digit-boundary-${first + 1}`,
    title: `tokens ${first} and ${first + 1}: the late holder with ${first} must be refused after ${first + 1} (a token compared as text fails here)`,
    notApplicable: (subject) => (subject.startTokensAt ? undefined : "the module's own authority issues the tokens"),
    async run(w) {
      await w.subject.startTokensAt!(first);
      const a = await w.acquire('A');
      if (!a) return refused(w, 'A');
      w.pause('A');
      w.expire();
      const b = await w.acquire('B');
      if (!b) return refused(w, 'B');
      if (w.subject.deletes) {
        await w.put('B', 'v2', b.fenceToken);
        await w.remove('A', a.fenceToken);
      } else {
        await w.write('B', 'v2', b.fenceToken);
        await w.write('A', 'v1', a.fenceToken);
      }
    },
  };
}

/** DELETE 1: the late holder's delete must not remove the row the newer holder stored. */
const staleDelete: Scenario = {
  id: 'stale-delete',
  title: 'A pauses past its lease, B stores its row with 42, late A deletes with 41: the row must stay',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    w.pause('A');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.put('B', 'v2', b.fenceToken);
    await w.remove('A', a.fenceToken);
  },
};

/** DELETE 2: the newest holder's delete goes through (a fence that refuses every delete proves nothing). */
const newestDelete: Scenario = {
  id: 'newest-delete',
  title: 'A stores its row with 41, its lease expires, B deletes with 42: the row must be deleted',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    await w.put('A', 'v1', a.fenceToken);
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.remove('B', b.fenceToken);
  },
};

/** DELETE 3: after a restart the stored token still protects the row. */
const restartDelete: Scenario = {
  id: 'restart-delete',
  title: 'B stores its row with 42, resource and authority restart, late A deletes with 41: the row must stay',
  async run(w) {
    const a = await w.acquire('A');
    if (!a) return refused(w, 'A');
    w.expire();
    const b = await w.acquire('B');
    if (!b) return refused(w, 'B');
    await w.put('B', 'v2', b.fenceToken);
    await w.restart('process');
    await w.remove('A', a.fenceToken);
  },
};

/** The scenario needs this lease; the authority refused it although every earlier lease had expired. */
function refused(w: World, worker: string): void {
  w.fail(
    {
      invariant: 'lease-refused',
      message: `the authority refused ${worker} a lease although every earlier lease had expired or none existed: it does not honour the TTL`,
    },
    `check: ${worker} gets a lease`,
  );
}

export const SCENARIOS: readonly Scenario[] = [staleWrite, replayAndOlderToken, restart, oldHandleRelease, operationReplay, digitBoundary(9), digitBoundary(99)];

/** For a DELETE subject the observation is whether the row is still there. */
export const DELETE_SCENARIOS: readonly Scenario[] = [staleDelete, newestDelete, restartDelete, oldHandleRelease, digitBoundary(9), digitBoundary(99)];

export function scenariosFor(subject: Subject): readonly Scenario[] {
  return subject.deletes ? DELETE_SCENARIOS : SCENARIOS;
}

export async function runScenario(scenario: Scenario, subject: Subject): Promise<ScenarioResult> {
  const clock = subject.clock;
  const skip = scenario.notApplicable?.(subject);
  if (skip) return { id: scenario.id, title: scenario.title, status: 'not-applicable', reason: skip, violations: [], timeline: [] };
  clock.reset();
  await subject.reset();
  const world = new World(subject, clock);
  await world.start();
  await scenario.run(world);
  return {
    id: scenario.id,
    title: scenario.title,
    status: world.broken ? 'broken' : 'holds',
    ...(world.broken ? { reason: world.violations[0].message } : {}),
    violations: world.violations,
    timeline: world.events,
  };
}
