/**
 * `settings.fencelint` from the user's ESLint config: extra lock models and the token
 * column. Invalid entries are ignored (never a crash), so a typo costs a finding, not a run.
 */
import { LOCK_MODELS, type LockModel } from './models/locks.js';

export interface FencelintSettings {
  /** Column that stores the accepted token, e.g. `fence_token`. */
  tokenColumn?: string;
  /** Additional lock models: a user's own authority or an unlisted library. */
  locks?: Array<Partial<LockModel> & { id: string }>;
  /** `false` analyses each file on its own, without following imports into the project's modules. */
  project?: boolean;
}

const DEFAULT_TOKEN_COLUMN = 'fence_token';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const modelCache = new WeakMap<object, readonly LockModel[]>();

/** Built-in models plus the user's, merged once per settings object. */
export function lockModels(settings: unknown): readonly LockModel[] {
  const own = (settings as { fencelint?: FencelintSettings } | undefined)?.fencelint;
  if (!own || typeof own !== 'object' || !Array.isArray(own.locks)) return LOCK_MODELS;
  const cached = modelCache.get(own);
  if (cached) return cached;
  const extra: LockModel[] = [];
  for (const entry of own.locks) {
    if (!entry || typeof entry !== 'object' || typeof entry.id !== 'string') continue;
    extra.push({
      id: entry.id,
      packages: stringList(entry.packages),
      authorityExports: stringList(entry.authorityExports ?? ['default']),
      acquire: stringList(entry.acquire),
      acquireWithCallback: Array.isArray(entry.acquireWithCallback) ? entry.acquireWithCallback.filter((c) => c && typeof c.method === 'string') : [],
      lockFactory: stringList(entry.lockFactory),
      objectAcquire: stringList(entry.objectAcquire),
      objectAcquireWithCallback: Array.isArray(entry.objectAcquireWithCallback) ? entry.objectAcquireWithCallback.filter((c) => c && typeof c.method === 'string') : [],
      authorityIsHandle: entry.authorityIsHandle === true,
      release: stringList(entry.release ?? ['release']),
      authorityRelease: stringList(entry.authorityRelease),
      extend: stringList(entry.extend),
      validity: stringList(entry.validity),
      tokenProperties: stringList(entry.tokenProperties),
      tokenAdvice: typeof entry.tokenAdvice === 'string' ? entry.tokenAdvice : 'pass the token the authority issues into the write',
    });
  }
  const merged = [...extra, ...LOCK_MODELS];
  modelCache.set(own, merged);
  return merged;
}

export function tokenColumnSetting(settings: unknown): string {
  const own = (settings as { fencelint?: FencelintSettings } | undefined)?.fencelint;
  return typeof own?.tokenColumn === 'string' && own.tokenColumn.length > 0 ? own.tokenColumn : DEFAULT_TOKEN_COLUMN;
}

/** Whether imports are followed into the project's modules (on unless `project: false`). */
export function projectSetting(settings: unknown): boolean {
  const own = (settings as { fencelint?: FencelintSettings } | undefined)?.fencelint;
  return own?.project !== false;
}

const keyCache = new WeakMap<object, string>();

/** What summaries depend on in the settings (lock models, token column), as a cache key. */
export function settingsKey(settings: unknown): string {
  const own = (settings as { fencelint?: FencelintSettings } | undefined)?.fencelint;
  if (!own || typeof own !== 'object') return '';
  const cached = keyCache.get(own);
  if (cached !== undefined) return cached;
  let key: string;
  try {
    key = JSON.stringify({ locks: own.locks, tokenColumn: own.tokenColumn }) ?? '';
  } catch {
    key = String(Math.random());
  }
  keyCache.set(own, key);
  return key;
}
