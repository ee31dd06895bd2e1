
import type { ReceiverKind } from './receivers.js';

/**
 * Function summaries as data: what calling a function of the project does, in the terms
 * the analysis uses for library models (the callback argument of a callback acquire, the
 * properties of a handle that carry a token, the advice for users without a token), so a
 * lock helper from `src/utils/lock.ts` and one from `redlock` read the same way.
 *
 * Arguments are named by position. A summary holds no AST: it outlives the parse of the
 * module it describes and is cached by that module's path and content hash.
 */

/** A place in a project file. Lines are 1-based, columns 0-based (ESLint's `loc`). */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface AcquireSummary {
  /**
   * `callback`: the lock is held while the callback argument runs (`withLock(key, fn)`);
   * `handle`: the call returns with the lock held, until a release (`acquireLock(key)`).
   */
  style: 'callback' | 'handle';
  /** Index of the callback argument (-1 is the last), as in a lock model's `CallbackMethod`. */
  callbackArg?: number;
  /**
   * The callback is this property of the argument at `callbackArg` (an options object):
   * `super({ name, onFlush: () => this.flush() })` where the base class runs `onFlush` under its lock.
   */
  callbackProperty?: string;
  /** The argument that names the lock, when one does: a release by name must name the same. */
  keyArg?: number;
  /** The property of that argument, an options object, that names the lock (`lockKey` in `acquireLock({ lockKey, ttlMs })`). */
  keyProperty?: string;
  /** Every argument the key is built from, when there are several (`claim(env, id, part)` over `buildKey(env, id, part)`). */
  keyArgs?: number[];
  /** The lock key is the argument at `keyArg` itself, not a key built from it (`SET key owner NX` of a `key` parameter). */
  keyExact?: boolean;
  /** Properties of the returned handle that carry a fence token. */
  tokenProperties: string[];
  /** The lock taken inside: a model id (`redlock`, `redis-set-nx`, `pg-advisory-lock`, `custom`, ...). */
  library: string;
  /** How messages name the lock taken inside, as Markdown: `` `redis.set(… NX)` ``. */
  label: string;
  /** Where a real fence token can come from, from the model of the lock inside. */
  advice: string;
  /** The acquire itself, in its module. */
  at: SourceLocation;
  /** Calls from the summarised function down to the acquire (for code flows), outermost first. */
  flow: SourceLocation[];
  /**
   * A PostgreSQL advisory lock held by one connection or transaction: the argument that is that
   * connection (`lockChat(trx, id)`), or the callback parameter that receives it
   * (`withAdvisoryLock(pool, key, async (client) => ...)`). Writes on it cannot outlive the lock.
   */
  session?: { arg?: number; callbackParam?: number; scope: 'transaction' | 'session' };
  /**
   * The function returns the advisory lock statement itself, unrun (a Prisma `$queryRaw` query is
   * sent only when awaited or handed to a batch): the lock is taken where the caller runs it, and
   * an xact lock run as an element of a batch transaction holds for the elements after it.
   */
  returnsStatement?: 'transaction' | 'session';
  /**
   * A store primitive (`setIfAbsent(key, value)` over `SET NX`): the argument that is the value
   * written, as passed or only converted to text (`JSON.stringify(value)`, the class's own
   * `serialize(value)`). A caller that writes a constant there marks something once; it takes no lease.
   */
  valueArg?: number;
  /**
   * The function hands the `SET NX`'s reply back (`return result === 'OK'`), or a
   * `pg_try_advisory_lock`'s answer (`return rows[0]?.locked === true`), and does not throw on
   * it: the caller's test of the reply decides whether anything runs, so a caller that drops the
   * reply (`await acquire(k, v, ttl);` as a statement) takes no lock.
   */
  returnsReply?: boolean;
  /**
   * A method decorator factory (`@DistributedLock('k')`): the decorator it returns replaces the
   * method with one that runs the original under the lock, so the decorated method is the section.
   */
  decorates?: boolean;
  /**
   * The function takes no lock itself but returns a function that does (`withLock(name)` returning
   * `(work) => redlock.using([name], ttl, () => work())`): `callbackArg` is an argument of the call
   * made on what it returns, so `withLock(name)(async () => ...)` runs that callback under the lock.
   */
  curried?: boolean;
}

export interface ReleaseSummary {
  /** `handle`: the argument is the handle an acquire returned; `name`: it is the lock's key. */
  by: 'handle' | 'name';
  arg: number;
  /** By name: the property of the argument, an options object, that names the lock (`clearLock({ lockKey })`). */
  keyProperty?: string;
  /** A plain `DEL`/`UNLINK` of the key (no script, no `WATCH`): it frees whoever holds the key now. */
  plain?: boolean;
  /** By name: every argument the key is built from, when there are several (as `AcquireSummary.keyArgs`). */
  keyArgs?: number[];
}

export interface WriteSummary {
  /** 'sql', 'knex', 'object', 'api' (the sink family of the write inside). */
  sink: string;
  /** A Redis command: a key-value store, the place a read-through cache keeps what it read. */
  keyValue?: boolean;
  /** How messages name the write, as Markdown: `` `UPDATE accounts` ``, `` `prisma.account.update` ``. */
  label: string;
  at: SourceLocation;
  /** The write compares and stores a fence token as written (on the arguments in `conditionArgs`, if any). */
  fenced: boolean;
  /**
   * Arguments that reach the write's condition as its token. Not fenced as written: fenced when
   * the caller passes a token there. Fenced: unfenced when the caller passes a clock, random or
   * constant value there.
   */
  conditionArgs: number[];
  /** The write is reported in its own module already (a token or lease passed in and not used). */
  reportedThere: boolean;
  /**
   * Arguments that pick the record written (`findByIdAndUpdate(id, ...)`, `where: { id }`): a caller
   * passing the id of a record it has just inserted writes its own row, which no other holder knows.
   */
  keyArgs?: number[];
  /** Redis writes: the argument that is the key written itself (`set(key, value)` of a `key` parameter), not a key built from it. */
  keyParam?: number;
  /** SQL writes: the table written and the parameter that is the connection it runs on, when one is. */
  table?: string;
  connectionArg?: number;
  /**
   * Arguments that reach what the write stores (Redis only for now; none for a removal). Empty:
   * the function decides the content itself, from its own reads. Undefined: not known.
   */
  valueArgs?: number[];
  /**
   * The argument a Redis string SET stores as the key's whole value (`setFlag(key, value, ttl)`): a
   * caller that passes a constant there sets a flag, which stores nothing older when it lands late.
   */
  flagArg?: number;
  /**
   * A function on the way decides what is written and also runs, in its own module, on a path
   * that holds no lock: the project does not rely on a lock for this write.
   */
  unguarded?: boolean;
  /**
   * Parameters the path to the write tests for truthiness (`if (patch)`, `patch && ...`, `if (!patch)
   * return` before it): a call that leaves one of them out (or passes `undefined`) makes no such write.
   */
  onlyWithArgs?: number[];
  /** Plain parameters the write's path tests truthy and falsy (`if (enabled) ... else write`): a literal argument may rule it out. */
  onlyWhenTruthy?: number[];
  onlyWhenFalsy?: number[];
  /** Calls from the summarised function down to the write, outermost first, then the write. */
  flow: SourceLocation[];
  /**
   * `this.save()` of a class extending a project class: a write of the instance's record, made
   * only when the instance is one a model read returned. A caller counts it on such a record.
   */
  ofRecord?: boolean;
  /**
   * The write saves the record handed in at this argument (`repo.save(order)` of a parameter typed
   * as an entity): a caller that passes a record it has just built inserts a new row, no late write.
   */
  recordArg?: number;
}

export interface FunctionSummary {
  /** `withLock`, `LockService.run`, `AccountRepository.save`. */
  name: string;
  at: SourceLocation;
  params: string[];
  acquire?: AcquireSummary;
  releases: ReleaseSummary[];
  writes: WriteSummary[];
  /**
   * The function returns a fence token: the value itself (`properties` empty) or an object
   * whose `properties` carry one.
   */
  returnsToken?: { properties: string[] };
  /** The function returns the record (or id) an insert it made has just created (`return new Model(data).save()`). */
  returnsInserted?: boolean;
  /** The function returns a client or lock authority (`getRedisCache()` handing out a module's ioredis client). */
  returnsReceiver?: ReceiverKind;
  /**
   * The function hands out an instance of a project class (`getStore()` returning `new Store()`, a
   * memoised `once(() => new Store())`): its methods are what `getStore().save(...)` calls.
   */
  returnsInstance?: ExportSummary;
  /**
   * The function checks an abort signal it is handed (`if (signal.aborted) throw signal.error`,
   * also over a list of signals): the parameter `arg` is the signal or the list, and `throws` says
   * whether it throws when the lease is lost or only returns whether it was. Called with a section's
   * signal, it asks whether the lease still holds: a check, not a fence.
   */
  checksLease?: { arg: number; throws: boolean };
  /** The function returns a condition that compares the token argument `tokenArg` (a fence built by a helper). */
  conditionFragment?: { tokenArg: number; column?: string };
  /** The function returns SQL text (built here, run elsewhere). */
  returnsSql?: string;
  /**
   * The function runs its parameter `text` as a SQL statement on a SQL client, with `values` (a
   * parameter, when there is one) as its bound values: a query wrapper (`run(kind, sql, params)`
   * over `pool.query({ text: sql, values: params })`). A caller's literal there is its statement.
   */
  runsSqlParam?: { text: number; values?: number };
  /**
   * Tables the function reads rows of `FOR UPDATE` (`SKIP LOCKED` or not) on the connection or
   * transaction its parameter `connectionArg` is, returning them: the caller's transaction holds
   * those rows locked until it ends (a claim of a batch of jobs or events).
   */
  claimsRows?: Array<{ table: string; connectionArg: number }>;
  /**
   * The function reads rows through the ORM taking them for writing (`setLock('pessimistic_write')`,
   * a `lock: { mode }` find option), itself or through a function it calls: inside a transaction
   * the caller's decorator manages, those rows stay locked until the transaction ends.
   */
  locksRows?: boolean;
  /**
   * The function calls its function argument `arg` with the object it is a method of as that
   * callback's parameter `param` (`runInTransaction(id, fn)` running `fn(this, tx)`): a unit of
   * work that hands the callback the same store, bound to a transaction.
   */
  selfToCallback?: { arg: number; param: number };
  /** Computed on partial knowledge (recursion, a budget): callers fall back to what names say. */
  partial: boolean;
}

export type ExportSummary =
  | { kind: 'function'; fn: FunctionSummary }
  /** A class: `statics` are called on the class, `methods` on its instances. */
  | {
      kind: 'class';
      name: string;
      statics: Map<string, FunctionSummary>;
      methods: Map<string, FunctionSummary>;
      /**
       * The constructor, when a method of the class runs a function handed to it under a lock
       * (a base class's template: `super({ onFlush })`, `new Runner(async () => ...)`).
       */
      construct?: FunctionSummary;
      /** Instance fields holding an in-process lock (`triggersLock = new Mutex()` of async-mutex): no lease, nothing lapses. */
      inProcessLocks?: string[];
      /** Static members that hold a client or lock authority (`static get defaultClient(): RedisAdapter`, `static redlock = new Redlock()`). */
      staticReceivers?: Map<string, ReceiverKind>;
      /**
       * Instance fields that hold a client or lock authority (`redis!: Redis`, `constructor(private db: Knex)`),
       * so a caller holding an instance can read `conn.redis.lpop(...)` as a Redis command.
       */
      fieldReceivers?: Map<string, ReceiverKind>;
      /** The interfaces it names in `implements`, so a value typed as one can be read as this class. */
      implements?: string[];
      /**
       * Public instance fields that hold an instance of a project class (`this.users = new UserStore()`
       * in the constructor, `users = new UserStore()`), as that instance: `svc.users.purge()` is read
       * as `UserStore`'s method.
       */
      fieldInstances?: Map<string, ExportSummary>;
    }
  /** An object: an exported instance or object literal; `values` are its other members (nested objects, clients). */
  | {
      kind: 'object';
      members: Map<string, FunctionSummary>;
      values?: Map<string, ExportSummary>;
      /** An interface: the name its implementing classes give in `implements`. */
      interfaceName?: string;
      /** An interface: its methods, so a class that declares them all can be read as one (structural typing). */
      methodNames?: string[];
    }
  /** An export that is another module's export (`export { x } from './y'`, or an imported name exported again). */
  | { kind: 'reexport'; file: string; name: string }
  /** Anything else: known to exist; `receiver` when it is a client or lock authority (`export const redis = new Redis()`). */
  | {
      kind: 'value';
      receiver?: ReceiverKind;
      /**
       * A request-context framework's builder (`models/request-contexts.ts`: a tRPC instance, a
       * procedure built from it): the object the project's context factory returns, as the
       * `ctx` its handlers are given.
       */
      requestContext?: ExportSummary;
    };

export interface ModuleSummary {
  file: string;
  /** Content hash of the text the summary was computed from. */
  hash: string;
  exports: Map<string, ExportSummary>;
  /** Modules whose exports this one exports as its own (`export * from './y'`), resolved. */
  starExports: string[];
  /** Why the module has no summary: too large, unreadable, does not parse, or self-contained (imports nothing, no lock, token, clock or write word). */
  skipped?: 'too-large' | 'unreadable' | 'unparseable' | 'budget' | 'self-contained';
}

/** Whether a function summary says anything a caller must act on. */
export function summaryMatters(summary: FunctionSummary): boolean {
  return summary.acquire !== undefined || summary.releases.length > 0 || summary.writes.length > 0 || summary.returnsToken !== undefined || summary.conditionFragment !== undefined || summary.returnsSql !== undefined || summary.runsSqlParam !== undefined || summary.checksLease !== undefined || summary.selfToCallback !== undefined;
}

/**
 * The classes that implement one interface, read as one instance: per method, the
 * implementation that writes the most (a routing class that delegates and the store that
 * writes both implement it; a caller through the interface may reach either).
 */
export function mergeImplementations(classes: readonly ExportSummary[]): ExportSummary | undefined {
  const members = new Map<string, FunctionSummary>();
  let any = false;
  for (const cls of classes) {
    if (cls.kind !== 'class') continue;
    any = true;
    for (const [name, fn] of cls.methods) {
      const known = members.get(name);
      if (!known || fn.writes.length > known.writes.length || (fn.acquire && !known.acquire) || (fn.selfToCallback && !known.selfToCallback && fn.writes.length === known.writes.length)) members.set(name, fn);
    }
  }
  return any ? { kind: 'object', members } : undefined;
}
