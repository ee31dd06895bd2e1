/**
 * The JSON schema of `settings.fencelint`, and its check. ESLint validates rule options against
 * each rule's schema but never looks at shared settings, so a misspelt key there would change
 * nothing and say nothing. Each field has a `description`: `docs/settings.md` documents the same
 * fields, and a test keeps the two in step.
 */
import { Ajv, type ErrorObject } from 'ajv';

const names = (description: string) => ({ type: 'array', items: { type: 'string', minLength: 1 }, description });

const callbackMethods = (description: string) => ({
  type: 'array',
  description,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['method'],
    properties: {
      method: { type: 'string', minLength: 1, description: 'Method name.' },
      callbackArg: { type: 'integer', description: 'Index of the callback argument; -1 (the default) is the last argument.' },
    },
  },
});

/** One lock model: the fields of `LockModel` in `models/locks.ts`, all optional but `id`. */
export const LOCK_MODEL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', minLength: 1, description: 'A name for the model, shown in messages.' },
    packages: names('Import sources that provide the lock library (`@acme/locks`). Your own modules need no entry: imports into the project are followed.'),
    authorityExports: names('Exports that create an authority with `new X()` or `X()`; `default` is the default export. Defaults to `["default"]`.'),
    acquire: names('Authority methods that acquire and resolve to a handle (`authority.acquire(key)`).'),
    acquireWithCallback: callbackMethods('Authority methods that hold the lock while a callback runs (`authority.using(key, async (lock) => ...)`).'),
    lockFactory: names('Authority methods that return a lock object which is then acquired (etcd3 `client.lock(name)`).'),
    objectAcquire: names('Methods of a lock object from `lockFactory`, or of a self-acquiring authority, that acquire it.'),
    objectAcquireWithCallback: callbackMethods('Like `acquireWithCallback`, on a lock object.'),
    authorityIsHandle: { type: 'boolean', description: 'The authority instance is itself the handle (redis-semaphore `new Mutex(...)`).' },
    release: names('Handle methods that release it. Defaults to `["release"]`.'),
    authorityRelease: names('Authority methods that release a handle passed as argument (`authority.release(lock)`).'),
    extend: names('Handle methods that extend the lease.'),
    validity: names('Handle members that say whether the lease is still held: a check, never a fence.'),
    tokenProperties: names('Handle properties that carry a fence token the authority issues (`lease.fenceToken`).'),
    tokenAdvice: { type: 'string', description: 'Where a user of this library gets a real token; the docs and the hover show it.' },
    receivers: names('Receiver paths that always are this authority, for a lock of your own project (`leases`, `this.gate`): `leases.grab(key)` acquires.'),
    methodDecorators: names('Exports of `packages` used as method decorators that run the method under the lock (`@Locked(\'key\') async save() {...}`).'),
    acquireFunctions: {
      type: 'array',
      description: 'Exports of `packages` that take the lock when called and resolve to its handle, with no authority object (`const release = await lock(redis, key)`).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'The exported function.' },
          handleIndex: { type: 'integer', minimum: 0, description: 'The call resolves to a tuple and the handle is this element (`const [ok, release] = await tryLock(...)`).' },
        },
      },
    },
  },
} as const;

/** Where a part of a write lives in its call: `Place` in `models/sinks.ts`. */
const PLACE_SCHEMA = (description: string) => ({
  type: 'object',
  additionalProperties: false,
  required: ['arg'],
  description,
  properties: {
    arg: { type: 'integer', minimum: 0, description: 'Index of the argument.' },
    property: names('Path of properties inside that argument when it is an object literal (`["headers"]`).'),
  },
});

const strings = (description: string) => names(description);

/** What a write resolves to: `ResultShape` in `models/sinks.ts`. */
const RESULT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description: 'What a write resolves to, and where a refused (stale) write shows: `require-stale-check` reads it.',
  properties: {
    type: { enum: ['count', 'number', 'rows', 'record', 'reply', 'exception', 'status', 'none'], description: '`count`: an object whose `read` members count the rows written; `number`: the count itself; `rows`: the written rows; `record`: the record or null; `exception`: a refused write throws one of `names`/`codes`; `status`: a response whose `read` members tell; `none`: nothing tells.' },
    read: strings('Members that tell an applied write from a refused one (`rowCount`, `changes`, `ok`).'),
    tuple: { type: 'integer', minimum: 0, description: 'The result object is this element of a resolved array (mysql2 `[header]`).' },
    misleading: strings('Members that look like a check but hold for a refused write too.'),
    names: strings('Error classes or `name`s a refused write rejects with.'),
    codes: strings('Error codes a refused write rejects with.'),
  },
} as const;

/** One write sink: the fields of `SinkModel` in `models/sinks.ts` that a project's own client needs. */
export const SINK_MODEL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'family'],
  properties: {
    id: { type: 'string', minLength: 1, description: 'A name for the model, shown in messages.' },
    family: { enum: ['sql', 'object'], description: '`sql`: the calls send SQL text (`sqlMethods`, `sqlTags`); `object`: the calls are `writes` whose filter and values are arguments.' },
    packages: names('Import sources that provide the client (`@acme/db`).'),
    clientExports: names('Exports of `packages` that make a client with `new X()` or `X()`.'),
    clientTypes: names('Exported type names of `packages` that annotate a client (`(db: AcmeDb) => ...`).'),
    clientFactories: names('Client methods that return a client of the same kind (`db.transaction()`).'),
    clientCallbacks: names('Client methods whose callback receives a client of the same kind (`db.tx(async (t) => ...)`).'),
    receivers: names('Receiver paths that always are this client (`db`, `this.api`), as SafeQL\'s `wrapper` targets name them.'),
    sqlMethods: names('`sql` family: methods (or functions) that take SQL text first and the parameter array second (`db.run(sql, params)`).'),
    sqlTags: names('`sql` family: tags of SQL tagged templates (`` q`UPDATE ...` ``).'),
    writes: {
      type: 'array',
      description: '`object` family: the methods that write, and where their key/filter and values live.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['method', 'kind'],
        properties: {
          method: { type: 'string', minLength: 1, description: 'Method name (`put`, `save`).' },
          kind: { enum: ['update', 'delete', 'upsert', 'replace'], description: 'What the write does; a `delete` needs no token stored.' },
          filter: PLACE_SCHEMA('Where the condition lives: the object the write matches or checks with (`{ id, fenceToken: { lt: t } }`, a headers object).'),
          values: PLACE_SCHEMA('Where the stored values live: the object the token is stored with.'),
          result: RESULT_SCHEMA,
        },
      },
    },
    result: RESULT_SCHEMA,
    fence: {
      type: 'object',
      additionalProperties: false,
      required: ['compare', 'store'],
      description: 'What the suggestion inserts: `compare` into the condition, `store` into the values; `{column}` and `{token}` are filled in.',
      properties: {
        compare: { type: 'string', description: 'For `object` sinks, a property added to the filter (`{column}: { lt: {token} }`, `\'If-Match\': String({token})`).' },
        store: { type: 'string', description: 'A property added to the values (`{column}: {token}`); empty for none.' },
      },
    },
  },
} as const;

/** One token source: `TokenSourceModel` in `models/token-sources.ts`. */
export const TOKEN_SOURCE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'calls'],
  properties: {
    id: { type: 'string', minLength: 1, description: 'A name for the source.' },
    calls: { ...names('Calls whose result is a fence token, as written: `nextFence` or `leases.next` (a receiver path and a method).'), minItems: 1 },
    packages: names('When given, the call\'s first name must be imported from one of these (`@acme/fence`).'),
    tokenProperties: names('Properties of the result that hold the token (`{ token } = await leases.next()`); empty: the result itself.'),
  },
} as const;

export const SETTINGS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tokenColumn: { type: 'string', minLength: 1, description: 'Column that stores the accepted token at the resource. Defaults to `fence_token`; a rule\'s own `tokenColumn` option wins.' },
    locks: { type: 'array', items: LOCK_MODEL_SCHEMA, description: 'Your own lock authorities or unlisted lock libraries, in front of the built-in models.' },
    sinks: { type: 'array', items: SINK_MODEL_SCHEMA, description: 'Your own SQL wrappers, tagged templates, repositories and API clients, in front of the built-in write sinks.' },
    tokenSources: { type: 'array', items: TOKEN_SOURCE_SCHEMA, description: 'Your own functions that return a fence token (`leases.next()`), in front of the built-in sources.' },
    project: { type: 'boolean', description: '`false` analyses each file on its own, without following imports into the project\'s modules. Defaults to `true`.' },
  },
} as const;

let validator: ReturnType<Ajv['compile']> | undefined;

/** A JSON pointer (`/locks/0/acquire`) as the path a user writes (`locks[0].acquire`). */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The known key closest to a misspelt one, when it is close enough to be the one meant. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function describe(error: ErrorObject, value: unknown): string {
  const at = pathOf(error.instancePath);
  const where = at ? `\`${at}\`` : 'settings.fencelint';
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
      const suggestion = closestName(key, Object.keys(parent?.properties ?? {}));
      const full = at ? `${at}.${key}` : key;
      return `\`${full}\` is not a setting${suggestion ? ` (did you mean \`${suggestion}\`?)` : ''}`;
    }
    case 'required':
      return `${at ? `\`${at}\`` : 'settings.fencelint'} needs \`${(error.params as { missingProperty: string }).missingProperty}\``;
    case 'type': {
      const wanted = (error.params as { type: string }).type;
      const an = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
      const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : an(typeof value);
      const items = (error.parentSchema as { items?: { type?: string } } | undefined)?.items?.type;
      return `${where} must be ${an(wanted)}${wanted === 'array' && items ? ` of ${items}s` : ''}, not ${got}`;
    }
    case 'minLength':
    case 'minItems':
      return `${where} must not be empty`;
    case 'enum':
      return `${where} must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => `\`${String(v)}\``).join(', ')}${typeof value === 'string' ? `, not \`${value.length > 40 ? `${value.slice(0, 40)}...` : value}\`` : ''}`;
    case 'minimum':
      return `${where} must be ${(error.params as { limit: number }).limit} or more`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[part];
  return value;
}

/** The model lists of `settings.fencelint`: a wrong entry in one of them is dropped whole. */
export const MODEL_LISTS = ['locks', 'sinks', 'tokenSources'] as const;
export type ModelList = (typeof MODEL_LISTS)[number];

export interface SettingsCheck {
  /** One line per problem, then one per dropped entry. */
  problems: string[];
  /** Indexes of the entries of each model list that are wrong and so are not used. */
  dropped: Record<ModelList, ReadonlySet<number>>;
}

/**
 * What is wrong with `settings.fencelint`, and which model entries are dropped for it. An entry
 * with a wrong value is dropped whole, never half-read (a write whose `kind` is unknown, a place
 * that is not an index); an unknown key alone is named and ignored, the entry kept. Never throws,
 * whatever the value.
 */
export function checkSettings(value: unknown): SettingsCheck {
  const dropped = { locks: new Set<number>(), sinks: new Set<number>(), tokenSources: new Set<number>() };
  if (value === undefined) return { problems: [], dropped };
  validator ??= new Ajv({ allErrors: true, strict: true, verbose: true }).compile(SETTINGS_SCHEMA);
  if (validator(value)) return { problems: [], dropped };
  const problems = (validator.errors ?? []).map((error) => {
    // An unknown key is ignored on its own; a wrong value drops its whole entry.
    const entry = /^\/(locks|sinks|tokenSources)\/(\d+)(?:\/|$)/.exec(error.instancePath);
    if (entry && error.keyword !== 'additionalProperties') dropped[entry[1] as ModelList].add(Number(entry[2]));
    return describe(error, valueAt(value, error.instancePath));
  });
  for (const list of MODEL_LISTS) {
    for (const index of dropped[list]) {
      const id = (valueAt(value, `/${list}/${index}/id`) as unknown) ?? undefined;
      problems.push(`the entry \`${list}[${index}]\`${typeof id === 'string' ? ` (\`${id.slice(0, 40)}\`)` : ''} is not used`);
    }
  }
  return { problems: [...new Set(problems)], dropped };
}

/**
 * What is wrong with `settings.fencelint`, one line per problem (empty when it is valid or
 * absent). Never throws, whatever the value.
 */
export function validateSettings(value: unknown): string[] {
  return checkSettings(value).problems;
}
