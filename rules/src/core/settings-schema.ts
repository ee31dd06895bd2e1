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
  },
} as const;

export const SETTINGS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tokenColumn: { type: 'string', minLength: 1, description: 'Column that stores the accepted token at the resource. Defaults to `fence_token`; a rule\'s own `tokenColumn` option wins.' },
    locks: { type: 'array', items: LOCK_MODEL_SCHEMA, description: 'Your own lock authorities or unlisted lock libraries, in front of the built-in models.' },
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
      return `${where} must not be empty`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[part];
  return value;
}

/**
 * What is wrong with `settings.fencelint`, one line per problem (empty when it is valid or
 * absent). Never throws, whatever the value.
 */
export function validateSettings(value: unknown): string[] {
  if (value === undefined) return [];
  validator ??= new Ajv({ allErrors: true, strict: true, verbose: true }).compile(SETTINGS_SCHEMA);
  if (validator(value)) return [];
  const problems = (validator.errors ?? []).map((error) => describe(error, valueAt(value, error.instancePath)));
  return [...new Set(problems)];
}
