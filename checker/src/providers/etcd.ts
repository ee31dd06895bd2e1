import { noop } from 'cockatiel';
import { Etcd3, type Lease } from 'etcd3';
import { withDeadline } from './deadline.js';
import { libraryVersion } from './library-version.js';
import type { LockClient, LockProvider, ProviderLease, ProviderSpec } from './provider.js';

export function parseEtcdEndpoints(value: string): string[] {
  const hosts = value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  if (hosts.length === 0) throw new Error('--etcd-endpoints is empty: give host:port[,host:port]');
  for (const host of hosts) {
    const bare = host.replace(/^https?:\/\//, '');
    if (!/^[^\s/:]+:\d{1,5}$/.test(bare)) throw new Error(`"${host}" is not an etcd endpoint: give host:port or http(s)://host:port`);
  }
  return hosts;
}

/**
 * etcd through etcd3: a lease with TTL and etcd3's own keep-alive, and the lock key put under
 * the lease only if it does not exist (`Create == 0`), which is what etcd3's Lock.acquire()
 * does. Lock.acquire() drops the revision of that put; this adapter keeps it: the lock key's
 * create revision is cluster-wide, strictly increasing and durable, so it is the fence token.
 */
export class EtcdProvider implements LockProvider {
  readonly library = libraryVersion('etcd3');
  readonly tokenSource = "the lock key's create revision";
  readonly ttlMs = 1000; // etcd's smallest TTL with a 500 ms election timeout; in whole seconds
  readonly expiryLatencyMs = 1500; // the leader revokes expired leases every 500 ms, through raft
  readonly renewsItself = true;
  readonly endpoint: { host: string; port: number };
  private readonly hosts: string[];
  private admin: Etcd3 | undefined;

  constructor(readonly spec: ProviderSpec) {
    this.hosts = parseEtcdEndpoints(spec.address);
    const [host, port] = this.hosts[0].replace(/^https?:\/\//, '').split(':');
    this.endpoint = { host, port: Number(port) };
  }

  get label(): string {
    return this.spec.label ?? this.spec.id;
  }

  lockKey(key: string): string {
    return `fencelint/lock/${key}`;
  }

  client(via?: { host: string; port: number }): Etcd3 {
    const timeout = this.spec.operationTimeoutMs;
    return new Etcd3({
      hosts: via ? `http://${via.host}:${via.port}` : this.hosts,
      dialTimeout: timeout,
      // Unary calls get a deadline; the keep-alive stream lives as long as the lease.
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeout }),
      // No retries and no circuit breaker: a failure shows at once, and after a server restart the
      // next call goes through instead of meeting a breaker that stays open for 5 s.
      faultHandling: { global: noop, host: () => noop },
    });
  }

  async connect(via?: { host: string; port: number }): Promise<LockClient> {
    const client = this.client(via);
    try {
      await this.timed(client.maintenance.status(), 'status');
    } catch (error) {
      client.close();
      throw error;
    }
    return new EtcdLockClient(this, client);
  }

  async revoke(lease: ProviderLease): Promise<void> {
    this.admin ??= this.client();
    await this.timed(this.admin.leaseClient.leaseRevoke({ ID: lease.leaseId }), 'lease revoke');
  }

  async describeServer(): Promise<string> {
    this.admin ??= this.client();
    const status = await this.timed(this.admin.maintenance.status(), 'status');
    return `etcd ${status.version}, ${this.hosts.length} endpoint${this.hosts.length === 1 ? '' : 's'}`;
  }

  async close(): Promise<void> {
    this.admin?.close();
    this.admin = undefined;
  }

  timed<T>(work: Promise<T>, what: string): Promise<T> {
    return withDeadline(work, this.spec.operationTimeoutMs, `${this.label}: ${what}`);
  }
}

class EtcdLockClient implements LockClient {
  private readonly leases = new Map<string, { lease: Lease; lost: boolean }>();

  constructor(
    private readonly provider: EtcdProvider,
    private readonly etcd: Etcd3,
  ) {}

  async acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    const lease = this.etcd.lease(Math.max(1, Math.ceil(ttlMs / 1000)));
    const entry = { lease, lost: false };
    lease.on('lost', () => {
      entry.lost = true;
    });
    const leaseId = await this.provider.timed(lease.grant(), 'lease grant');
    const lockKey = this.provider.lockKey(key);
    const put = await this.provider.timed(
      this.etcd.if(lockKey, 'Create', '==', 0).then(this.etcd.put(lockKey).value(ownerId).lease(leaseId)).commit(),
      'put if absent',
    );
    if (!put.succeeded) {
      await this.provider.timed(lease.revoke(), 'lease revoke').catch(() => {});
      return null;
    }
    // The server may have raised the TTL to its minimum; the scenarios wait for the real one.
    const granted = await this.provider.timed(this.etcd.leaseClient.leaseTimeToLive({ ID: leaseId }), 'lease TTL');
    this.leases.set(leaseId, entry);
    return { key, ownerId, leaseId, fenceToken: Number(put.header.revision), ttlMs: Number(granted.grantedTTL) * 1000 };
  }

  async release(lease: ProviderLease): Promise<boolean> {
    const entry = this.leases.get(lease.leaseId);
    this.leases.delete(lease.leaseId);
    const lockKey = this.provider.lockKey(lease.key);
    // Delete the key only while it is still under this lease, then end the lease itself.
    const deleted = await this.provider.timed(
      this.etcd.if(lockKey, 'Lease', '==', lease.leaseId).then(this.etcd.delete().key(lockKey)).commit(),
      'delete if under this lease',
    );
    if (entry) await this.provider.timed(entry.lease.revoke(), 'lease revoke').catch(() => {}); // an expired lease is gone already
    return deleted.succeeded;
  }

  stopRenewing(lease: ProviderLease): void {
    this.leases.get(lease.leaseId)?.lease.release(); // stops the keep-alive; the lease runs out on the server
  }

  toldLost(lease: ProviderLease): boolean {
    return this.leases.get(lease.leaseId)?.lost ?? false;
  }

  async close(): Promise<void> {
    for (const { lease } of this.leases.values()) lease.release();
    this.leases.clear();
    this.etcd.close();
  }
}
