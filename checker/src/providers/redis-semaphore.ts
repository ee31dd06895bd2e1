import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { libraryVersion } from './library-version.js';
import type { LockClient, ProviderLease } from './provider.js';
import { RedisFamilyProvider, tokenKey } from './redis-family.js';

/**
 * redis-semaphore's Mutex as users hold it: `tryAcquire()`, its own refresh timer, `release()`,
 * `onLockLost`. Its identifier is a random UUID, so the token is an INCR after the acquire.
 */
export class RedisSemaphoreProvider extends RedisFamilyProvider {
  readonly library = `${libraryVersion('redis-semaphore')} on ${libraryVersion('ioredis')}`;
  readonly renewsItself = true;

  lockKey(key: string): string {
    return `mutex:${key}`; // the Mutex's own prefix
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    return new SemaphoreClient(this, await this.openConnection(via));
  }
}

class SemaphoreClient implements LockClient {
  private readonly mutexes = new Map<string, { mutex: Mutex; lost: boolean }>();

  constructor(
    private readonly provider: RedisSemaphoreProvider,
    private readonly redis: Redis,
  ) {}

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    const entry = { mutex: undefined as unknown as Mutex, lost: false };
    entry.mutex = new Mutex(this.redis, key, {
      lockTimeout: ttlMs,
      acquireAttemptsLimit: 1,
      refreshInterval: Math.floor(ttlMs / 3),
      onLockLost: () => {
        entry.lost = true;
      },
    });
    const acquired = await this.provider.timed(entry.mutex.tryAcquire(), 'Mutex.tryAcquire');
    if (!acquired) return null;
    const token = await this.provider.timed(this.redis.incr(tokenKey(key)), 'INCR');
    const leaseId = `${ownerId}:${entry.mutex.identifier}`;
    this.mutexes.set(leaseId, entry);
    return { key, ownerId, leaseId, fenceToken: token, ttlMs };
  }

  async release(lease: ProviderLease): Promise<undefined> {
    const entry = this.mutexes.get(lease.leaseId);
    if (!entry) return undefined;
    this.mutexes.delete(lease.leaseId);
    // The Mutex deletes the key only if it still holds its own identifier; it does not say whether it did.
    await this.provider.timed(entry.mutex.release(), 'Mutex.release');
    return undefined;
  }

  stopRenewing(lease: ProviderLease): void {
    this.mutexes.get(lease.leaseId)?.mutex.stopRefresh();
  }

  toldLost(lease: ProviderLease): boolean {
    return this.mutexes.get(lease.leaseId)?.lost ?? false;
  }

  async close(): Promise<void> {
    for (const { mutex } of this.mutexes.values()) mutex.stopRefresh();
    this.mutexes.clear();
    this.redis.disconnect();
  }
}
