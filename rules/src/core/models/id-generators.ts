/**
 * Functions that make a new identifier each call, by name, for project helpers the package
 * catalog does not list (`genActionResultId()`, `generateJobId()`, `newId()`): a lock keyed by
 * such a value names a resource no other holder can name. The library generators themselves are
 * the `random` and `time-id` entries of `clock-sources.ts`.
 */

/** Names of calls that return a fresh identifier: `randomUUID`, `uuidv4`, `nanoid`, `cuid`, `createId`, `ulid`, `genXxxId`, `generateXxxId`, `newXxxId`. */
export const ID_GENERATOR_NAME =
  /^(?:randomUUID|uuid(?:v[1467])?|uuidV[1467]|nanoid|customNanoid|cuid2?|createId|ulid|monotonicUlid|ObjectId|(?:gen|generate|make|create|new)(?:[A-Z]\w*)?(?:Id|ID|Uuid|UUID|Ulid))$/;

/** Methods that keep an identifier fresh (`randomBytes(8).toString('hex')`, `randomUUID().replace(/-/g, '')`); `id.slice(0, 8)` does not: a prefix may repeat. */
export const ID_KEEPING_METHOD = /^(?:toString|toHexString|toUpperCase|toLowerCase|valueOf|replace|replaceAll)$/;
