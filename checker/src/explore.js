import { World } from './world.js';
const PROGRAM = ['acquire', 'pause', 'write', 'release'];
const WORKERS = ['A', 'B', 'C', 'D'];
const VALUES = { A: 'v1', B: 'v2', C: 'v3', D: 'v4' };
const stepId = (s) => `${s.actor}:${s.kind}`;
const fromId = (id) => {
    const [actor, kind] = id.split(':');
    return { actor, kind: kind };
};
export const describeStep = (s) => (s.actor === 'env' ? s.kind : `${s.actor}:${s.kind}`);
function footprint(step, writesIndependent) {
    switch (step.kind) {
        case 'pause':
            return [];
        case 'write':
            return writesIndependent ? ['R'] : ['R', 'A', 'C'];
        case 'acquire':
        case 'release':
            return ['A', 'C'];
        case 'expire':
            return ['C'];
        case 'restart':
            return ['R', 'A'];
    }
}
export function dependent(a, b, writesIndependent) {
    if (a.actor === b.actor && a.actor !== 'env')
        return true;
    if (a.actor === 'env' && b.actor === 'env' && a.kind === b.kind)
        return true;
    const fb = footprint(b, writesIndependent);
    return footprint(a, writesIndependent).some((o) => fb.includes(o));
}
/** Runs steps against the subject; backtracks with the subject's checkpoints, or by reset and replay. */
class Runner {
    subject;
    workerNames;
    world;
    path = [];
    executed = 0;
    operationOf = {};
    constructor(subject, workerNames) {
        this.subject = subject;
        this.workerNames = workerNames;
        if (subject.operationIds) {
            workerNames.forEach((w, i) => (this.operationOf[w] = `op-${i + 1}`));
            // The last worker is a redelivery of the first worker's operation.
            this.operationOf[workerNames[workerNames.length - 1]] = 'op-1';
        }
    }
    valueOf(worker) {
        return this.subject.operationIds && worker === this.workerNames[this.workerNames.length - 1] ? VALUES.A : VALUES[worker];
    }
    async fresh() {
        this.subject.clock.reset();
        await this.subject.reset();
        this.world = new World(this.subject, this.subject.clock);
        await this.world.start();
        this.path = [];
    }
    async resetTo(prefix) {
        const shares = this.world && this.path.length <= prefix.length && this.path.every((s, i) => stepId(s) === stepId(prefix[i]));
        if (!shares)
            await this.fresh();
        for (let i = this.path.length; i < prefix.length; i++)
            await this.run(prefix[i]);
    }
    /** Remember the current state (at the end of `path`); the result brings it back. */
    async save() {
        const path = this.path.slice();
        const checkpoints = this.subject.checkpoints;
        if (!checkpoints)
            return () => this.resetTo(path);
        const rollback = await checkpoints.save(path.length);
        const snapshot = this.world.snapshot();
        return async () => {
            await rollback();
            this.world.restore(snapshot);
            this.path = path.slice();
        };
    }
    /** Returns whether the step could run (a write or release without a lease cannot). */
    async run(step) {
        this.executed++;
        this.path.push(step);
        const w = this.world;
        switch (step.kind) {
            case 'acquire':
                await w.acquire(step.actor);
                return true;
            case 'pause':
                w.pause(step.actor);
                return true;
            case 'expire':
                w.expire();
                return true;
            case 'restart':
                await w.restart('session');
                return true;
            case 'write': {
                const handle = w.handles.get(step.actor);
                if (!handle)
                    return false;
                await w.write(step.actor, this.valueOf(step.actor), handle.fenceToken, this.operationOf[step.actor]);
                return true;
            }
            case 'release':
                if (!w.handles.get(step.actor))
                    return false;
                await w.release(step.actor);
                return true;
        }
    }
}
function enabledSteps(model, names) {
    const steps = [];
    for (const name of names) {
        const wm = model.workers[name];
        if (!wm.done)
            steps.push({ actor: name, kind: PROGRAM[wm.pc] });
    }
    if (model.expiresLeft > 0 && model.live.length > 0)
        steps.push({ actor: 'env', kind: 'expire' });
    if (model.restartsLeft > 0 && model.active)
        steps.push({ actor: 'env', kind: 'restart' });
    return steps;
}
function nextModel(model, step, world) {
    const next = {
        workers: Object.fromEntries(Object.entries(model.workers).map(([k, v]) => [k, { ...v }])),
        live: [...model.live],
        expiresLeft: model.expiresLeft,
        restartsLeft: model.restartsLeft,
        active: model.active,
    };
    if (step.actor !== 'env') {
        const wm = next.workers[step.actor];
        wm.pc++;
        if (step.kind === 'acquire') {
            if (world.handles.has(step.actor)) {
                next.live.push(step.actor);
                next.active = true;
            }
            else
                wm.done = true;
        }
        if (step.kind === 'write')
            next.active = true;
        if (step.kind === 'release')
            next.live = next.live.filter((w) => w !== step.actor);
        if (wm.pc >= PROGRAM.length)
            wm.done = true;
    }
    else if (step.kind === 'expire') {
        next.expiresLeft--;
        next.live = [];
    }
    else {
        next.restartsLeft--;
    }
    return next;
}
export async function explore(subject, options) {
    const names = WORKERS.slice(0, options.workers);
    const maxExpires = options.maxExpires ?? options.workers - 1;
    const maxRestarts = options.maxRestarts ?? (subject.restartIsNoopInExploration ? 0 : 1);
    const runner = new Runner(subject, names);
    const started = performance.now();
    let states = 0;
    let schedules = 0;
    let best;
    let lastProgress = 0;
    const initial = {
        workers: Object.fromEntries(names.map((n) => [n, { pc: 0, done: false }])),
        live: [],
        expiresLeft: maxExpires,
        restartsLeft: maxRestarts,
        active: false,
    };
    // Equal states reached again (at no smaller depth) are not expanded twice. Only sound when the
    // subject's whole state can be read (digest); then sleep sets are not used, since combining
    // them with state matching needs more care than it is worth here.
    const visited = subject.digest ? new Map() : undefined;
    const reduce = options.reduce !== false;
    const useSleep = reduce && !visited;
    const dfs = async (path, model, sleep) => {
        if (best && path.length + 1 >= best.steps.length)
            return; // cannot find a shorter counter-example
        const enabled = enabledSteps(model, names);
        if (enabled.length === 0) {
            schedules++;
            return;
        }
        const pause = reduce ? enabled.find((s) => s.kind === 'pause') : undefined;
        const candidates = pause ? [pause] : enabled;
        // Matching only where the search branches: a chain of single steps leads to a branching state soon.
        if (visited && reduce && candidates.length > 1) {
            const key = `${await subject.digest()}|${runner.world.digest()}|${JSON.stringify(model)}`;
            const seen = visited.get(key);
            if (seen !== undefined && seen <= path.length)
                return;
            visited.set(key, path.length);
        }
        const explored = [];
        const back = candidates.length > 1 ? await runner.save() : undefined;
        for (const step of candidates) {
            if (useSleep && sleep.has(stepId(step)))
                continue;
            const childSleep = useSleep
                ? new Set([...sleep, ...explored.map(stepId)].filter((id) => !dependent(fromId(id), step, subject.writesIndependentOfLeases)))
                : sleep;
            if (explored.length > 0 && back)
                await back();
            const before = runner.world.violations.length;
            await runner.run(step);
            states++;
            if (options.onProgress && performance.now() - lastProgress > 250) {
                lastProgress = performance.now();
                options.onProgress({ workers: options.workers, states, schedules });
            }
            const steps = [...path, step];
            if (runner.world.violations.length > before) {
                schedules++;
                if (!best || steps.length < best.steps.length)
                    best = { steps, violation: runner.world.violations[before] };
            }
            else {
                await dfs(steps, nextModel(model, step, runner.world), childSleep);
            }
            explored.push(step);
        }
    };
    await runner.fresh();
    await subject.checkpoints?.begin();
    try {
        await dfs([], initial, new Set());
    }
    finally {
        await subject.checkpoints?.end();
    }
    let counterExample;
    if (best) {
        const shrunk = await shrink(runner, best.steps, best.violation.invariant);
        await runner.fresh();
        for (const step of shrunk)
            await runner.run(step);
        const violation = runner.world.violations[0] ?? best.violation;
        counterExample = {
            invariant: violation.invariant,
            message: violation.message,
            schedule: shrunk.map(describeStep),
            timeline: runner.world.events,
        };
    }
    return {
        workers: options.workers,
        bound: { maxExpires, maxRestarts },
        states,
        schedules,
        stepsExecuted: runner.executed,
        elapsedMs: performance.now() - started,
        ...(counterExample ? { counterExample } : {}),
    };
}
/**
 * Remove steps while the same invariant still breaks: a step, or a worker's acquire together
 * with the rest of that worker's steps. Pauses carry no behaviour; they are kept only before a
 * write of their worker so the timeline still tells the story.
 */
async function shrink(runner, steps, invariant) {
    const breaks = async (candidate) => {
        await runner.fresh();
        for (const step of candidate) {
            if (!(await runner.run(step)))
                return false;
            if (runner.world.violations.length > 0)
                return runner.world.violations[0].invariant === invariant;
        }
        return false;
    };
    let current = steps;
    let changed = true;
    while (changed) {
        changed = false;
        for (let i = current.length - 1; i >= 0; i--) {
            const step = current[i];
            if (step.kind === 'pause')
                continue;
            const candidate = step.kind === 'acquire'
                ? current.filter((s, j) => j !== i && !(j > i && s.actor === step.actor))
                : current.filter((_, j) => j !== i);
            if (await breaks(candidate)) {
                current = candidate;
                changed = true;
                break;
            }
        }
    }
    // Drop pauses that no longer precede a write of their worker.
    return current.filter((s, i) => s.kind !== 'pause' || current.slice(i + 1).some((t) => t.actor === s.actor && t.kind === 'write'));
}
//# sourceMappingURL=explore.js.map