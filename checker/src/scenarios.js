import { World } from './world.js';
/** 1: the article's late write. */
const staleWrite = {
    id: 'stale-write',
    title: 'A pauses past its lease, B writes v2, late A writes v1: A must get an explicit stale result',
    async run(w) {
        const a = await w.acquire('A');
        if (!a)
            return refused(w, 'A');
        w.pause('A');
        w.expire();
        const b = await w.acquire('B');
        if (!b)
            return refused(w, 'B');
        await w.write('B', 'v2', b.fenceToken);
        await w.write('A', 'v1', a.fenceToken);
    },
};
/** 2: equal-token replay, then the older token; a statement that compares but does not store the token fails here. */
const replayAndOlderToken = {
    id: 'equal-token-replay',
    title: 'after 42 is accepted, another write with 42 and then with 41 must both be rejected',
    async run(w) {
        const a = await w.acquire('A');
        if (!a)
            return refused(w, 'A');
        w.expire();
        const b = await w.acquire('B');
        if (!b)
            return refused(w, 'B');
        await w.write('B', 'v2', b.fenceToken);
        await w.write('B', 'v3', b.fenceToken);
        await w.write('A', 'v1', a.fenceToken);
    },
};
/** 3: restart both; the token 42 is not accepted again and the next acquire gets more than 42. */
const restart = {
    id: 'restart',
    title: 'after a restart of resource and authority, 42 is not accepted again and the next token is above 42',
    async run(w) {
        const a = await w.acquire('A');
        if (!a)
            return refused(w, 'A');
        await w.write('A', 'v1', a.fenceToken);
        w.expire();
        const b = await w.acquire('B');
        if (!b)
            return refused(w, 'B');
        await w.write('B', 'v2', b.fenceToken);
        const before = w.issuedHighest;
        await w.restart('process');
        await w.write('B', 'v3', b.fenceToken);
        w.expire();
        const c = await w.acquire('C');
        if (c && c.fenceToken <= before && !w.broken) {
            w.fail({
                invariant: 'token-not-increasing',
                message: `after the restart the authority issued ${c.fenceToken}, not more than ${before}: its counter does not survive a restart (an in-memory counter?); keep it durable, e.g. UPDATE fence_authority SET token = token + 1 ... RETURNING token`,
            }, 'check: next token after restart');
        }
    },
};
/** 4: the old handle's release must not remove the newer lease. */
const oldHandleRelease = {
    id: 'old-handle-release',
    title: "A's release after its lease expired leaves B's lease intact",
    async run(w) {
        const a = await w.acquire('A');
        if (!a)
            return refused(w, 'A');
        w.pause('A');
        w.expire();
        const b = await w.acquire('B');
        if (!b)
            return refused(w, 'B');
        await w.release('A');
        if (!w.subject.authority.holder) {
            // Without holder(), probe: while B's lease is live nobody else may acquire.
            const probe = await w.acquire('C');
            if (probe) {
                w.fail({
                    invariant: 'release-removed-newer-lease',
                    message: `after A released its old handle, C could acquire although ${b.leaseId} was live: release must name the lease, not only the key`,
                }, 'check: B still holds the lease');
            }
        }
    },
};
/** 5: the same operationId delivered twice creates one effect. */
const operationReplay = {
    id: 'operation-replay',
    title: 'the same operationId delivered twice (the retry under a newer lease) creates one effect',
    notApplicable: (subject) => subject.operationIds ? undefined : 'the subject declares no operationId (give the role operationId to check idempotency)',
    async run(w) {
        const a = await w.acquire('A');
        if (!a)
            return refused(w, 'A');
        await w.write('A', 'v1', a.fenceToken, 'op-1');
        w.expire();
        const b = await w.acquire('B');
        if (!b)
            return refused(w, 'B');
        await w.write('B', 'v1', b.fenceToken, 'op-1');
    },
};
/** The scenario needs this lease; the authority refused it although every earlier lease had expired. */
function refused(w, worker) {
    w.fail({
        invariant: 'lease-refused',
        message: `the authority refused ${worker} a lease although every earlier lease had expired or none existed: it does not honour the TTL`,
    }, `check: ${worker} gets a lease`);
}
export const SCENARIOS = [staleWrite, replayAndOlderToken, restart, oldHandleRelease, operationReplay];
export async function runScenario(scenario, subject) {
    const clock = subject.clock;
    const skip = scenario.notApplicable?.(subject);
    if (skip)
        return { id: scenario.id, title: scenario.title, status: 'not-applicable', reason: skip, violations: [], timeline: [] };
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
//# sourceMappingURL=scenarios.js.map