/**
 * The catalog one configuration sees: the built-in lock, sink and token-source models, with
 * the user's own entries (from `settings.fencelint`) in front. Every reader of library
 * knowledge asks a catalog rather than the built-in lists, so a project's own SQL wrapper,
 * repository, token issuer or lock is recognised exactly like a library's.
 *
 * A catalog is plain data built once per distinct configuration (`settings.ts` keys it by a
 * hash of the user's entries); nothing here keeps state across files.
 */
import { LOCK_MODELS, type LockModel } from './locks.js';
import { SINK_MODELS, type SinkModel } from './sinks.js';
import { TOKEN_SOURCE_MODELS, type TokenSourceModel } from './token-sources.js';

export interface Catalog {
  /** Content hash of the user's entries; `''` for the built-in catalog alone. */
  readonly key: string;
  readonly locks: readonly LockModel[];
  readonly sinks: readonly SinkModel[];
  readonly tokenSources: readonly TokenSourceModel[];
  /** The user's own sink entries, which the generic readers interpret. */
  readonly ownSinks: readonly SinkModel[];
  /** Every SQL method and tag: a call by one of these names may send SQL text. */
  readonly sqlMethodNames: ReadonlySet<string>;
  /** Every write method of every sink model: a call by any other name writes through no object API. */
  readonly writeMethodNames: ReadonlySet<string>;
  readonly sqlTagNames: ReadonlySet<string>;
  /** Receiver paths declared for a lock or sink model (`db`, `this.api`): what they always are. */
  readonly declaredReceivers: ReadonlyMap<string, { lock?: LockModel; sink?: SinkModel }>;
  /**
   * Words of the user's own locks (receivers, acquire methods): a file that has one may hold
   * such a lock even without a lock-ish word, so it is not skipped.
   */
  readonly ownLockHint?: RegExp;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function lockHint(locks: readonly LockModel[]): RegExp | undefined {
  const words = new Set<string>();
  for (const lock of locks) {
    for (const path of lock.receivers ?? []) words.add(path.split('.').pop()!);
    for (const name of [...lock.acquire, ...lock.lockFactory, ...lock.objectAcquire]) words.add(name);
    for (const cb of [...lock.acquireWithCallback, ...lock.objectAcquireWithCallback]) words.add(cb.method);
  }
  const list = [...words].filter((w) => w.length > 0);
  return list.length > 0 ? new RegExp(`(?<![\\w$])(?:${list.map(escapeRegExp).join('|')})(?![\\w$])`) : undefined;
}

function build(key: string, ownLocks: readonly LockModel[], ownSinks: readonly SinkModel[], ownTokenSources: readonly TokenSourceModel[]): Catalog {
  const sinks = [...ownSinks, ...SINK_MODELS];
  const declaredReceivers = new Map<string, { lock?: LockModel; sink?: SinkModel }>();
  // First declaration wins: a user's list is read in order.
  for (const lock of ownLocks) for (const path of lock.receivers ?? []) if (!declaredReceivers.has(path)) declaredReceivers.set(path, { lock });
  for (const sink of ownSinks) for (const path of sink.receivers ?? []) if (!declaredReceivers.has(path)) declaredReceivers.set(path, { sink });
  return {
    key,
    locks: [...ownLocks, ...LOCK_MODELS],
    sinks,
    tokenSources: [...ownTokenSources, ...TOKEN_SOURCE_MODELS],
    ownSinks,
    sqlMethodNames: new Set(sinks.flatMap((m) => m.sqlMethods ?? [])),
    writeMethodNames: new Set(sinks.flatMap((m) => m.writes.map((w) => w.method))),
    sqlTagNames: new Set(sinks.flatMap((m) => (m.sqlTags ?? []).filter((t) => !t.includes('.')))),
    declaredReceivers,
    ownLockHint: lockHint(ownLocks),
  };
}

export const BUILTIN_CATALOG: Catalog = build('', [], [], []);

/** The built-in catalog with the user's entries in front of each list. */
export function extendCatalog(key: string, own: { locks: readonly LockModel[]; sinks: readonly SinkModel[]; tokenSources: readonly TokenSourceModel[] }): Catalog {
  if (own.locks.length + own.sinks.length + own.tokenSources.length === 0) return BUILTIN_CATALOG;
  return build(key, own.locks, own.sinks, own.tokenSources);
}

/** The user's SQL model that sends SQL through `name` (a method or a tag), if any. */
export function ownSqlModel(catalog: Catalog, name: string): SinkModel | undefined {
  return catalog.ownSinks.find((m) => m.family === 'sql' && ((m.sqlMethods ?? []).includes(name) || (m.sqlTags ?? []).includes(name)));
}
