import { Redis } from 'ioredis';
import { withDeadline } from './deadline.js';
import { through } from './pg-session.js';

export interface RedisEndpoint {
  host: string;
  port: number;
  tls: boolean;
}

export function parseRedisUrl(url: string): RedisEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a Redis URL (redis://host:port or rediss://host:port)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`"${url}" is not a Redis URL: it must start with redis:// or rediss://`);
  }
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || 6379), tls: parsed.protocol === 'rediss:' };
}

/**
 * An ioredis connection that never waits without end: connect and every command have a
 * deadline, and after a server restart it reconnects by itself (as a user's client would).
 * `via` sends it through another address (the partition proxy) with the same credentials.
 */
export async function openRedis(url: string, timeoutMs: number, via?: { host: string; port: number }): Promise<Redis> {
  const endpoint = parseRedisUrl(url);
  const redis = new Redis(through(url, via), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 2,
    retryStrategy: (times) => Math.min(times * 50, 500),
    ...(endpoint.tls ? { tls: { rejectUnauthorized: process.env.NODE_TLS_REJECT_UNAUTHORIZED !== '0' } } : {}),
  });
  redis.on('error', () => {}); // surfaces on the next command instead of crashing the process
  try {
    await withDeadline(redis.connect(), timeoutMs, `Redis at ${endpoint.host}:${endpoint.port}`);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}

/** The persistence settings that decide whether INCR tokens survive a restart. */
export async function describeRedis(redis: Redis): Promise<string> {
  const info = String(await redis.info('server'));
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  try {
    const aof = (await redis.config('GET', 'appendonly')) as string[];
    const fsync = (await redis.config('GET', 'appendfsync')) as string[];
    const save = (await redis.config('GET', 'save')) as string[];
    const persistence =
      aof[1] === 'yes' ? `AOF, appendfsync ${fsync[1]}` : save[1] ? `RDB snapshots only (save ${save[1]})` : 'no persistence';
    return `Redis ${version}, ${persistence}`;
  } catch {
    return `Redis ${version} (CONFIG GET refused: persistence unknown)`;
  }
}
