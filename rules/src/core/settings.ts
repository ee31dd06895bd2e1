/**
 * `settings.fencelint` from the user's ESLint config: extra lock, sink and token-source
 * models (merged into one catalog per configuration) and the token column. The value is checked against `SETTINGS_SCHEMA` once per settings object; what is
 * wrong is reported once per process (never a crash) and the invalid parts are ignored.
 */
import { createHash } from 'node:crypto';
import { BUILTIN_CATALOG, extendCatalog, type Catalog } from './models/catalog.js';
import type { CallbackMethod, LockModel } from './models/locks.js';
import type { FenceTemplate, Place, ResultShape, SinkModel, SinkWrite } from './models/sinks.js';
import type { TokenSourceModel } from './models/token-sources.js';
import { checkSettings, validateSettings, type ModelList } from './settings-schema.js';

export interface FencelintSettings {
  /** Column that stores the accepted token, e.g. `fence_token`. */
  tokenColumn?: string;
  /** Additional lock models: a user's own authority or an unlisted library. */
  locks?: Array<Partial<LockModel> & { id: string }>;
  /** Additional write sinks: a project's own SQL wrapper, tagged template, repository or API client. */
  sinks?: Array<Record<string, unknown> & { id: string; family: 'sql' | 'object' }>;
  /** Additional token sources: a project's own function that returns a fence token. */
  tokenSources?: Array<Partial<TokenSourceModel> & { id: string }>;
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

type Entry = Record<string, unknown>;

function lockModelOf(entry: Entry): LockModel {
  return {
    id: entry.id as string,
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
    receivers: stringList(entry.receivers),
    acquireFunctions: acquireFunctions(entry.acquireFunctions),
    methodDecorators: stringList(entry.methodDecorators),
  };
}

function acquireFunctions(value: unknown): LockModel['acquireFunctions'] {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((f): f is { name: string; handleIndex?: unknown } => !!f && typeof f === 'object' && typeof f.name === 'string')
    .map((f) => (Number.isInteger(f.handleIndex) ? { name: f.name, handleIndex: f.handleIndex as number } : { name: f.name }));
}

/** A user's SQL wrapper: the count members any driver gives, unless the entry says. */
const OWN_SQL_RESULT: ResultShape = { type: 'count', read: ['rowCount', 'affectedRows', 'changes', 'count', 'length'] };
const OWN_SQL_FENCE: FenceTemplate = { compare: 'AND {column} < $n', store: '{column} = $n' };
/** A user's own client: its reply is whatever it returns, so reading it at all counts. */
const OWN_OBJECT_RESULT: ResultShape = { type: 'reply' };
const OWN_OBJECT_FENCE: FenceTemplate = { compare: '{column}: { lt: {token} }', store: '{column}: {token}' };

function placeOf(value: unknown): Place | undefined {
  const place = value as { arg?: unknown; property?: unknown } | undefined;
  if (!place || !Number.isInteger(place.arg)) return undefined;
  const property = stringList(place.property);
  return property.length > 0 ? { arg: place.arg as number, property } : { arg: place.arg as number };
}

function resultOf(value: unknown, fallback: ResultShape): ResultShape {
  const r = value as { type?: string; read?: unknown; tuple?: unknown; misleading?: unknown; names?: unknown; codes?: unknown } | undefined;
  switch (r?.type) {
    case 'count':
      return { type: 'count', read: stringList(r.read), ...(Number.isInteger(r.tuple) ? { tuple: r.tuple as number } : {}), misleading: stringList(r.misleading) };
    case 'rows':
    case 'status':
      return { type: r.type, read: stringList(r.read) };
    case 'exception':
      return { type: 'exception', names: stringList(r.names), codes: stringList(r.codes) };
    case 'number':
    case 'record':
    case 'reply':
    case 'none':
      return { type: r.type };
    default:
      return fallback;
  }
}

function sinkModelOf(entry: Entry): SinkModel {
  const sql = entry.family === 'sql';
  const fence = entry.fence as { compare?: unknown; store?: unknown } | undefined;
  const writes: SinkWrite[] = Array.isArray(entry.writes)
    ? (entry.writes as Entry[]).map((w) => {
        const filter = placeOf(w.filter);
        const values = placeOf(w.values);
        return {
          method: w.method as string,
          kind: w.kind as SinkWrite['kind'],
          ...(filter ? { filter } : {}),
          ...(values ? { values } : {}),
          ...(w.result ? { result: resultOf(w.result, OWN_OBJECT_RESULT) } : {}),
        };
      })
    : [];
  return {
    id: entry.id as string,
    family: sql ? 'sql' : 'object',
    packages: stringList(entry.packages),
    clientExports: stringList(entry.clientExports),
    clientTypes: stringList(entry.clientTypes),
    clientFactories: stringList(entry.clientFactories),
    clientCallbacks: stringList(entry.clientCallbacks),
    receivers: stringList(entry.receivers),
    sqlMethods: sql ? stringList(entry.sqlMethods) : [],
    sqlTags: sql ? stringList(entry.sqlTags) : [],
    conditionStyle: sql ? 'sql' : 'filter',
    writes: sql ? [] : writes,
    result: resultOf(entry.result, sql ? OWN_SQL_RESULT : OWN_OBJECT_RESULT),
    fence: typeof fence?.compare === 'string' && typeof fence.store === 'string' ? { compare: fence.compare, store: fence.store } : sql ? OWN_SQL_FENCE : OWN_OBJECT_FENCE,
  };
}

function tokenSourceOf(entry: Entry): TokenSourceModel {
  return { id: entry.id as string, calls: stringList(entry.calls), packages: stringList(entry.packages), tokenProperties: stringList(entry.tokenProperties) };
}

/** The entries of one model list that passed the schema. */
function validEntries(own: FencelintSettings, list: ModelList, dropped: ReadonlySet<number>): Entry[] {
  const value = (own as Record<string, unknown>)[list];
  if (!Array.isArray(value)) return [];
  return value.filter((entry, index): entry is Entry => !dropped.has(index) && !!entry && typeof entry === 'object' && typeof (entry as Entry).id === 'string');
}

/** A stable hash of what the catalog is built from: equal settings give one catalog, wherever they came from. */
function contentKey(own: FencelintSettings): string {
  let text: string;
  try {
    text = JSON.stringify({ locks: own.locks, sinks: own.sinks, tokenSources: own.tokenSources }) ?? '';
  } catch {
    return `unhashable:${Math.random()}`;
  }
  return text === '{}' ? '' : createHash('sha256').update(text).digest('hex').slice(0, 16);
}

const catalogByObject = new WeakMap<object, Catalog>();
/** By content, so a CLI run, `eslint --concurrency` workers and the language server build equal catalogs once each. */
const catalogByKey = new Map<string, Catalog>();
const MAX_CATALOGS = 32;

/** The catalog for a configuration: the built-in models plus the user's valid entries, built once per distinct content. */
export function catalogFor(settings: unknown): Catalog {
  const own = ownSettings(settings);
  if (!own) return BUILTIN_CATALOG;
  const known = catalogByObject.get(own);
  if (known) return known;
  const key = contentKey(own);
  let catalog = key === '' ? BUILTIN_CATALOG : catalogByKey.get(key);
  if (!catalog) {
    const { dropped } = checkSettings(own);
    catalog = extendCatalog(key, {
      locks: validEntries(own, 'locks', dropped.locks).map(lockModelOf),
      sinks: validEntries(own, 'sinks', dropped.sinks).map(sinkModelOf),
      tokenSources: validEntries(own, 'tokenSources', dropped.tokenSources).map(tokenSourceOf),
    });
    if (catalogByKey.size >= MAX_CATALOGS) catalogByKey.delete(catalogByKey.keys().next().value!);
    catalogByKey.set(key, catalog);
  }
  catalogByObject.set(own, catalog);
  return catalog;
}

/** Built-in lock models plus the user's, merged once per configuration. */
export function lockModels(settings: unknown): readonly LockModel[] {
  return catalogFor(settings).locks;
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
    key = `${catalogFor(settings).key}\u0000${JSON.stringify(own.tokenColumn ?? '')}`;
  } catch {
    key = String(Math.random());
  }
  keyCache.set(own, key);
  return key;
}
