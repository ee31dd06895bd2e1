import type { LeaseHandle } from './adapter.js';
import type { Subject } from './subject.js';
import type { InvariantId, TimelineEvent, Violation } from './timeline.js';
import { World } from './world.js';

/**
 * Systematic exploration of the workers' step sequences.
 *
 * Each worker runs `acquire, pause, write, release`; it waits to acquire while a lease it knows
 * of is live (a refused acquire changes nothing), and ends when the authority refuses it anyway.
 * The environment may `expire` every live lease (up to `workers - 1` times) and `restart`
 * resource and authority (once with 2 workers, as a new session; scenario 3 restarts for real).
 * Every interleaving is run for real against the subject; the search backtracks with savepoints
 * when the subject offers them, else by reset and replay of the prefix.
 *
 * Partial-order reduction, and why it is sound here. Two steps are dependent when they belong
 * to the same worker or touch a common object: the resource R, the authority A, the clock C.
 *   write: R (plus A and C for a module whose resource may consult leases)
 *   acquire, release: A, C       expire: C       restart: R, A       pause: nothing
 * Independent steps commute: running them in either order leaves R, A and C in the same state
 * and neither enables or disables the other (expire is enabled by live leases, which only
 * acquire and release change, both dependent with it; restart is enabled once a lease was
 * granted or a write ran). Every invariant (world.ts) reads either R's history or A's history,
 * and steps on the same object are never reordered, so all interleavings of one Mazurkiewicz
 * trace reach the same verdict. The search therefore needs one interleaving per trace:
 * - sleep sets (Godefroid): after exploring step t from a state, t is not tried again from the
 *   states reached through steps independent of t, whose orderings were already covered;
 * - a pause is independent of every step and never disabled, so when a worker's next step is a
 *   pause it is taken alone (a persistent set of size one);
 * - symmetry: of the workers that have not acquired yet (all alike), only the first may acquire;
 *   the other choices lead to the same states with workers renamed (see enabledSteps).
 * The clock only moves on expire (world.ts), which is what keeps write independent of leases.
 * The reduction assumes the subject is deterministic: the same steps give the same results.
 */

type Kind = 'acquire' | 'pause' | 'write' | 'release' | 'expire' | 'restart';
export interface Step {
  actor: string; // worker name, or 'env' for expire/restart
  kind: Kind;
}

const PROGRAM: Kind[] = ['acquire', 'pause', 'write', 'release'];
const WORKERS = ['A', 'B', 'C', 'D'];
const VALUES: Record<string, string> = { A: 'v1', B: 'v2', C: 'v3', D: 'v4' };

export interface ExploreOptions {
  workers: number;
  /** Expire steps allowed in one schedule (default workers - 1). */
  maxExpires?: number;
  /** Restart steps allowed in one schedule (default 1 with 2 workers, else 0; 0 for subjects whose restart changes nothing, see Subject). */
  maxRestarts?: number;
  /** false: try every interleaving (no reduction); for cross-checking the reduction. Default true. */
  reduce?: boolean;
  /** Called now and then with the figures so far. */
  onProgress?(progress: ExploreProgress): void;
}

export interface ExploreProgress {
  workers: number;
  states: number;
  schedules: number;
}

export interface CounterExample {
  invariant: InvariantId;
  message: string;
  schedule: string[];
  timeline: TimelineEvent[];
}

export interface ExploreResult {
  workers: number;
  bound: { maxExpires: number; maxRestarts: number };
  /** Distinct states reached (edges of the reduced search tree). */
  states: number;
  /** Complete schedules (one per trace), plus the cut-off violating ones. */
  schedules: number;
  /** Steps run against the subject, replays included. */
  stepsExecuted: number;
  elapsedMs: number;
  counterExample?: CounterExample;
}

interface WorkerModel {
  pc: number;
  done: boolean;
}
interface Model {
  workers: Record<string, WorkerModel>;
  live: string[]; // workers whose lease the explorer believes live
  expiresLeft: number;
  restartsLeft: number;
  active: boolean; // a lease was granted or a write ran
}

const stepId = (s: Step): string => `${s.actor}:${s.kind}`;
const fromId = (id: string): Step => {
  const [actor, kind] = id.split(':');
  return { actor, kind: kind as Kind };
};
export const describeStep = (s: Step): string => (s.actor === 'env' ? s.kind : `${s.actor}:${s.kind}`);

function footprint(step: Step, writesIndependent: boolean): string[] {
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

export function dependent(a: Step, b: Step, writesIndependent: boolean): boolean {
  if (a.actor === b.actor && a.actor !== 'env') return true;
  if (a.actor === 'env' && b.actor === 'env' && a.kind === b.kind) return true;
  const fb = footprint(b, writesIndependent);
  return footprint(a, writesIndependent).some((o) => fb.includes(o));
}

/** Runs steps against the subject; backtracks with the subject's checkpoints, or by reset and replay. */
class Runner {
  world!: World;
  path: Step[] = [];
  executed = 0;
  private readonly operationOf: Record<string, string | undefined> = {};

  constructor(
    private readonly subject: Subject,
    readonly workerNames: string[],
  ) {
    if (subject.operationIds) {
      workerNames.forEach((w, i) => (this.operationOf[w] = `op-${i + 1}`));
      // The last worker is a redelivery of the first worker's operation.
      this.operationOf[workerNames[workerNames.length - 1]] = 'op-1';
    }
  }

  valueOf(worker: string): string {
    return this.subject.operationIds && worker === this.workerNames[this.workerNames.length - 1] ? VALUES.A : VALUES[worker];
  }

  async fresh(): Promise<void> {
    this.subject.clock.reset();
    await this.subject.reset();
    this.world = new World(this.subject, this.subject.clock);
    await this.world.start();
    this.path = [];
  }

  async resetTo(prefix: Step[]): Promise<void> {
    const shares = this.world && this.path.length <= prefix.length && this.path.every((s, i) => stepId(s) === stepId(prefix[i]));
    if (!shares) await this.fresh();
    for (let i = this.path.length; i < prefix.length; i++) await this.run(prefix[i]);
  }

  /** Remember the current state (at the end of `path`); the result brings it back. */
  async save(): Promise<() => Promise<void>> {
    const path = this.path.slice();
    const checkpoints = this.subject.checkpoints;
    if (!checkpoints) return () => this.resetTo(path);
    const rollback = await checkpoints.save(path.length);
    const snapshot = this.world.snapshot();
    return async () => {
      await rollback();
      this.world.restore(snapshot);
      this.path = path.slice();
    };
  }

  /** Returns whether the step could run (a write or release without a lease cannot). */
  async run(step: Step): Promise<boolean> {
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
        const handle: LeaseHandle | undefined = w.handles.get(step.actor);
        if (!handle) return false;
        await w.write(step.actor, this.valueOf(step.actor), handle.fenceToken, this.operationOf[step.actor]);
        return true;
      }
      case 'release':
        if (!w.handles.get(step.actor)) return false;
        await w.release(step.actor);
        return true;
    }
  }
}

/**
 * `special`: workers that are not interchangeable with the others (the redelivering worker).
 * Workers that have not acquired yet run the same program and differ only in their names and
 * values, which no invariant looks at except for equality: letting only the first of them
 * acquire (symmetry reduction) reaches every state up to renaming the workers.
 */
function enabledSteps(model: Model, names: string[], special: string[] = []): Step[] {
  const steps: Step[] = [];
  const firstIdle = names.find((n) => !special.includes(n) && model.workers[n].pc === 0 && !model.workers[n].done);
  for (const name of names) {
    const wm = model.workers[name];
    if (wm.pc === 0 && !special.includes(name) && name !== firstIdle) continue;
    // A worker waits for its lease while another lease is live: a refused acquire changes no
    // state, so every state it could lead to is reached by the schedules where it waits.
    if (!wm.done && !(PROGRAM[wm.pc] === 'acquire' && model.live.length > 0)) steps.push({ actor: name, kind: PROGRAM[wm.pc] });
  }
  if (model.expiresLeft > 0 && model.live.length > 0) steps.push({ actor: 'env', kind: 'expire' });
  if (model.restartsLeft > 0 && model.active) steps.push({ actor: 'env', kind: 'restart' });
  return steps;
}

function nextModel(model: Model, step: Step, world: World): Model {
  const next: Model = {
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
      } else wm.done = true;
    }
    if (step.kind === 'write') next.active = true;
    if (step.kind === 'release') next.live = next.live.filter((w) => w !== step.actor);
    if (wm.pc >= PROGRAM.length) wm.done = true;
  } else if (step.kind === 'expire') {
    next.expiresLeft--;
    next.live = [];
  } else {
    next.restartsLeft--;
  }
  return next;
}

export async function explore(subject: Subject, options: ExploreOptions): Promise<ExploreResult> {
  const names = WORKERS.slice(0, options.workers);
  const maxExpires = options.maxExpires ?? options.workers - 1;
  // A restart anywhere multiplies the schedules about tenfold: one restart with two workers by default.
  const maxRestarts = options.maxRestarts ?? (subject.restartIsNoopInExploration || options.workers > 2 ? 0 : 1);
  const runner = new Runner(subject, names);
  const started = performance.now();
  let states = 0;
  let schedules = 0;
  let best: { steps: Step[]; violation: Violation } | undefined;
  let lastProgress = 0;

  const initial: Model = {
    workers: Object.fromEntries(names.map((n) => [n, { pc: 0, done: false }])),
    live: [],
    expiresLeft: maxExpires,
    restartsLeft: maxRestarts,
    active: false,
  };

  // Equal states reached again (at no smaller depth) are not expanded twice. Only sound when the
  // subject's whole state can be read (digest); then sleep sets are not used, since combining
  // them with state matching needs more care than it is worth here.
  const visited = subject.digest ? new Map<string, number>() : undefined;
  const reduce = options.reduce !== false;
  const useSleep = reduce && !visited;
  // The redelivering worker is not interchangeable with the others.
  const special = subject.operationIds ? [names[names.length - 1]] : [];
  const symmetric = reduce;

  const dfs = async (path: Step[], model: Model, sleep: Set<string>): Promise<void> => {
    if (best && path.length + 1 >= best.steps.length) return; // cannot find a shorter counter-example
    const enabled = enabledSteps(model, names, symmetric ? special : names);
    if (enabled.length === 0) {
      schedules++;
      return;
    }
    const pause = reduce ? enabled.find((s) => s.kind === 'pause') : undefined;
    const candidates = pause ? [pause] : enabled;
    // Matching only where the search branches: a chain of single steps leads to a branching state soon.
    if (visited && reduce && candidates.length > 1) {
      const key = `${await subject.digest!()}|${runner.world.digest()}|${JSON.stringify(model)}`;
      const seen = visited.get(key);
      if (seen !== undefined && seen <= path.length) return;
      visited.set(key, path.length);
    }
    const explored: Step[] = [];
    const back = candidates.length > 1 ? await runner.save() : undefined;
    for (const step of candidates) {
      if (useSleep && sleep.has(stepId(step))) continue;
      const childSleep = useSleep
        ? new Set([...sleep, ...explored.map(stepId)].filter((id) => !dependent(fromId(id), step, subject.writesIndependentOfLeases)))
        : sleep;
      if (explored.length > 0 && back) await back();
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
        if (!best || steps.length < best.steps.length) best = { steps, violation: runner.world.violations[before] };
      } else {
        await dfs(steps, nextModel(model, step, runner.world), childSleep);
      }
      explored.push(step);
    }
  };

  await runner.fresh();
  await subject.checkpoints?.begin();
  try {
    await dfs([], initial, new Set());
  } finally {
    await subject.checkpoints?.end();
  }

  let counterExample: CounterExample | undefined;
  if (best) {
    const shrunk = await shrink(runner, best.steps, best.violation.invariant);
    await runner.fresh();
    for (const step of shrunk) await runner.run(step);
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
async function shrink(runner: Runner, steps: Step[], invariant: InvariantId): Promise<Step[]> {
  const breaks = async (candidate: Step[]): Promise<boolean> => {
    await runner.fresh();
    for (const step of candidate) {
      if (!(await runner.run(step))) return false;
      if (runner.world.violations.length > 0) return runner.world.violations[0].invariant === invariant;
    }
    return false;
  };
  let current = steps;
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = current.length - 1; i >= 0; i--) {
      const step = current[i];
      if (step.kind === 'pause') continue;
      const candidate =
        step.kind === 'acquire'
          ? current.filter((s, j) => j !== i && !(j > i && s.actor === step.actor))
          : current.filter((_, j) => j !== i);
      if (await breaks(candidate)) {
        current = candidate;
        changed = true;
        break;
      }
    }
  }
  // Keep a pause only where it tells the story: its worker's lease expires before that worker writes.
  return current.filter((s, i) => {
    if (s.kind !== 'pause') return true;
    const write = current.findIndex((t, j) => j > i && t.actor === s.actor && t.kind === 'write');
    return write > 0 && current.slice(i + 1, write).some((t) => t.kind === 'expire');
  });
}
