/**
 * A lock provider as users run it: a server (etcd, Redis, PostgreSQL) and the client library
 * they hold it with. The conformance scenarios (scenarios.ts) drive every provider through
 * these two interfaces, with real time: leases expire on the server's clock, not the checker's.
 */

export type ProviderId = 'etcd' | 'redis' | 'redlock' | 'redis-semaphore' | 'postgres-counter' | 'postgres-advisory';

/** Everything needed to make the provider again in another process (the paused holder runs in one). */
export interface ProviderSpec {
  id: ProviderId;
  /** redis://..., postgres://..., or etcd's comma-separated host:port endpoints. */
  address: string;
  /** Shown in the table, e.g. "redis (no persistence)". Defaults to the id. */
  label?: string;
  /** Per-operation deadline: an operation without an answer by then fails the scenario instead of hanging it. */
  operationTimeoutMs: number;
}

export interface ProviderLease {
  key: string;
  ownerId: string;
  leaseId: string;
  /** null when the provider issues no fence token (PostgreSQL advisory locks). */
  fenceToken: number | null;
  /** The TTL the server granted (etcd raises a short TTL to its minimum). Infinity: no TTL, held while the session lives. */
  ttlMs: number;
}

/** One client connection, as one worker holds it. */
export interface LockClient {
  /** One attempt: the lease, or null while another lease on the key is live. */
  acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null>;
  /** Extend the lease by its TTL; false once it is no longer this holder's. Absent when the library renews by itself. */
  extend?(lease: ProviderLease): Promise<boolean>;
  /** Release this lease only; true when it did, false when the lease was no longer this holder's, undefined when the library does not say. */
  release(lease: ProviderLease): Promise<boolean | undefined>;
  /**
   * Stop the library's own renewal of this lease, as a paused process would (the load run's
   * in-process pause; the scenarios pause a real process instead). Absent when nothing renews.
   */
  stopRenewing?(lease: ProviderLease): void;
  /** True once the library has told the holder that the lease is lost (etcd3 'lost', redis-semaphore onLockLost). */
  toldLost?(lease: ProviderLease): boolean;
  close(): Promise<void>;
}

export interface LockProvider {
  readonly spec: ProviderSpec;
  readonly label: string;
  /** The client library and its version, e.g. "ioredis 5.9.3". */
  readonly library: string;
  /** Where the fence token comes from, or null when there is none. */
  readonly tokenSource: string | null;
  /** The TTL the scenarios ask for. */
  readonly ttlMs: number;
  /** How long after its TTL the server may take to end a lease (etcd checks expiry every 500 ms). */
  readonly expiryLatencyMs: number;
  /** True when the library keeps a live lease alive by itself (etcd3's lease keep-alive, redis-semaphore's refresh). */
  readonly renewsItself: boolean;
  /** host:port the clients connect to; `connect(via)` replaces it (the partition proxy). */
  readonly endpoint: { host: string; port: number };
  connect(via?: { host: string; port: number }): Promise<LockClient>;
  /** End a live lease from another connection, as an operator would (etcd lease revoke, DEL of the lock key, pg_terminate_backend). */
  revoke(lease: ProviderLease): Promise<void>;
  /** Facts about the server worth a line in the report (its version, its persistence settings). */
  describeServer(): Promise<string>;
  close(): Promise<void>;
}
