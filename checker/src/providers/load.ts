import { errorMessage } from '../errors.js';
import { sleep } from './deadline.js';
import type { LockClient, LockProvider, ProviderLease } from './provider.js';
import type { FenceMode, ProviderResource } from './resource.js';

export interface LoadOptions {
  /** Concurrent workers, each with its own connection (1 to 32). */
  workers: number;
  /** Rounds in all: a round is one granted lease, a read and a write through each statement. */
  rounds: number;
  /** The run stops after this long even if rounds remain. */
  timeLimitMs: number;
  /** Every pauseEvery-th round the holder stalls past its TTL without renewing (0: never). */
  pauseEvery: number;
}

export const DEFAULT_LOAD: LoadOptions = { workers: 8, rounds: 60, timeLimitMs: 30_000, pauseEvery: 5 };

export interface ModeFigures {
  accepted: number;
  rejected: number;
  /** Accepted although the row already held the same or a higher token. */
  staleAccepted: number;
  /** Accepted increments missing from the final value: accepted − final. */
  lostUpdates: number;
}

export interface LoadFigures {
  workers: number;
  rounds: number;
  pauses: number;
  elapsedMs: number;
  roundsPerSecond: number;
  stoppedByTime: boolean;
  errors: number;
  firstError?: string;
  /** null when the provider has no token to fence with. */
  fenced: ModeFigures | null;
  unfenced: ModeFigures;
}

/**
 * The contention run: `workers` clients race for one key. Each granted round reads the counter
 * from both tables, sometimes stalls past its TTL (its renewal stopped, as in a pause), then
 * writes counter+1 through the fenced and the unfenced statement and releases. A stale write is
 * one that overwrote an equal or higher token; a lost update is an accepted increment that the
 * final counter does not contain. Bounded by `rounds` and `timeLimitMs`: it stops by itself.
 */
export async function runLoad(provider: LockProvider, resource: ProviderResource, key: string, options: LoadOptions): Promise<LoadFigures> {
  const workers = Math.max(1, Math.min(32, options.workers));
  const clients: LockClient[] = [];
  const tally = { fenced: blank(), unfenced: blank() };
  let started = 0;
  let done = 0;
  let pauses = 0;
  let errors = 0;
  let firstError: string | undefined;
  const hasToken = provider.tokenSource !== null;
  try {
    for (let i = 0; i < workers; i++) clients.push(await provider.connect());
    await resource.seed(key);
    const begin = Date.now();
    const deadline = begin + options.timeLimitMs;
    const worker = async (client: LockClient, index: number) => {
      const owner = `W${index + 1}`;
      while (started < options.rounds && Date.now() < deadline) {
        let lease: ProviderLease | null;
        try {
          lease = await client.acquire(key, provider.ttlMs, owner);
        } catch (error) {
          errors += 1;
          firstError ??= errorMessage(error);
          await sleep(20);
          continue;
        }
        if (!lease) {
          await sleep(5 + Math.random() * 20);
          continue;
        }
        if (started >= options.rounds) {
          await client.release(lease).catch(() => {});
          break;
        }
        const round = ++started;
        try {
          const fencedValue = hasToken ? (await resource.read('fenced', key)).value : 0;
          const unfencedValue = (await resource.read('unfenced', key)).value;
          if (options.pauseEvery > 0 && round % options.pauseEvery === 0) {
            pauses += 1;
            client.stopRenewing?.(lease);
            // Past the TTL and the server's expiry lag, bounded by the run's deadline.
            const stall = (Number.isFinite(lease.ttlMs) ? lease.ttlMs : provider.ttlMs) + provider.expiryLatencyMs + 100;
            await sleep(Math.min(stall, Math.max(0, deadline - Date.now())));
          } else {
            await sleep(Math.random() * 5);
          }
          // Without a fence token (advisory locks) the grant order stands in, only to count stale writes.
          const token = lease.fenceToken ?? round;
          if (hasToken) count(tally.fenced, await resource.write('fenced', key, fencedValue + 1, token), token);
          count(tally.unfenced, await resource.write('unfenced', key, unfencedValue + 1, token), token);
          await client.release(lease).catch(() => {});
          done += 1;
        } catch (error) {
          errors += 1;
          firstError ??= errorMessage(error);
        }
      }
    };
    await Promise.all(clients.map((c, i) => worker(c, i)));
    const elapsedMs = Date.now() - begin;
    const finalFenced = hasToken ? (await resource.read('fenced', key)).value : 0;
    const finalUnfenced = (await resource.read('unfenced', key)).value;
    tally.fenced.lostUpdates = tally.fenced.accepted - finalFenced;
    tally.unfenced.lostUpdates = tally.unfenced.accepted - finalUnfenced;
    return {
      workers,
      rounds: done,
      pauses,
      elapsedMs,
      roundsPerSecond: done / Math.max(elapsedMs / 1000, 0.001),
      stoppedByTime: started < options.rounds,
      errors,
      ...(firstError ? { firstError } : {}),
      fenced: hasToken ? tally.fenced : null,
      unfenced: tally.unfenced,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

function blank(): ModeFigures {
  return { accepted: 0, rejected: 0, staleAccepted: 0, lostUpdates: 0 };
}

function count(figures: ModeFigures, outcome: { accepted: boolean; overwrittenToken: number | null }, token: number): void {
  if (!outcome.accepted) {
    figures.rejected += 1;
    return;
  }
  figures.accepted += 1;
  if (outcome.overwrittenToken !== null && outcome.overwrittenToken >= token) figures.staleAccepted += 1;
}

export type { FenceMode };
