/**
 * Reads that fetch a stored token or version so that application code can compare it: the
 * first half of a check-then-write. Data only; the sinks for the second half live in
 * sql-writes.ts, knex-writes.ts and object-writes.ts.
 */

/** ORM / document-store reads of one record: Prisma, TypeORM, Sequelize, Mongoose, MongoDB. */
export const RECORD_READ_METHOD = /^(?:findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findOne|findOneOrFail|findOneBy|findOneByOrFail|findById|findByPk|findOneAndGet)$/;

/**
 * ORM reads of a list of records, each a record the ORM writes back: TypeORM `find`/`findBy`,
 * Mongoose `Model.find`, Sequelize `findAll`. Only for writes back (`repo.save(rows)`,
 * `row.save()` over the list); a compare of one of them is not a single-record read.
 */
export const RECORD_LIST_READ_METHOD = /^(?:find|findBy|findAll)$/;

/** Key-value reads: Redis/Valkey `GET`/`HGET`, DynamoDB DocumentClient `get`. */
export const KEY_VALUE_READ_METHOD = /^(?:get|GET|hget|HGET|hGet)$/;

/** DynamoDB commands that read one item: `client.send(new GetCommand({ ... }))`. */
export const DYNAMO_READ_COMMAND = /^(?:GetCommand|GetItemCommand)$/;

/** DynamoDB v2 DocumentClient / DynamoDB reads of one item: `docClient.get({ TableName, Key }).promise()`. */
export const DYNAMO_V2_READ_METHOD = /^(?:get|getItem)$/;

/**
 * Redis `WATCH`: a later `MULTI ... EXEC` fails when a watched key changed, so a GET-compare
 * followed by a transaction is one optimistic step, not a gap.
 */
export const REDIS_WATCH_METHOD = /^(?:watch|WATCH)$/;

/** Redis commands that overwrite a value (the write half of a GET-compare-SET). */
export const KEY_VALUE_WRITE_METHOD = /^(?:set|SET|hset|HSET|hSet|hmset|mset|setex|psetex|getset|getSet)$/;

/**
 * Stored fields that order writers or versions of a record: a fence token (see token-names.ts)
 * or an optimistic-concurrency version. Comparing one of them in application code, then
 * writing in another statement, is the read-then-update gap.
 */
export const VERSION_FIELD = /^(?:(?:row|lock|record|doc|document|entity|item|state|optimistic)_?)?(?:version|revision|rev|generation|gen|epoch|seq|sequence|seqno)(?:_?(?:no|num|number|id))?$/i;

/**
 * Redis keys that hold a stored fence token or version (`fence:cart:1`, `doc:${id}:version`).
 * A bare `token` is left out: such keys far more often hold auth or refresh tokens.
 */
export const TOKEN_KEY_TEXT = /fenc|generation|epoch|version|revision|\bseq/i;

/**
 * Helpers whose name says they read the stored fence token: `getStoredFenceToken(id)`,
 * `loadGeneration(key)`. Versions are left out: `getSchemaVersion()` is rarely a stored token.
 */
export const TOKEN_READER_NAME = /^(?:get|read|load|fetch|select|find|lookup|query)\w*(?:FenceToken|FencingToken|Fence|Generation|Epoch)$/;

/** Methods that write back a record fetched earlier: Mongoose `doc.save()`, Sequelize `row.update({...})`, TypeORM `repo.save(entity)`. */
export const RECORD_SAVE_METHOD = /^(?:save|update|destroy|remove|increment)$/;

/**
 * Reads of the newest version of a record, by the name of the read or of its result:
 * `getLatestExecutionSnapshot(...)`, `const current = await findCurrentRevision(...)`.
 */
export const LATEST_RECORD_NAME = /latest|current|newest|mostRecent|most_recent|^head|Head(?:[A-Z]|$)/i;

/** Records that are versions of something: a snapshot, a revision, a generation, a checkpoint. */
export const VERSIONED_RECORD_NAME = /snapshot|version|revision|generation|epoch|checkpoint|commit/i;

/** The field of such a record that names the version: its own id, or a version number. */
export const RECORD_IDENTITY_FIELD = /^(?:id|_id|uuid|etag|version|revision|rev|seq|sequence|generation|epoch)$/i;

/** What the caller saw of it, by the parameter's name: `snapshotId`, `expectedVersion`, `baseRevision`. */
export const SEEN_VERSION_NAME = /^(?:id|version|revision|etag)$|(?:Id|ID|Version|Revision|Etag|ETag)$/;

/**
 * Method names that say the method reads (`get`, `hget`, `findUser`, `loadPage`, `fetchById`),
 * not one that also makes what is missing (`getOrCreate`, `findOrInsert`, `fetchAndUpdate`).
 */
export const READ_METHOD_NAME = /^(?!.*(?:Or|And)(?:Create|Insert|Set|Update|Save|Put|Upsert|Add))(?:get|hget|hmget|mget|hgetall|find|fetch|load|read|lookup)(?:[A-Z_]|$)/;
