/**
 * Where a real fence token comes from: durable counters and ordered revisions that the
 * libraries users hold hand out. A value read from one of these is a token whatever the
 * variable that holds it is called. SQL counters (`UPDATE t SET n = n + 1 ... RETURNING n`,
 * `nextval(...)`) are read from the statement itself (`counterOutputs` in sinks/sql-writes.ts).
 */

/**
 * A function or method whose result is a fence token: a durable counter a project reads
 * through its own helper (`leases.next()`, `nextFence(key)`), or a library call the analysis
 * cannot look into. Users add entries through `settings.fencelint.tokenSources`.
 */
export interface TokenSourceModel {
  id: string;
  /** Calls as written: a function (`nextFence`) or a receiver path and method (`leases.next`, `this.fence.issue`). */
  calls: readonly string[];
  /** When not empty, the call's first name must be imported from one of these (`@acme/fence`). */
  packages: readonly string[];
  /** Properties of the result that hold the token (`{ token } = await leases.next()`); empty: the result itself. */
  tokenProperties: readonly string[];
}

/**
 * Token sources known by their call: none built in yet, because the libraries users hold hand
 * out tokens through the shapes below (counters, revisions), which the tracer reads from the code.
 */
export const TOKEN_SOURCE_MODELS: readonly TokenSourceModel[] = [];

/**
 * Redis commands whose reply is the counter's new value (ioredis and node-redis spell them
 * `incr`, `incrBy`/`incrby`, `hIncrBy`/`hincrby`, or upper case); compared lower-cased.
 */
export const REDIS_COUNTER_COMMANDS: ReadonlySet<string> = new Set(['incr', 'incrby', 'hincrby']);

/** Generic command senders: `redis.call('INCR', key)`, `client.sendCommand(['INCR', key])`. */
export const REDIS_COMMAND_SENDERS: ReadonlySet<string> = new Set(['call', 'sendCommand', 'send_command']);

/** A Redis transaction's reply array: `redis.multi().incr(k).exec()`. */
export const REDIS_TRANSACTION_EXEC = 'exec';
export const REDIS_TRANSACTION_START: ReadonlySet<string> = new Set(['multi', 'pipeline']);

/**
 * Member paths that end in an ordered revision, read off a coordination service's response:
 * etcd's response header revision (`res.header.revision`), a key's `mod_revision` /
 * `create_revision` (etcd3 gives them snake-cased; other clients camel-case them), and a
 * ZooKeeper `Stat`'s zxids and child version. Each is the last members of the path.
 */
export const ORDERED_REVISION_PATHS: readonly (readonly string[])[] = [
  ['header', 'revision'],
  ['mod_revision'],
  ['create_revision'],
  ['modRevision'],
  ['createRevision'],
  ['czxid'],
  ['mzxid'],
  ['pzxid'],
  ['cversion'],
];

/** Names that say "this function hands out a fence token", for calls we cannot follow (last resort). */
export const TOKEN_ISSUER_NAME = /(?:Fence|Fencing)Token$|^(?:next|issue|new|get)(?:Fence|Fencing)?(?:Token|Generation|Epoch)$/i;
export const TOKEN_ISSUER_WORD = /fenc|generation|epoch/i;
