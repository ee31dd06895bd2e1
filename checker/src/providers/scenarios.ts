import { RemoteHolder } from './holder.js';
import { errorMessage } from '../errors.js';
import { sleep } from './deadline.js';
import { PartitionProxy } from './partition-proxy.js';
import type { LockClient, LockProvider, ProviderLease } from './provider.js';
import type { ProviderResource } from './resource.js';
import { runLoad, type LoadOptions, type LoadFigures } from './load.js';

export type ConformanceStatus = 'pass' | 'fail' | 'not-applicable';

export interface ScenarioOutcome {
  status: ConformanceStatus;
  /** One line: what was seen, or why the scenario does not apply. */
  reason: string;
  /** The load run's counts. */
  figures?: LoadFigures;
}

export interface ScenarioContext {
  provider: LockProvider;
  resource: ProviderResource;
  /** A key of its own for every scenario run, so runs never see each other's leases. */
  key: string;
  /** Present when this run started the server itself: a crash and a start again (kill -9, same port and data). */
  restartServer?: () => Promise<void>;
  serverName: string;
  load: LoadOptions;
}

export interface ConformanceScenario {
  id: string;
  title: string;
  run(ctx: ScenarioContext): Promise<ScenarioOutcome>;
}

const pass = (reason: string): ScenarioOutcome => ({ status: 'pass', reason });
const fail = (reason: string): ScenarioOutcome => ({ status: 'fail', reason });
const notApplicable = (reason: string): ScenarioOutcome => ({ status: 'not-applicable', reason });

const NO_TOKEN =
  'the lock carries no fence token, so the resource cannot refuse the old holder\'s late writes; take the token from a durable counter (UPDATE fence_authority SET token = token + 1 ... RETURNING token)';

/** Retries acquire until it grants or `withinMs` runs out (errors while a server restarts count as "not yet"). */
async function acquireWithin(client: LockClient, key: string, ttlMs: number, ownerId: string, withinMs: number): Promise<{ lease: ProviderLease | null; afterMs: number; lastError?: string }> {
  const start = Date.now();
  let lastError: string | undefined;
  while (Date.now() - start <= withinMs) {
    try {
      const lease = await client.acquire(key, ttlMs, ownerId);
      if (lease) return { lease, afterMs: Date.now() - start };
    } catch (error) {
      lastError = errorMessage(error);
    }
    await sleep(50);
  }
  return { lease: null, afterMs: Date.now() - start, ...(lastError ? { lastError } : {}) };
}

/** How long a lease may take to end once its holder stops renewing it. */
function expiryBound(provider: LockProvider, lease: ProviderLease): number {
  return lease.ttlMs + provider.expiryLatencyMs + 2000;
}

/** The late holder writes with its old token after the newer holder wrote: fenced must refuse, unfenced shows the damage. */
async function lateWrite(ctx: ScenarioContext, older: ProviderLease, newer: ProviderLease): Promise<string | undefined> {
  const { resource, key } = ctx;
  await resource.write('fenced', key, 2, newer.fenceToken!);
  await resource.write('unfenced', key, 2, newer.fenceToken!);
  const fenced = await resource.write('fenced', key, 1, older.fenceToken!);
  const unfenced = await resource.write('unfenced', key, 1, older.fenceToken!);
  if (fenced.accepted) return `the fenced statement accepted the late write with token ${older.fenceToken} after ${newer.fenceToken}`;
  return unfenced.accepted ? undefined : 'the unfenced statement refused the late write: the resource did not behave as written';
}

function tokensIncrease(older: ProviderLease, newer: ProviderLease): string | undefined {
  if (older.fenceToken === null || newer.fenceToken === null) return NO_TOKEN;
  if (newer.fenceToken <= older.fenceToken) return `the newer lease got token ${newer.fenceToken}, not above the older one's ${older.fenceToken}`;
  return undefined;
}

async function withClients<T>(provider: LockProvider, count: number, body: (clients: LockClient[]) => Promise<T>): Promise<T> {
  const clients: LockClient[] = [];
  try {
    for (let i = 0; i < count; i++) clients.push(await provider.connect());
    return await body(clients);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

const expiryWhilePaused: ConformanceScenario = {
  id: 'expiry-while-paused',
  title: 'the holder process is paused (SIGSTOP) past its TTL: the lease ends, the next holder gets a higher token, the late write is refused',
  async run(ctx) {
    const { provider, key } = ctx;
    if (provider.tokenSource === null) return notApplicable('no TTL: a paused holder keeps an advisory lock as long as its session lives, and blocks everyone');
    const holder = new RemoteHolder(provider.spec);
    try {
      const a = await holder.acquire(key, provider.ttlMs, 'A');
      if (!a) return fail('A got no lease on a free key');
      return await withClients(provider, 1, async ([b]) => {
        if (await b.acquire(key, provider.ttlMs, 'B')) return fail("B got a lease while A's was live: no mutual exclusion");
        holder.pause();
        const got = await acquireWithin(b, key, provider.ttlMs, 'B', expiryBound(provider, a));
        if (!got.lease) return fail(`A's lease had not ended ${got.afterMs} ms after A was paused (TTL ${a.ttlMs} ms)${got.lastError ? `; last error: ${got.lastError}` : ''}`);
        const order = tokensIncrease(a, got.lease);
        if (order) return fail(order);
        const broken = await lateWrite(ctx, a, got.lease);
        holder.resume();
        if (broken) return fail(broken);
        await b.release(got.lease);
        return pass(`B got the lease ${got.afterMs} ms after A was paused (TTL ${a.ttlMs} ms), token ${a.fenceToken} -> ${got.lease.fenceToken}; A's late write was refused (the unfenced statement took it)`);
      });
    } finally {
      await holder.close();
    }
  },
};

const keepAlive: ConformanceScenario = {
  id: 'keep-alive',
  title: 'a live holder that renews keeps its lease for 3 TTLs; nobody else gets it; after release the next one does',
  async run(ctx) {
    const { provider, key } = ctx;
    return withClients(provider, 2, async ([a, b]) => {
      const lease = await a.acquire(key, provider.ttlMs, 'A');
      if (!lease) return fail('A got no lease on a free key');
      const ttl = Number.isFinite(lease.ttlMs) ? lease.ttlMs : provider.ttlMs;
      const until = Date.now() + 3 * ttl;
      let nextExtend = Date.now() + ttl / 3;
      let refused = 0;
      while (Date.now() < until) {
        if (a.extend && Date.now() >= nextExtend) {
          if (!(await a.extend(lease))) return fail(`A's extend was refused ${Math.round(until - Date.now())} ms before the end although A renewed every ${Math.round(ttl / 3)} ms`);
          nextExtend = Date.now() + ttl / 3;
        }
        const other = await b.acquire(key, provider.ttlMs, 'B');
        if (other) return fail(`B got the lease (token ${other.fenceToken}) although A kept renewing it`);
        refused += 1;
        await sleep(Math.min(100, ttl / 6));
      }
      const released = await a.release(lease);
      if (released === false) return fail('A could not release the lease it had kept alive');
      const after = await acquireWithin(b, key, provider.ttlMs, 'B', 2000);
      if (!after.lease) return fail('after A released, B still got no lease');
      await b.release(after.lease);
      const how = a.extend ? `extended every ${Math.round(ttl / 3)} ms` : provider.tokenSource === null ? 'held by its session' : `renewed by ${provider.library}`;
      return pass(`A kept its lease for ${3 * ttl} ms (${how}); B was refused ${refused} times, then acquired ${after.afterMs} ms after the release`);
    });
  },
};

const revoke: ConformanceScenario = {
  id: 'revoke',
  title: "an operator ends the holder's lease: the next holder gets it at once with a higher token, the old holder's writes are refused",
  async run(ctx) {
    const { provider, key } = ctx;
    return withClients(provider, 2, async ([a, b]) => {
      const lease = await a.acquire(key, provider.ttlMs * 20, 'A');
      if (!lease) return fail('A got no lease on a free key');
      await provider.revoke(lease);
      const got = await acquireWithin(b, key, provider.ttlMs, 'B', provider.expiryLatencyMs + 2000);
      if (!got.lease) return fail(`B got no lease ${got.afterMs} ms after A's was revoked`);
      const order = tokensIncrease(lease, got.lease);
      if (order) return fail(`B acquired ${got.afterMs} ms after the revoke, but ${order}`);
      const broken = await lateWrite(ctx, lease, got.lease);
      if (broken) return fail(broken);
      const stillExtends = a.extend ? await a.extend(lease).catch(() => false) : undefined;
      if (stillExtends) return fail("A's extend succeeded after its lease was revoked: the old holder can take the key back");
      await b.release(got.lease);
      return pass(`B acquired ${got.afterMs} ms after the revoke, token ${lease.fenceToken} -> ${got.lease.fenceToken}; A's late write was refused${stillExtends === false ? ", A's extend refused" : ''}`);
    });
  },
};

const restart: ConformanceScenario = {
  id: 'restart',
  title: 'the server is killed (SIGKILL) and started again between two acquisitions: the next token exceeds every token issued before',
  async run(ctx) {
    const { provider, key, restartServer } = ctx;
    if (!restartServer) return notApplicable(`restarts the server: runs only against servers this command started (--start-servers), not ${ctx.serverName}`);
    const issued: number[] = [];
    await withClients(provider, 1, async ([a]) => {
      for (let i = 0; i < 3; i++) {
        const lease = await a.acquire(key, provider.ttlMs, `A${i}`);
        if (lease?.fenceToken != null) issued.push(lease.fenceToken);
        if (lease) await a.release(lease);
      }
    });
    await restartServer();
    return withClients(provider, 1, async ([b]) => {
      const got = await acquireWithin(b, key, provider.ttlMs, 'B', 10_000);
      if (!got.lease) return fail(`no lease in 10 s after the restart${got.lastError ? `: ${got.lastError}` : ''}`);
      if (got.lease.fenceToken === null) return fail(`the lock came back after the restart, but ${NO_TOKEN}`);
      const highest = Math.max(...issued);
      await b.release(got.lease).catch(() => {});
      if (got.lease.fenceToken <= highest) {
        return fail(`after the server was killed and started again it issued token ${got.lease.fenceToken}, not above ${highest} issued before: the token repeats, so the resource refuses the new holder or takes a stale write (${await provider.describeServer().catch(() => 'server settings unknown')})`);
      }
      return pass(`tokens ${issued.join(', ')} before the kill, ${got.lease.fenceToken} after the start (${await provider.describeServer().catch(() => '')})`);
    });
  },
};

const connectionLoss: ConformanceScenario = {
  id: 'connection-loss',
  title: "the holder's connection is partitioned mid-lease: the lease ends, the next holder gets a higher token, the healed holder's write and release change nothing",
  async run(ctx) {
    const { provider, key } = ctx;
    const proxy = new PartitionProxy(provider.endpoint);
    const via = await proxy.start();
    try {
      const a = await provider.connect(via);
      try {
        const lease = await a.acquire(key, provider.ttlMs, 'A');
        if (!lease) return fail('A got no lease on a free key');
        return await withClients(provider, 2, async ([b, c]) => {
          if (provider.tokenSource === null) {
            proxy.cut(); // an advisory lock ends only with its session: close the connection
            const got = await acquireWithin(b, key, provider.ttlMs, 'B', 5000);
            if (!got.lease) return fail('after A\'s connection closed, its session kept the lock for 5 s');
            return fail(`B took the lock ${got.afterMs} ms after A's connection closed, and ${NO_TOKEN}`);
          }
          a.stopRenewing?.(lease); // through the partition nothing would arrive anyway
          proxy.partition();
          const got = await acquireWithin(b, key, provider.ttlMs, 'B', expiryBound(provider, lease));
          if (!got.lease) return fail(`the lease of the partitioned holder had not ended ${got.afterMs} ms later (TTL ${lease.ttlMs} ms)`);
          const order = tokensIncrease(lease, got.lease);
          if (order) return fail(order);
          const broken = await lateWrite(ctx, lease, got.lease);
          if (broken) return fail(broken);
          proxy.heal();
          const released = await a.release(lease).catch((e: unknown) => `error: ${errorMessage(e)}`);
          const probe = await c.acquire(key, provider.ttlMs, 'C');
          if (probe) return fail(`after the healed holder released its old lease, C got the lock although B held it (release by name?)`);
          await b.release(got.lease);
          return pass(`B acquired ${got.afterMs} ms into the partition, token ${lease.fenceToken} -> ${got.lease.fenceToken}; A's late write refused; A's old release (${String(released)}) left B's lease`);
        });
      } finally {
        proxy.heal();
        await a.close().catch(() => {});
      }
    } finally {
      await proxy.close();
    }
  },
};

const oldHandleRelease: ConformanceScenario = {
  id: 'old-handle-release',
  title: "the old holder releases its expired handle after the next holder took the lease: the newer lease stays",
  async run(ctx) {
    const { provider, key } = ctx;
    return withClients(provider, 2, async ([b, c]) => {
      let released: boolean | null | undefined;
      let bLease: ProviderLease | null = null;
      if (provider.tokenSource === null) {
        // No TTL: the lease ends when an operator ends A's session; A reconnects and releases.
        const [a] = [await provider.connect()];
        try {
          const lease = await a.acquire(key, provider.ttlMs, 'A');
          if (!lease) return fail('A got no lease on a free key');
          await provider.revoke(lease);
          bLease = (await acquireWithin(b, key, provider.ttlMs, 'B', 2000)).lease;
          if (!bLease) return fail("B got no lock after A's session ended");
          released = await a.release(lease).catch(() => false);
        } finally {
          await a.close();
        }
      } else {
        const holder = new RemoteHolder(provider.spec);
        try {
          const lease = await holder.acquire(key, provider.ttlMs, 'A');
          if (!lease) return fail('A got no lease on a free key');
          holder.pause();
          const got = await acquireWithin(b, key, provider.ttlMs, 'B', expiryBound(provider, lease));
          holder.resume();
          bLease = got.lease;
          if (!bLease) return fail(`A's lease had not ended ${got.afterMs} ms after A was paused`);
          released = await holder.release();
        } finally {
          await holder.close();
        }
      }
      const probe = await c.acquire(key, provider.ttlMs, 'C');
      if (probe) return fail(`A's release of its old handle removed B's lease: C acquired while B held it`);
      const bReleased = await b.release(bLease);
      if (bReleased === false) return fail("B's own release failed after A's old release: B's lease was gone");
      return pass(`A's old release returned ${String(released ?? 'nothing')}; B kept the lease and released it itself`);
    });
  },
};

const load: ConformanceScenario = {
  id: 'load',
  title: 'N workers contend for one key for a bounded number of rounds, each writing through a fenced and an unfenced statement',
  async run(ctx) {
    const figures = await runLoad(ctx.provider, ctx.resource, ctx.key, ctx.load);
    const { fenced, unfenced } = figures;
    const summary = `${figures.rounds} rounds by ${figures.workers} workers in ${(figures.elapsedMs / 1000).toFixed(1)} s (${figures.roundsPerSecond.toFixed(1)}/s), ${figures.pauses} paused holders; unfenced: ${unfenced.staleAccepted} stale writes accepted, ${unfenced.lostUpdates} lost updates`;
    if (figures.rounds === 0) return { status: 'fail', reason: `no round completed: ${figures.firstError ?? 'no lease was granted'}`, figures };
    const errors = figures.errors > 0 ? `; ${figures.errors} operations failed (first: ${figures.firstError})` : '';
    if (fenced === null) return { status: 'fail', reason: `${summary}; fenced: ${NO_TOKEN}`, figures };
    const outcome: ScenarioOutcome = {
      status: fenced.staleAccepted === 0 ? 'pass' : 'fail',
      reason: `${summary}; fenced: ${fenced.staleAccepted} stale accepted, ${fenced.rejected} refused, ${fenced.lostUpdates} lost updates${figures.stoppedByTime ? ' (stopped by the time limit)' : ''}${errors}`,
      figures,
    };
    return outcome;
  },
};

export const CONFORMANCE_SCENARIOS: readonly ConformanceScenario[] = [
  expiryWhilePaused,
  keepAlive,
  revoke,
  restart,
  connectionLoss,
  oldHandleRelease,
  load,
];
