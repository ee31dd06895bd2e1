/**
 * `settings.fencelint` from the user's ESLint config: extra lock models and the token
 * column. The value is checked against `SETTINGS_SCHEMA` once per settings object; what is
 * wrong is reported once per process (never a crash) and the invalid parts are ignored.
 */
import { LOCK_MODELS, type CallbackMethod, type LockModel } from './models/locks.js';
import { validateSettings } from './settings-schema.js';

export interface FencelintSettings {
  /** Column that stores the accepted token, e.g. `fence_token`. */
  tokenColumn?: string;
  /** Additional lock models: a user's own authority or an unlisted library. */
  locks?: Array<Partial<LockModel> & { id: string }>;
  /** `false` analyses each file on its own, without following imports into the project's modules. */
  project?: boolean;
}

const DEFAULT_TOKEN_COLUMN = 'fence_token';

/** Receives the problems found in one `settings.fencelint` value, as one message. */
export type SettingsProblemHandler = (message: string, problems: readonly string[]) => void;

// Kept on globalThis so two copies of the plugin in one process (a CLI and a config that
// imports the plugin again) report a problem once between them.
const REPORTED = Symbol.for('fencelint.settings.reported');
const HANDLER = Symbol.for('fencelint.settings.handler');
type Shared = { [REPORTED]?: Set<string>; [HANDLER]?: SettingsProblemHandler };
const shared = globalThis as Shared;

const warnOnStderr: SettingsProblemHandler = (message) => {
  process.emitWarning(message, { type: 'FencelintSettingsWarning', code: 'FENCELINT_SETTINGS' });
};

/**
 * Sends settings problems somewhere else than Node's warning on stderr: the language server
 * shows them in the editor, the `fencelint` command prints them with its report.
 */
export function onSettingsProblems(handler: SettingsProblemHandler | undefined): void {
  shared[HANDLER] = handler;
}

const checked = new WeakSet<object>();

/** The user's `settings.fencelint`, checked the first time this object is seen. */
function ownSettings(settings: unknown): FencelintSettings | undefined {
  const own = (settings as { fencelint?: unknown } | undefined | null)?.fencelint;
  if (own === undefined) return undefined;
  if (typeof own !== 'object' || own === null || Array.isArray(own)) {
    report(['settings.fencelint must be an object']);
    return undefined;
  }
  if (!checked.has(own)) {
    checked.add(own);
    report(validateSettings(own));
  }
  return own as FencelintSettings;
}

function report(problems: readonly string[]): void {
  if (problems.length === 0) return;
  const message = `fencelint: ignored part of settings.fencelint: ${problems.join('; ')}. See the settings page of eslint-plugin-fencelint's docs.`;
  const reported = (shared[REPORTED] ??= new Set());
  if (reported.has(message)) return;
  reported.add(message);
  (shared[HANDLER] ?? warnOnStderr)(message, problems);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function callbackMethods(value: unknown): CallbackMethod[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((c): c is Partial<CallbackMethod> => !!c && typeof c === 'object' && typeof c.method === 'string')
    .map((c) => ({ method: c.method as string, callbackArg: Number.isInteger(c.callbackArg) ? (c.callbackArg as number) : -1 }));
}

const modelCache = new WeakMap<object, readonly LockModel[]>();

/** Built-in models plus the user's, merged once per settings object. */
export function lockModels(settings: unknown): readonly LockModel[] {
  const own = ownSettings(settings);
  if (!own || !Array.isArray(own.locks)) return LOCK_MODELS;
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
      acquireWithCallback: callbackMethods(entry.acquireWithCallback),
      lockFactory: stringList(entry.lockFactory),
      objectAcquire: stringList(entry.objectAcquire),
      objectAcquireWithCallback: callbackMethods(entry.objectAcquireWithCallback),
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
  const own = ownSettings(settings);
  return typeof own?.tokenColumn === 'string' && own.tokenColumn.length > 0 ? own.tokenColumn : DEFAULT_TOKEN_COLUMN;
}

/** Whether imports are followed into the project's modules (on unless `project: false`). */
export function projectSetting(settings: unknown): boolean {
  const own = ownSettings(settings);
  return own?.project !== false;
}

const keyCache = new WeakMap<object, string>();

/** What summaries depend on in the settings (lock models, token column), as a cache key. */
export function settingsKey(settings: unknown): string {
  const own = ownSettings(settings);
  if (!own) return '';
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
