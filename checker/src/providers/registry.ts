import { EtcdProvider } from './etcd.js';
import { PostgresAdvisoryProvider } from './postgres-advisory.js';
import { PostgresCounterProvider } from './postgres-counter.js';
import type { LockProvider, ProviderSpec } from './provider.js';
import { RedisProvider } from './redis.js';
import { RedisSemaphoreProvider } from './redis-semaphore.js';
import { RedlockProvider } from './redlock.js';

export function createProvider(spec: ProviderSpec): LockProvider {
  switch (spec.id) {
    case 'etcd':
      return new EtcdProvider(spec);
    case 'redis':
      return new RedisProvider(spec);
    case 'redlock':
      return new RedlockProvider(spec);
    case 'redis-semaphore':
      return new RedisSemaphoreProvider(spec);
    case 'postgres-counter':
      return new PostgresCounterProvider(spec);
    case 'postgres-advisory':
      return new PostgresAdvisoryProvider(spec);
  }
}

/** The providers one Redis server serves: plain ioredis, redlock and redis-semaphore. */
export const REDIS_PROVIDERS = ['redis', 'redlock', 'redis-semaphore'] as const;
export const POSTGRES_PROVIDERS = ['postgres-counter', 'postgres-advisory'] as const;
