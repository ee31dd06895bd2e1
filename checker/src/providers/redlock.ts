import type { Redis } from 'ioredis';
import Redlock, { type Lock } from 'redlock';
import { libraryVersion } from './library-version.js';
import type { LockClient, ProviderLease } from './provider.js';
import { RedisFamilyProvider, tokenKey } from './redis-family.js';

/**
 * redlock as users hold it: `redlock.acquire([key], ttl)`, `lock.extend(ttl)`, `lock.release()`.
 * Its lock value is random and carries no token, so the token is an INCR right after the acquire.
 */
export class RedlockProvider extends RedisFamilyProvider {
  readonly library = `${libraryVersion('redlock')} on ${libraryVersion('ioredis')}`;
  readonly renewsItself = false;

  lockKey(key: string): string {
    return `fencelint:redlock:${key}`;
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    return new RedlockClient(this, await this.openConnection(via));
  }
}

class RedlockClient implements LockClient {
  private readonly redlock: Redlock;
  private readonly locks = new Map<string, Lock>();

  constructor(
    private readonly provider: RedlockProvider,
    private readonly redis: Redis,
  ) {
    // One attempt per acquire: the scenarios retry themselves.
    this.redlock = new Redlock([redis], { retryCount: 0, driftFactor: 0.01 });
    this.redlock.on('error', () => {}); // redlock emits every refused vote; the outcome is what counts
  }

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    let lock: Lock;
    try {
      lock = await this.provider.timed(this.redlock.acquire([this.provider.lockKey(key)], ttlMs), 'redlock.acquire');
    } catch (error) {
      if ((error as Error).name === 'ExecutionError') return null; // held by someone else
      throw error;
    }
    const token = await this.provider.timed(this.redis.incr(tokenKey(key)), 'INCR');
    const leaseId = `${ownerId}:${lock.value}`;
    this.locks.set(leaseId, lock);
    return { key, ownerId, leaseId, fenceToken: token, ttlMs };
  }

  async extend(lease: ProviderLease): Promise<boolean> {
    const lock = this.locks.get(lease.leaseId);
    if (!lock) return false;
    try {
      this.locks.set(lease.leaseId, await this.provider.timed(lock.extend(lease.ttlMs), 'lock.extend'));
      return true;
    } catch (error) {
      if ((error as Error).name === 'ExecutionError') return false;
      throw error;
    }
  }

  async release(lease: ProviderLease): Promise<boolean> {
    const lock = this.locks.get(lease.leaseId);
    if (!lock) return false;
    this.locks.delete(lease.leaseId);
    try {
      await this.provider.timed(lock.release(), 'lock.release');
      return true;
    } catch (error) {
      // The release script found another value under the key: redlock refuses, B's lease stays.
      if ((error as Error).name === 'ExecutionError') return false;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
