import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { LockClient, ProviderLease } from './provider.js';
import { ioredisVersion, RedisFamilyProvider, tokenKey } from './redis-family.js';

// The lease and its token in one step: a lease whose token were taken by a second command could
// get a higher token than the next holder's, if it expired in between.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false`;
// Compare-and-delete: an old handle never removes a newer holder's lease.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;
const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

/** Plain ioredis: SET NX PX with a random lease id, INCR for the token, compare-and-delete release. */
export class RedisProvider extends RedisFamilyProvider {
  readonly library = ioredisVersion;
  readonly renewsItself = false;

  lockKey(key: string): string {
    return `fencelint:lock:${key}`;
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    const redis = await this.openConnection(via);
    return new RedisLockClient(this, redis);
  }
}

class RedisLockClient implements LockClient {
  constructor(
    private readonly provider: RedisProvider,
    private readonly redis: Redis,
  ) {}

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    const leaseId = `${ownerId}:${randomUUID()}`;
    const token = await this.provider.timed(
      this.redis.eval(ACQUIRE, 2, this.provider.lockKey(key), tokenKey(key), leaseId, String(ttlMs)) as Promise<number | null>,
      'SET NX PX + INCR',
    );
    if (token === null) return null;
    return { key, ownerId, leaseId, fenceToken: Number(token), ttlMs };
  }

  async extend(lease: ProviderLease): Promise<boolean> {
    const n = await this.provider.timed(
      this.redis.eval(EXTEND, 1, this.provider.lockKey(lease.key), lease.leaseId, String(lease.ttlMs)) as Promise<number>,
      'compare-and-PEXPIRE',
    );
    return n === 1;
  }

  async release(lease: ProviderLease): Promise<boolean> {
    const n = await this.provider.timed(
      this.redis.eval(RELEASE, 1, this.provider.lockKey(lease.key), lease.leaseId) as Promise<number>,
      'compare-and-delete',
    );
    return n === 1;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
