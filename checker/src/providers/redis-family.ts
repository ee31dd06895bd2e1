import type { Redis } from 'ioredis';
import { withDeadline } from './deadline.js';
import { libraryVersion } from './library-version.js';
import type { LockClient, LockProvider, ProviderLease, ProviderSpec } from './provider.js';
import { describeRedis, openRedis, parseRedisUrl } from './redis-connection.js';

/**
 * What the three Redis providers share: the server, an operator's connection (to revoke a lease
 * with DEL), and the token: INCR on a key of its own, so it is as durable as the server's
 * persistence makes it (an AOF with appendfsync always survives a crash; no persistence starts
 * the counter again at 1).
 */
export abstract class RedisFamilyProvider implements LockProvider {
  abstract readonly library: string;
  readonly tokenSource: string = 'Redis INCR on fencelint:token:<key>';
  readonly ttlMs = 400;
  readonly expiryLatencyMs = 150;
  abstract readonly renewsItself: boolean;
  readonly endpoint: { host: string; port: number };
  private admin: Redis | undefined;

  constructor(readonly spec: ProviderSpec) {
    const { host, port } = parseRedisUrl(spec.address);
    this.endpoint = { host, port };
  }

  get label(): string {
    return this.spec.label ?? this.spec.id;
  }

  abstract connect(via?: { host: string; port: number }): Promise<LockClient>;

  /** The key the library stores the lease under. */
  abstract lockKey(key: string): string;

  protected openConnection(via?: { host: string; port: number }): Promise<Redis> {
    return openRedis(this.spec.address, this.spec.operationTimeoutMs, via);
  }

  protected async adminConnection(): Promise<Redis> {
    this.admin ??= await this.openConnection();
    return this.admin;
  }

  async revoke(lease: ProviderLease): Promise<void> {
    const admin = await this.adminConnection();
    await this.timed(admin.del(this.lockKey(lease.key)), 'DEL of the lock key');
  }

  async describeServer(): Promise<string> {
    return describeRedis(await this.adminConnection());
  }

  async close(): Promise<void> {
    this.admin?.disconnect();
    this.admin = undefined;
  }

  timed<T>(work: Promise<T>, what: string): Promise<T> {
    return withDeadline(work, this.spec.operationTimeoutMs, `${this.label}: ${what}`);
  }
}

export const tokenKey = (key: string): string => `fencelint:token:${key}`;

export const ioredisVersion = libraryVersion('ioredis');
