/**
 * Lock models: what the lock libraries users hold look like, kept as data so that a new
 * library (or a user's own authority, through `settings.fencelint.locks`) is an entry
 * here, not a code path. Facts checked against each library's source: of the libraries
 * below only simple-redis-mutex hands out a fence token (an `INCR` of one counter key, on
 * the release function it returns); the others list no `tokenProperties`.
 */

export interface CallbackMethod {
  method: string;
  /** Index of the callback argument; -1 means the last argument. */
  callbackArg: number;
  /**
   * An event listener that runs the callback once the lock is won: only a call whose first
   * argument is this event name (`campaign.on('elected', cb)`, not `campaign.on('error', cb)`).
   */
  event?: string;
}

export interface LockModel {
  /** Stable id, used in messages and settings. */
  id: string;
  /** Import sources that provide this library. Empty for models matched by shape only. */
  packages: string[];
  /** Exports that create an authority, with `new X()` or `X()`; 'default' is the default export. */
  authorityExports: string[];
  /** Authority methods that acquire and resolve to a handle. */
  acquire: string[];
  /** Authority methods that hold the lock while a callback runs. */
  acquireWithCallback: CallbackMethod[];
  /** Authority methods that return a lock object which is then acquired (etcd3 `client.lock(name)`). */
  lockFactory: string[];
  /** Methods on a lock object from `lockFactory`, or on a self-acquiring authority, that acquire it. */
  objectAcquire: string[];
  /** Same as `acquireWithCallback`, on a lock object. */
  objectAcquireWithCallback: CallbackMethod[];
  /** The authority instance is itself the handle (redis-semaphore `new Mutex(...)`). */
  authorityIsHandle: boolean;
  /** Handle methods that release it. */
  release: string[];
  /** Authority methods that release a handle passed as argument (`redlock.release(lock)`). */
  authorityRelease: string[];
  /** Handle methods that extend the lease. */
  extend: string[];
  /** Handle members that report whether the lease is still held: a check, not a fence. */
  validity: string[];
  /** Handle properties that carry a fence token. */
  tokenProperties: string[];
  /** Where a user of this library can get a real token; ends the diagnostic. */
  tokenAdvice: string;
  /** Receiver paths that always are this authority (`leases`, `this.gate`): a project's own lock, declared in settings. */
  receivers?: string[];
  /**
   * Exports that take the lock when called and resolve to its handle, with no authority object:
   * `const release = await lock(redis, key)`. `handleIndex`: the call resolves to a tuple and the
   * handle is that element (`const [acquired, release] = await tryLock(redis, key)`).
   */
  acquireFunctions?: { name: string; handleIndex?: number }[];
  /**
   * Exports that, called with a client, return the lock function: `const lock = require('redis-lock')(client)`,
   * also made promise-returning (`promisify(...)`). `lock(name, [ttl], fn)` runs fn under the lock;
   * without fn it resolves to the release function.
   */
  lockFunctionFactories?: string[];
  /** Exports used as method decorators that run the method under the lock: `@Redlock(['k'], 5000) async save() {...}`. */
  methodDecorators?: string[];
}

const DURABLE_COUNTER =
  'take one from a durable counter (`UPDATE fence_authority SET token = token + 1 ... RETURNING token`, or Redis INCR with persistence)';

const base: Omit<LockModel, 'id' | 'packages' | 'tokenAdvice'> = {
  authorityExports: [],
  acquire: [],
  acquireWithCallback: [],
  lockFactory: [],
  objectAcquire: [],
  objectAcquireWithCallback: [],
  authorityIsHandle: false,
  release: ['release', 'unlock'],
  authorityRelease: [],
  extend: ['extend'],
  validity: [],
  tokenProperties: [],
};

export const LOCK_MODELS: readonly LockModel[] = [
  {
    ...base,
    id: 'redlock',
    // `RedlockService` of @anchan828/nest-redlock is a Redlock injected by NestJS.
    packages: ['redlock', '@sesamecare-oss/redlock', 'node-redlock', '@anchan828/nest-redlock'],
    authorityExports: ['default', 'Redlock', 'RedlockService'],
    methodDecorators: ['Redlock'],
    acquire: ['acquire', 'lock'],
    acquireWithCallback: [{ method: 'using', callbackArg: -1 }],
    authorityRelease: ['release', 'unlock'],
    validity: ['expiration'],
    tokenAdvice: `redlock's lock value is random and carries no fence token: ${DURABLE_COUNTER}`,
  },
  {
    ...base,
    id: 'etcd3',
    packages: ['etcd3'],
    authorityExports: ['Etcd3'],
    // `client.lock(name)`, and `client.election(name).campaign(value)`: a campaign is won when it
    // emits `elected` (or its `wait()` resolves) and held until `resign()` or a lost lease.
    lockFactory: ['lock', 'election'],
    objectAcquire: ['acquire', 'wait'],
    objectAcquireWithCallback: [
      { method: 'do', callbackArg: 0 },
      { method: 'on', callbackArg: 1, event: 'elected' },
      { method: 'once', callbackArg: 1, event: 'elected' },
    ],
    release: ['release', 'unlock', 'resign'],
    validity: ['leaseId', 'isHeld'],
    tokenAdvice: `etcd3's Lock exposes only its lease id, not the lock key's revision: use the revision of a key you create in the same transaction, or ${DURABLE_COUNTER}`,
  },
  {
    ...base,
    id: 'redis-semaphore',
    packages: ['redis-semaphore'],
    authorityExports: ['Mutex', 'Semaphore', 'MultiSemaphore', 'RedlockMutex', 'RedlockSemaphore', 'RedlockMultiSemaphore'],
    objectAcquire: ['acquire', 'tryAcquire'],
    authorityIsHandle: true,
    validity: ['isAcquired', 'identifier'],
    tokenAdvice: `redis-semaphore's identifier is a random UUID, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    ...base,
    id: 'dynamodb-lock-client',
    packages: ['dynamodb-lock-client'],
    authorityExports: ['FailOpen', 'FailClosed'],
    acquire: ['acquireLock'],
    acquireWithCallback: [{ method: 'acquireLock', callbackArg: -1 }],
    validity: ['isExpired'],
    tokenAdvice: `the DynamoDB lock client's record version is a GUID, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    ...base,
    id: 'warlock',
    packages: ['node-redis-warlock', 'redis-warlock'],
    authorityExports: ['default'],
    acquireWithCallback: [{ method: 'lock', callbackArg: -1 }, { method: 'optimistic', callbackArg: -1 }],
    tokenAdvice: `its lock value carries no fence token: ${DURABLE_COUNTER}`,
  },
  {
    // `redlock.acquire(key, ttl)` (null when taken), `redlock.withLock(key, ttl, fn)`; NestJS wraps it as
    // `RedlockService` and the `@Redlock(keys, ttl)` method decorator of @nestjs-redis/lock.
    ...base,
    id: 'redis-kit-lock',
    packages: ['@redis-kit/lock', '@nestjs-redis/lock'],
    authorityExports: ['Redlock', 'RedlockService'],
    acquire: ['acquire'],
    acquireWithCallback: [{ method: 'withLock', callbackArg: -1 }],
    authorityRelease: ['release'],
    validity: ['isValid'],
    methodDecorators: ['Redlock'],
    tokenAdvice: `its lock token is random and orders nothing: ${DURABLE_COUNTER}`,
  },
  {
    // NestJS: an injected `RedisLockService` (`lock(name)` ... `unlock(name)`, SET NX PX with one
    // uuid per service instance), or `@RedisLock(name)` around a method.
    ...base,
    id: 'nestjs-simple-redis-lock',
    packages: ['@huangang/nestjs-simple-redis-lock', 'nestjs-simple-redis-lock'],
    authorityExports: ['RedisLockService'],
    acquire: ['lock'],
    authorityRelease: ['unlock'],
    extend: ['setTTL'],
    methodDecorators: ['RedisLock'],
    tokenAdvice: `its lock value is a random UUID, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    // `const release = await lock(redis, key)`; the release function carries `fencingToken`, an
    // INCR of one counter key the library keeps (v3), so a token is in scope for the write.
    ...base,
    id: 'simple-redis-mutex',
    packages: ['simple-redis-mutex'],
    acquireFunctions: [{ name: 'lock' }, { name: 'tryLock', handleIndex: 1 }],
    extend: ['refreshTimeout'],
    tokenProperties: ['fencingToken'],
    tokenAdvice: `pass the release function's \`fencingToken\` to the write and compare it there, or ${DURABLE_COUNTER}`,
  },
  {
    // `new Locker({ adapter }).lock(key, ttl).acquire()`; `acquire(cb)` runs cb, then releases.
    ...base,
    id: 'locco',
    packages: ['@kontsedal/locco'],
    authorityExports: ['Locker'],
    lockFactory: ['lock'],
    objectAcquire: ['acquire'],
    objectAcquireWithCallback: [{ method: 'acquire', callbackArg: 0 }],
    validity: ['isLocked'],
    tokenAdvice: `locco's lock value is a random string, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    // `const lock = new Lock({ id, redis, lease }); if (await lock.acquire()) { ... }`.
    ...base,
    id: 'upstash-lock',
    packages: ['@upstash/lock'],
    authorityExports: ['Lock'],
    objectAcquire: ['acquire'],
    authorityIsHandle: true,
    validity: ['getStatus'],
    tokenAdvice: `@upstash/lock's value is a random UUID, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    // `const lock = createLock(redis, { timeout }); await lock.acquire(key); ... await lock.release()`.
    // `acquire(key, fn)`'s fn is a node-style completion callback, not a section.
    ...base,
    id: 'ioredis-lock',
    packages: ['ioredis-lock', '@microfleet/ioredis-lock'],
    authorityExports: ['createLock'],
    objectAcquire: ['acquire'],
    authorityIsHandle: true,
    tokenAdvice: `ioredis-lock's value is a random id, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    // `const lock = require('redis-lock')(client)`; `lock(name, ttl, (done) => ...)`, or
    // `const done = await promisify(lock)(name)`: SET NX PX whose value is the expiry time.
    ...base,
    id: 'redis-lock',
    packages: ['redis-lock'],
    lockFunctionFactories: ['*', 'default'],
    tokenAdvice: `redis-lock's value is the lock's expiry time, a clock reading, not an ordered token: ${DURABLE_COUNTER}`,
  },
  {
    // `const lock = createLock({ adapter, key, ttl })`: `lock.using(async (signal) => ...)`, or
    // `const handle = await lock.acquire(); ... await lock.release(handle)`.
    ...base,
    id: 'redlock-universal',
    packages: ['redlock-universal'],
    authorityExports: ['createLock', 'createRedlock', 'LockManager'],
    acquire: ['acquire'],
    acquireWithCallback: [{ method: 'using', callbackArg: -1 }],
    authorityRelease: ['release'],
    validity: ['isLocked'],
    tokenAdvice: `redlock-universal's lock value is random and carries no fence token: ${DURABLE_COUNTER}`,
  },
];

/**
 * Redis clients, for `SET key id NX PX ttl` locks and Redis writes. Upstash's HTTP client and
 * Vercel KV (`kv`, an instance the package exports) speak the same commands, options object included.
 */
export const REDIS_CLIENT_PACKAGES = ['ioredis', 'redis', '@redis/client', 'iovalkey', '@valkey/client', '@upstash/redis', '@vercel/kv'];
export const REDIS_CLIENT_EXPORTS = ['default', 'Redis', 'Cluster', 'createClient', 'createCluster', 'RedisClient', 'kv'];
export const REDIS_SET_NX_ADVICE = `a Redis key set with NX carries no fence token: ${DURABLE_COUNTER}`;

/** An etcd key claimed in a create-if-absent transaction under a lease (see `locks/etcd-claims.ts`). */
export const ETCD_CLAIM_ADVICE = `the transaction's response carries the claim's revision (\`header.revision\`), which only grows: compare and store it, or ${DURABLE_COUNTER}`;

export const ADVISORY_LOCK_FUNCTIONS = ['pg_advisory_lock', 'pg_try_advisory_lock', 'pg_advisory_xact_lock', 'pg_try_advisory_xact_lock'];
export const ADVISORY_UNLOCK_FUNCTIONS = ['pg_advisory_unlock', 'pg_advisory_unlock_all'];
/** A lease kept as a row: `INSERT INTO locks ...` / `UPDATE job_leases SET owner = ...` takes it, `DELETE` ends it. */
export const LEASE_TABLE_WRITE = /^\s*(?:insert\s+into|update)\s+(?:"?\w+"?\.)?"?((?:\w+_)?(?:locks?|leases?|mutex(?:es)?))"?[\s(]/i;
/** The same for a table named in camel or Pascal case (`"CronLock"`, `jobLeases`); case-sensitive, so `blocks` is no lock table. */
const LEASE_TABLE_WRITE_CAMEL = /^\s*(?:INSERT\s+INTO|insert\s+into|Insert\s+Into|UPDATE|update|Update)\s+(?:"?\w+"?\.)?"?([A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)*(?:Lock|Lease|Mutex)(?:s|es)?)"?[\s(]/;
/** The lease table SQL text writes a row of, if any (see `LEASE_TABLE_WRITE`). */
export function leaseTableWritten(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return (LEASE_TABLE_WRITE.exec(text) ?? LEASE_TABLE_WRITE_CAMEL.exec(text))?.[1];
}
export const LEASE_TABLE_ADVICE = `a lease row identifies its holder but orders nothing: add a token column the acquire increments, or ${DURABLE_COUNTER}`;
export const ADVISORY_LOCK_ADVICE = `a PostgreSQL advisory lock carries no token and holds only for writes on its own connection (for \`pg_advisory_xact_lock\`, in its own transaction): make the write there, or ${DURABLE_COUNTER}`;

/** Shape of a user's own authority: acquire methods whose result carries a token. */
export const CUSTOM_AUTHORITY_ACQUIRE = /^(?:acquire|tryAcquire|acquireLease|acquireLock|tryAcquireLock|tryAcquireLease|lease|takeLease|obtainLease|grantLease|grant|obtain|claim|claimLease|lock|tryLock|lockResource|acquireFence)$/;
/**
 * Acquire methods whose own name says what they take (`acquireLock`, `tryAcquireLock`, `takeLease`):
 * as telling as a lock-named receiver when the receiver resolves to nothing (`service.tryAcquireLock(k, 10)`).
 */
export const LOCK_NAMED_ACQUIRE = /^(?:acquire|take|obtain|claim|grant|try(?:Acquire|Take|Obtain|Claim|Grant))(?:Lock|Lease)$/;
/** Receivers whose name says "lock service" when nothing better is known (last resort). */
export const LOCK_RECEIVER_NAME = /(?:lock|lease|mutex|semaphore|redlock|authority|coordinator|fenc)/i;
/** Callback-style acquire methods on a lock-named receiver (last resort). */
export const CUSTOM_CALLBACK_ACQUIRE = /^(?:using|withLock|withLease|runWithLock|runExclusive|runLocked|lockAndRun|doLocked|criticalSection)$/;
/**
 * Functions whose name alone says "run this callback under a lock": `withLock(key, fn)`,
 * `withDistributedLease(...)`, and the plural of a helper that takes several (`usingLocks(lists, fn)`).
 */
export const WITH_LOCK_FUNCTION = /^(?:with\w*(?:Locks?|Leases?|Mutex(?:es)?)|run\w*(?:WithLocks?|WithLeases?|Locked|UnderLocks?)|(?:do|run)?(?:Under|In|While)(?:Locks?|Leases?|Locked)|lockAndRun|usingLocks?|usingLeases?)$/;
/**
 * Framework functions that make a method decorator which only records options for the framework to
 * read back (NestJS `SetMetadata(KEY, options)`, alone or composed with `applyDecorators(...)`).
 * A project decorator of that shape named for a lock (`LOCK_DECORATOR_NAME`) stands for the lock an
 * interceptor or start-up hook takes around the method: see `locks/metadata-lock-decorators.ts`.
 */
export const METADATA_DECORATORS = { packages: ['@nestjs/common'], record: ['SetMetadata'], compose: ['applyDecorators'] };
/** Decorator names that say the method runs under a lock: `@DistributedLock(...)`, `@RedisLock('k')`, `@Locked()`; not `@SkipLock()`. */
export const LOCK_DECORATOR_NAME = /^(?!(?:Skip|No|Without|Ignore|Bypass|Release|Unlock|Clear|Disable|Free|Is|Has)[A-Z])(?:[A-Za-z]\w*[a-z0-9])?(?:Lock|Locked|Lease|Mutex|Redlock)$|^(?:Lock|Locked|Lease|Mutex|Redlock|lock|locked|redlock)$/;
/**
 * Key text that names a lock (`lockKey`, `lock:cart:${id}`, `LOCK_PREFIX`, `jobLease`), with a
 * word boundary so that `block`, `clock` and `release` do not count, and without the account
 * words `lockout` and `locked`.
 */
export const LOCK_KEY_NAME = /(?:(?:^|[^A-Za-z])(?:lock|LOCK)|[a-z0-9]Lock)(?![Oo]ut|OUT|ed|ED)|(?:^|[^A-Za-z])(?:lease|LEASE|mutex|MUTEX)|[a-z0-9](?:Lease|Mutex)/;
/**
 * Redis commands that work on lists, sets, hashes, sorted sets and streams (`*Async` and node-redis
 * camel case included). A lock is a string key taken with `SET NX`: a key these commands read or
 * write holds data, and deleting it frees no one's lock, whatever it is called.
 */
export const REDIS_DATA_COMMAND = /^(?:[lr]push|[lr]pushx|[lr]pop|lrange|lrem|lset|llen|lindex|ltrim|linsert|lmove|rpoplpush|sadd|srem|smembers|sismember|scard|spop|smove|hset|hget|hgetall|hmset|hmget|hdel|hincrby|hkeys|hvals|hlen|hexists|zadd|zrem|zrange|zrangebyscore|zrevrange|zscore|zincrby|zcard|zremrangebyscore|zremrangebyrank|xadd|xrange|xread|xlen|xtrim)(?:Async)?$/i;
/**
 * Members of an acquire's result that say the lock was taken (`if (claim.claimed) return ...`):
 * the branch they open is the one holding the lock; the code after a branch that leaves runs
 * only when the lock was not taken.
 */
export const ACQUIRED_RESULT_MEMBER = /^(?:claimed|acquired|obtained|granted|won|ok|success|succeeded|isLeader|gotLock|hasLock|isAcquired|lockAcquired)$/;
/** Handle members that report whether a lease is still held, in any library: a check, not a fence. */
export const GENERIC_VALIDITY_MEMBER = /^(?:isValid|isAcquired|isHeld|isLocked|isOwned|isOwner|isExpired|isAlive|isActive|stillHeld|stillValid|hasLock|holdsLock|isLeaseValid|checkLease|checkLock|verifyLock|verifyLease|isLockHeld)$/;
/** Handle members that hold the lease's expiry time, compared with a clock by a validity check. */
export const EXPIRY_MEMBER = /^(?:expiration|expiresAt|expires|expiry|expireAt|expiresAtMs|validUntil|leaseExpiresAt|leaseUntil|lockedUntil|deadline|expirationTime|expiryTime)$/;
/** Members that report a lease's remaining time: `lease.ttl()`, `lock.remainingTime()`. */
export const REMAINING_TIME_MEMBER = /^(?:ttl|pttl|remaining|remainingTime|remainingTtl|timeLeft|timeRemaining|remainingMs)$/;
/** Methods that extend a lease in any library (`lock.extend(ttl)`, `lease.renew()`). */
export const GENERIC_EXTEND_METHOD = /^(?:extend|renew|refresh|keepAlive|heartbeat|extendLease|renewLease|extendLock|renewLock|touch)$/;
/**
 * The abort signal a callback acquire hands its callback (redlock `using(keys, ttl, async (signal) => ...)`):
 * `signal.aborted` reports that the lock was lost, a check like any other; `throwIfAborted()` asserts it.
 */
export const ABORT_SIGNAL_MEMBER = /^aborted$/;
export const ABORT_SIGNAL_ASSERT = /^throwIfAborted$/;
/**
 * A helper that asks whether the lock is still ours: `isLockHeld(key, token)`, `stillOwnsLease()`,
 * `verifyLockOwnership(...)`. Both parts are needed: a lock word and a validity word.
 */
export const VALIDITY_HELPER_LOCK_WORD = /Lock|Lease|Mutex|^(?:lock|lease|mutex)/;
export const VALIDITY_HELPER_CHECK_WORD = /Held|Valid|Own|Alive|Active|Holder|Holds|Still|Expired|Lost/;
/** Helpers of that kind that throw instead of returning: `await assertLockHeld(key)`. */
export const VALIDITY_HELPER_ASSERT = /^(?:assert|ensure|verify|require|check)/;
/** Method names that release a lock on a handle or an authority of any library. */
export const GENERIC_RELEASE_METHOD = /^(?:release|unlock|releaseLock|releaseLease|free|revoke|end)$/;
/**
 * Types whose `end()`, `close()` or `destroy()` closes a connection, a response or a stream, never
 * a lease: the packages they are imported from, and the global types of Node and the web platform.
 * A parameter of such a type is no lock handle, whatever its methods are called.
 */
export const IO_OBJECT_PACKAGES = new Set([
  'express', 'http', 'node:http', 'https', 'node:https', 'http2', 'node:http2', 'net', 'node:net', 'tls', 'node:tls',
  'stream', 'node:stream', 'stream/web', 'node:stream/web', 'fs', 'node:fs', 'fastify', 'koa', 'hono', 'ws', 'next/server', 'undici',
]);
export const IO_OBJECT_GLOBALS = new Set(['Response', 'Request', 'WritableStream', 'ReadableStream', 'WebSocket', 'NodeJS']);
export const CUSTOM_ADVICE = `return a fence token from the authority's acquire: ${DURABLE_COUNTER}`;
/** For a function handed a lease that carries no token: where its callers can get one. */
export const RECEIVED_LEASE_ADVICE = `Have the caller pass the fence token its acquire returns, or ${DURABLE_COUNTER}`;

/** In-process locks: they never expire under a running worker, so no late write exists. */
export const LOCAL_LOCK_PACKAGES = ['async-mutex', 'async-lock', 'await-lock', 'await-semaphore', 'p-limit', 'p-queue', 'semaphore-async-await', 'async-sema'];
