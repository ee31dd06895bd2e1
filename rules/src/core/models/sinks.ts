/**
 * Write sinks as data: one entry per client library, saying how its clients are made and
 * typed, which calls write, where each write keeps its filter, its values and its
 * condition, how the library states a fenced write (and so what the suggestion inserts),
 * and what the write resolves to when the resource refuses a stale token (so that
 * `require-stale-check` knows what to look at). A new client is one entry here; the
 * readers in `core/sinks/` and the receiver table in `core/modules/` only interpret it.
 *
 * Facts checked against each library's documentation and types: pg resolves to a
 * `QueryResult` with `rowCount`; mysql2/promise to `[ResultSetHeader, fields]` with
 * `affectedRows`; postgres.js to an array with `count`; knex's `update`/`del` to the number of
 * rows; Prisma's `updateMany`/`deleteMany` to `{ count }` while `update`/`delete` throw `P2025`
 * when the filter matches nothing; MongoDB's `updateOne` to `{ matchedCount, modifiedCount,
 * acknowledged }` (`acknowledged` is true for a write that matched nothing); DynamoDB throws
 * `ConditionalCheckFailedException` when the `ConditionExpression` fails; `fetch` resolves
 * for a 409/412 (only `ok`/`status` tell), axios, got and ky reject on them.
 */
import { REDIS_CLIENT_PACKAGES } from './locks.js';

/**
 * `object`: a client of the project's own (a repository, an HTTP client wrapper) whose writes
 * say where their filter and values live (`writes[].filter` / `values`); read and judged by
 * the generic filter reader, with the model's `fence` template as the suggestion.
 */
export type SinkFamily = 'sql' | 'object' | 'knex' | 'prisma' | 'mongodb' | 'sequelize' | 'typeorm' | 'mikro-orm' | 'kysely' | 'drizzle' | 'supabase' | 'dynamodb' | 'redis' | 'http' | 's3' | 'clickhouse';

export type WriteKind = 'update' | 'delete' | 'upsert' | 'replace';

/**
 * Redis commands that put data under a key. A `DEL` of a key that the same function then fills
 * again with one of them (`DEL list` then `RPUSH list ...` of what it read before) rebuilds the
 * key: a replace of what was there, unlike a lone `DEL` that only drops a cache entry.
 */
export const REDIS_REFILL_COMMAND = /^(?:[lr]push|[lr]pushx|sadd|zadd|hset|hmset|set|setex|psetex|mset|xadd)(?:async)?$/i;

/**
 * Commands only a Redis client answers to (`expire`, `setnx`, `rpush`, `hgetall`, ...), in either
 * case and promisified (`hsetAsync`): a receiver nothing else types (a constructor parameter kept in
 * `this._redis` in plain JavaScript) that a file sends one of them is a Redis client. `get`, `set`,
 * `del`, `incr` and `ttl` are left out: maps, caches and counters of other libraries have them too.
 */
export const REDIS_CLIENT_COMMAND = /^(?:setnx|setex|psetex|getset|p?expire(?:at)?|persist|[lr]push|[lr]pushx|lrange|ltrim|lrem|lindex|llen|rpoplpush|lmove|b[lr]pop|hset|hsetnx|hget|hgetall|hmset|hmget|hdel|hincrby|hexists|hkeys|hvals|sadd|srem|smembers|sismember|scard|zadd|zrem|zrange|zrangebyscore|zrevrange|zrevrangebyscore|zscore|zincrby|zcard|zremrangebyscore|zremrangebyrank|incrby|decrby|xadd)(?:async)?$/i;

/** Methods that run a callback inside one transaction (Prisma `$transaction`, MongoDB `withTransaction`, knex `transaction`). */
export const TRANSACTION_CALLBACK_METHOD = /^(?:transaction|\$transaction|begin|tx|task|withTransaction|runInTransaction|serializable)$/;

/**
 * Method decorators that run the whole method in one database transaction, which every ORM call
 * inside joins through the library's context (typeorm-transactional and its cls-hooked
 * predecessor patch TypeORM's repositories and managers; MikroORM's `@Transactional()` forks the
 * entity manager in context). A row lock read inside is held until the method returns.
 */
export const TRANSACTION_DECORATORS: ReadonlyArray<{ package: string; export: string; family: SinkFamily }> = [
  { package: 'typeorm-transactional', export: 'Transactional', family: 'typeorm' },
  { package: 'typeorm-transactional-cls-hooked', export: 'Transactional', family: 'typeorm' },
  { package: '@mikro-orm/core', export: 'Transactional', family: 'mikro-orm' },
];

/**
 * How an ORM read takes its rows for writing (`SELECT ... FOR UPDATE` / `FOR NO KEY UPDATE`, also
 * with `NOWAIT` or `SKIP LOCKED`): TypeORM's query builder `setLock(mode)` and find option
 * `lock: { mode }`, MikroORM's `setLockMode(mode)`, `lockMode` option and `em.lock(entity, mode)`.
 * Shared modes (`pessimistic_read`, `FOR SHARE`) let two holders read the row at once: not listed.
 */
export const ROW_WRITE_LOCKS = {
  builderMethods: /^(?:setLock|setLockMode)$/,
  lockMethods: /^lock$/,
  optionKeys: /^(?:lock|lockMode)$/,
  // TypeORM and MikroORM modes; Sequelize's `t.LOCK.UPDATE` / `Transaction.LOCK.NO_KEY_UPDATE` (or `lock: true`).
  modes: /^(?:pessimistic_write|pessimistic_write_or_fail|pessimistic_partial_write|for_no_key_update|PESSIMISTIC_WRITE|PESSIMISTIC_WRITE_OR_FAIL|PESSIMISTIC_PARTIAL_WRITE|UPDATE|NO_KEY_UPDATE)$/,
  /** Options that hand a call its transaction (Sequelize `{ transaction: t }`). */
  transactionOption: 'transaction',
};

/** Reads of the object APIs a transaction can check records with before it writes them. */
export const OBJECT_READ_METHOD = /^(?:findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|findMany|findOne|find|aggregate|count|countDocuments)$/;
/** Prisma reads that accept only a unique key (a field marked unique, the id, or a compound `a_b: { a, b }`). */
export const UNIQUE_READ_METHOD = /^(?:findUnique|findUniqueOrThrow)$/;
/**
 * Calls that insert a record and hand it back (or its id): Prisma, Mongoose and TypeORM `create`,
 * MongoDB `insertOne`, Objection `insertAndFetch`, a collection's `rawInsert` (the insert
 * without the collection's hooks, which returns the new id). Used for library calls only: a project
 * function's summary says itself whether it returns what it inserted.
 */
export const INSERT_METHOD = /^(?:create|createOne|insert|insertOne|insertAndFetch|insertGraph|rawInsert)$/;

/** Builder links that pick rows by a list of ids (TypeORM `whereInIds`): the write changes exactly those rows. */
export const ID_FILTER_LINK = /^(?:whereInIds|andWhereInIds|orWhereInIds)$/;

/**
 * How a write of this library states its condition, which names the judge that decides
 * "fenced" (`core/sinks/`): SQL text, a `.where(...)` chain, a filter object, a DynamoDB
 * `ConditionExpression`, a Redis script, a request header or body, an S3 precondition;
 * `none`: the store has no conditional write at all (ClickHouse mutations), so every write is unfenced.
 */
export type ConditionStyle = 'sql' | 'where-chain' | 'filter' | 'condition-expression' | 'script' | 'request' | 'precondition' | 'none';

/**
 * Where a part of a write lives in its call: the `arg`-th argument, or a property of it when
 * it is an object literal; `link`: an argument of that link of a builder chain instead;
 * `operator`: inside that update operator (`$set`), or the whole object when it has none.
 */
export interface Place {
  arg: number;
  property?: readonly string[];
  link?: string;
  operator?: string;
}

/**
 * What a write resolves to, and where it tells a refused (stale) write from an applied one.
 *
 * - `count`: a result object whose `read` property counts the rows written
 *   (`tuple`: the object is that element of a resolved array, mysql2's `[header]`);
 * - `number`: the resolved value is the count itself;
 * - `rows`: an array of the written rows (its `length`, or the `read` properties);
 * - `record`: the written record, or null when nothing matched;
 * - `reply`: a script's return value;
 * - `exception`: a refused write rejects with one of `names` (error class or `name`) or `codes`;
 * - `status`: a response whose `read` members say whether the request was accepted;
 * - `none`: resolves to nothing that tells (pg-promise `none`): the result cannot be checked.
 *
 * `misleading`: members that look like a check but hold for a refused write too.
 */
export type ResultShape =
  | { type: 'count'; read: readonly string[]; tuple?: number; misleading?: readonly string[]; rows?: readonly string[] }
  | { type: 'number' }
  | { type: 'rows'; read: readonly string[] }
  | { type: 'record' }
  | { type: 'reply' }
  | { type: 'exception'; names: readonly string[]; codes: readonly string[] }
  | { type: 'status'; read: readonly string[] }
  | { type: 'none' };

export interface SinkWrite {
  /** Method name, or the command class for `client.send(new UpdateCommand(input))`. */
  method: string;
  kind: WriteKind;
  filter?: Place;
  values?: Place;
  /** The result of this method, when it differs from the model's. */
  result?: ResultShape;
  /**
   * A builder's insert that writes over a stored row only as an upsert: the chain's `link`
   * (`onConflict`) must be handed a callback that calls `update` (`doUpdateSet`, not `doNothing`).
   */
  upsert?: { link: string; update: string };
}

/** What the suggestion inserts for this library: `{column}` and `{token}` are filled in. */
export interface FenceTemplate {
  compare: string;
  store: string;
}

export interface SinkModel {
  id: string;
  family: SinkFamily;
  /** Import sources of the library. */
  packages: readonly string[];
  /** Exports that make a client: `new Pool()`, `createPool()`, `new PrismaClient()`, `postgres()`. */
  clientExports: readonly string[];
  /** Exported type names that annotate a client (`Pool`, `PoolClient`, `Prisma.TransactionClient`, `Collection`). */
  clientTypes: readonly string[];
  /** Client methods that return a client of the same library (`pool.connect()`, `db.collection(name)`). */
  clientFactories: readonly string[];
  /** Client methods whose callback receives a client of the same library (`$transaction(async (tx) => ...)`). */
  clientCallbacks: readonly string[];
  /**
   * Parameter decorators that inject a client of this library, whatever the parameter's type says
   * (NestJS `@InjectModel(User) users: typeof User` from `@nestjs/sequelize`).
   */
  injectors?: { readonly packages: readonly string[]; readonly exports: readonly string[] };
  /**
   * Client methods that run the statements of the array they are handed in order, in one
   * transaction (Prisma `$transaction([a, b])`, Drizzle `db.batch([a, b])`, Neon `sql.transaction([a, b])`).
   */
  batchTransactions?: readonly string[];
  /** Last resort, when nothing resolves a receiver: names such clients are commonly given. */
  receiverNames?: RegExp;
  /** Receiver paths that always are this client (`db`, `this.api`): a project's own wrapper, declared in settings. */
  receivers?: readonly string[];
  /** SQL drivers: methods that take SQL text first, and tags of SQL tagged templates. */
  sqlMethods?: readonly string[];
  sqlTags?: readonly string[];
  conditionStyle: ConditionStyle;
  writes: readonly SinkWrite[];
  /** The result of a write, unless the write says otherwise. */
  result: ResultShape;
  /** Per SQL method, when methods resolve differently (pg-promise). */
  sqlResults?: Readonly<Record<string, ResultShape>>;
  fence: FenceTemplate;
  /** Active records: writes made through a record the library returned (`user.save()`), not a client. */
  records?: RecordModel;
  /** How this library writes a value relative to the stored one (a counter's step). */
  relative?: RelativeChanges;
}

/**
 * How a library states a change relative to the stored value, as a counter is changed: applied
 * late, such a change is applied once and overwrites no newer value, so an update made only of
 * them is no late write (`core/sinks/relative-changes.ts`). SQL's own `n = n + $1` is grammar,
 * read by `core/sql/`; library methods that only step a column (knex `increment`/`decrement`,
 * Sequelize's and TypeORM's `increment`/`decrement`) are not listed as writes at all.
 */
export interface RelativeChanges {
  /** Update operators that step a field: MongoDB `$inc`, `$mul`. */
  operators?: readonly string[];
  /** Operators that may stand beside them: `$max`/`$min` move one way, `$setOnInsert` writes only a new document. */
  besideOperators?: readonly string[];
  /** Per-field operations in the values: Prisma `{ credits: { decrement: n } }`. */
  operations?: readonly string[];
  /**
   * SQL text as a field's value, read with the SQL parser (`n - :d` steps `n`; an interpolation is a
   * parameter): returned by an arrow function (TypeORM `{ n: () => 'n - :d' }`), passed to one of
   * `calls` (knex `db.raw('n - ?', [d])`, also `db.raw('?? - ?', ['n', d])`; Sequelize
   * `sequelize.literal('n - 1')`), or written with one of `tags` (Drizzle `sql\`${t.n} - ${d}\``
   * naming a column of the updated table, Kysely `sql\`n - ${d}\``, `${sql.ref('n')}`). `builder`:
   * Kysely's expression builder `(eb) => eb('n', '-', d)`, also in `.set((eb) => ({ ... }))`.
   */
  sqlValues?: { arrow?: boolean; calls?: readonly string[]; tags?: readonly string[]; builder?: boolean };
  /**
   * An update expression in the input object's property of this name (DynamoDB `UpdateExpression`)
   * whose every action steps its own attribute: `ADD n :d`, `SET n = n + :d`, `SET n = if_not_exists(n, :z) - :d`.
   */
  updateExpression?: string;
}

/**
 * How an ORM writes back a record it returned: the instance methods that write it, the base
 * classes a model class extends (whose `this.save()` is that record's write), and the model or
 * schema option that turns the instance write into a version compare-and-set.
 */
export interface RecordModel {
  methods: Readonly<Record<string, WriteKind>>;
  /** Exports of the library's packages that model classes extend: Sequelize `Model`, TypeORM `BaseEntity`. */
  bases: readonly string[];
  /** Option that adds `WHERE version = ...` to every instance write: Sequelize `version`, Mongoose `optimisticConcurrency`. */
  versionOption?: string;
}

const PG_RESULT: ResultShape = { type: 'count', read: ['rowCount'], misleading: ['rows', 'command'] };
const SQL_FENCE: FenceTemplate = { compare: 'AND {column} < $n', store: '{column} = $n' };
const DYNAMO_REFUSED: ResultShape = { type: 'exception', names: ['ConditionalCheckFailedException', 'TransactionCanceledException'], codes: ['ConditionalCheckFailedException'] };

export const SINK_MODELS: readonly SinkModel[] = [
  // --- SQL text -------------------------------------------------------------------------
  {
    id: 'pg',
    family: 'sql',
    packages: ['pg', 'pg-pool', '@neondatabase/serverless', '@vercel/postgres'],
    clientExports: ['Pool', 'Client', 'neon', 'createPool', 'createClient'],
    clientTypes: ['Pool', 'PoolClient', 'Client', 'ClientBase', 'VercelPool', 'VercelClient'],
    clientFactories: ['connect'],
    clientCallbacks: [],
    // Neon's HTTP `sql.transaction([sql\`...\`, ...])`.
    batchTransactions: ['transaction'],
    receiverNames: /^(?:pool|client|pg|pgPool|pgClient|db|database|conn|connection)$/i,
    sqlMethods: ['query'],
    conditionStyle: 'sql',
    writes: [],
    result: PG_RESULT,
    fence: SQL_FENCE,
  },
  {
    id: 'mysql2',
    family: 'sql',
    packages: ['mysql2', 'mysql2/promise'],
    clientExports: ['createPool', 'createConnection', 'createPoolCluster', 'default'],
    clientTypes: ['Pool', 'PoolConnection', 'Connection'],
    clientFactories: ['getConnection', 'promise'],
    clientCallbacks: [],
    sqlMethods: ['query', 'execute'],
    conditionStyle: 'sql',
    writes: [],
    result: { type: 'count', read: ['affectedRows', 'changedRows'], tuple: 0, misleading: ['insertId', 'warningStatus', 'serverStatus'] },
    fence: { compare: 'AND {column} < ?', store: '{column} = ?' },
  },
  {
    id: 'mysql',
    family: 'sql',
    packages: ['mysql', 'mariadb'],
    clientExports: ['createPool', 'createConnection', 'default'],
    clientTypes: ['Pool', 'PoolConnection', 'Connection'],
    clientFactories: ['getConnection'],
    clientCallbacks: [],
    sqlMethods: ['query', 'execute'],
    conditionStyle: 'sql',
    writes: [],
    result: { type: 'count', read: ['affectedRows', 'changedRows'], misleading: ['insertId', 'warningStatus'] },
    fence: { compare: 'AND {column} < ?', store: '{column} = ?' },
  },
  {
    id: 'postgres',
    family: 'sql',
    packages: ['postgres'],
    clientExports: ['default'],
    clientTypes: ['Sql', 'TransactionSql', 'ReservedSql'],
    clientFactories: ['reserve'],
    clientCallbacks: ['begin', 'savepoint'],
    sqlMethods: ['unsafe'],
    sqlTags: ['sql', 'tx', 'trx', 'db', 'sql.unsafe'],
    conditionStyle: 'sql',
    writes: [],
    result: { type: 'rows', read: ['count', 'length'] },
    fence: { compare: 'AND {column} < ${token}', store: '{column} = ${token}' },
  },
  {
    id: 'pg-promise',
    family: 'sql',
    packages: ['pg-promise'],
    clientExports: ['default'],
    clientTypes: ['IDatabase', 'ITask', 'IBaseProtocol'],
    clientFactories: [],
    clientCallbacks: ['tx', 'task', 'txIf', 'taskIf'],
    sqlMethods: ['none', 'one', 'oneOrNone', 'many', 'manyOrNone', 'any', 'result', 'multi', 'query'],
    conditionStyle: 'sql',
    writes: [],
    result: PG_RESULT,
    sqlResults: {
      result: PG_RESULT,
      none: { type: 'none' },
      one: { type: 'exception', names: ['QueryResultError'], codes: ['queryResultErrorCode.noData'] },
      many: { type: 'exception', names: ['QueryResultError'], codes: ['queryResultErrorCode.noData'] },
      oneOrNone: { type: 'record' },
      any: { type: 'rows', read: ['length'] },
      manyOrNone: { type: 'rows', read: ['length'] },
    },
    fence: SQL_FENCE,
  },
  {
    id: 'better-sqlite3',
    family: 'sql',
    packages: ['better-sqlite3', 'bun:sqlite', 'node:sqlite'],
    clientExports: ['default', 'Database', 'DatabaseSync'],
    clientTypes: ['Database', 'DatabaseSync'],
    clientFactories: [],
    clientCallbacks: [],
    sqlMethods: ['run', 'exec', 'all', 'get'],
    conditionStyle: 'sql',
    writes: [],
    result: { type: 'count', read: ['changes'] },
    fence: SQL_FENCE,
  },
  {
    id: 'sql-tag',
    family: 'sql',
    // Tagged-template SQL through ORMs and query libraries: slonik, Kysely's and Drizzle's `sql`.
    packages: ['slonik', '@databases/pg', 'sql-template-strings', 'sql-template-tag'],
    clientExports: ['createPool', 'default', 'connect'],
    clientTypes: ['DatabasePool', 'DatabaseTransactionConnection', 'ConnectionPool'],
    clientFactories: [],
    clientCallbacks: ['transaction', 'tx', 'connect'],
    sqlMethods: ['query', 'execute', 'exec', 'executeQuery', 'sql', 'queryOne', 'queryAll'],
    sqlTags: ['sql'],
    conditionStyle: 'sql',
    writes: [],
    result: { type: 'count', read: ['rowCount', 'numAffectedRows', 'numUpdatedRows', 'count', 'length'] },
    fence: SQL_FENCE,
  },
  // --- ORMs and query builders ----------------------------------------------------------
  {
    id: 'knex',
    family: 'knex',
    packages: ['knex'],
    clientExports: ['default', 'knex', 'Knex', '*'],
    clientTypes: ['Knex', 'Knex.Transaction', 'Transaction'],
    clientFactories: ['transaction', 'withSchema'],
    clientCallbacks: ['transaction'],
    receiverNames: /^(?:knex|db|trx|tx|k|database|qb|conn|connection|builder|client)$/i,
    sqlMethods: ['raw'],
    conditionStyle: 'where-chain',
    writes: [
      { method: 'update', kind: 'update', values: { arg: 0 } },
      { method: 'del', kind: 'delete' },
      { method: 'delete', kind: 'delete' },
      { method: 'merge', kind: 'upsert', values: { arg: 0 } },
    ],
    // `.returning(...)` turns the count into the rows.
    result: { type: 'number' },
    fence: { compare: ".where('{column}', '<', {token})", store: '{column}: {token}' },
    relative: { sqlValues: { calls: ['raw'] } },
  },
  {
    id: 'prisma',
    family: 'prisma',
    packages: ['@prisma/client', '.prisma/client', '@prisma/client/edge'],
    clientExports: ['PrismaClient'],
    clientTypes: ['PrismaClient', 'Prisma.TransactionClient', 'TransactionClient', 'Prisma.DefaultPrismaClient'],
    clientFactories: ['$extends'],
    clientCallbacks: ['$transaction'],
    batchTransactions: ['$transaction'],
    receiverNames: /^(?:prisma|tx|trx|db|client|prismaClient|prismaService|transaction)$/i,
    sqlMethods: ['$executeRawUnsafe', '$queryRawUnsafe'],
    sqlTags: ['$executeRaw', '$queryRaw', '$executeRawUnsafe'],
    conditionStyle: 'filter',
    writes: [
      // A single-record write whose filter no longer matches rejects with P2025.
      { method: 'update', kind: 'update', filter: { arg: 0, property: ['where'] }, values: { arg: 0, property: ['data'] }, result: { type: 'exception', names: ['PrismaClientKnownRequestError', 'NotFoundError'], codes: ['P2025'] } },
      { method: 'updateMany', kind: 'update', filter: { arg: 0, property: ['where'] }, values: { arg: 0, property: ['data'] } },
      { method: 'upsert', kind: 'upsert', filter: { arg: 0, property: ['where'] }, values: { arg: 0, property: ['update'] }, result: { type: 'record' } },
      { method: 'delete', kind: 'delete', filter: { arg: 0, property: ['where'] }, result: { type: 'exception', names: ['PrismaClientKnownRequestError', 'NotFoundError'], codes: ['P2025'] } },
      { method: 'deleteMany', kind: 'delete', filter: { arg: 0, property: ['where'] } },
    ],
    result: { type: 'count', read: ['count'] },
    fence: { compare: '{column}: { lt: {token} }', store: '{column}: {token}' },
    relative: { operations: ['increment', 'decrement', 'multiply', 'divide'] },
  },
  {
    id: 'mongodb',
    family: 'mongodb',
    packages: ['mongodb', 'mongoose'],
    clientExports: ['MongoClient', 'default', 'model', 'Model', 'connect', 'createConnection'],
    clientTypes: ['Collection', 'Db', 'MongoClient', 'Model'],
    clientFactories: ['db', 'collection', 'model'],
    clientCallbacks: ['withTransaction', 'withSession'],
    injectors: { packages: ['@nestjs/mongoose'], exports: ['InjectModel', 'InjectConnection'] },
    conditionStyle: 'filter',
    writes: [
      { method: 'updateOne', kind: 'update', filter: { arg: 0 }, values: { arg: 1, operator: '$set' } },
      { method: 'updateMany', kind: 'update', filter: { arg: 0 }, values: { arg: 1, operator: '$set' } },
      { method: 'findOneAndUpdate', kind: 'update', filter: { arg: 0 }, values: { arg: 1, operator: '$set' }, result: { type: 'record' } },
      { method: 'findByIdAndUpdate', kind: 'update', filter: { arg: 0 }, values: { arg: 1, operator: '$set' }, result: { type: 'record' } },
      { method: 'replaceOne', kind: 'replace', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'findOneAndReplace', kind: 'replace', filter: { arg: 0 }, values: { arg: 1 }, result: { type: 'record' } },
      { method: 'deleteOne', kind: 'delete', filter: { arg: 0 }, result: { type: 'count', read: ['deletedCount'], misleading: ['acknowledged'] } },
      { method: 'deleteMany', kind: 'delete', filter: { arg: 0 }, result: { type: 'count', read: ['deletedCount'], misleading: ['acknowledged'] } },
      { method: 'findOneAndDelete', kind: 'delete', filter: { arg: 0 }, result: { type: 'record' } },
    ],
    result: { type: 'count', read: ['matchedCount', 'modifiedCount', 'nModified', 'n'], misleading: ['acknowledged', 'upsertedCount', 'upsertedId'] },
    fence: { compare: '{column}: { $lt: {token} }', store: '{column}: {token}' },
    // Mongoose documents; `save()` bumps `__v` only for arrays, so it compares nothing unless the schema sets `optimisticConcurrency`.
    records: { methods: { save: 'update', deleteOne: 'delete', remove: 'delete' }, bases: [], versionOption: 'optimisticConcurrency' },
    relative: { operators: ['$inc', '$mul'], besideOperators: ['$max', '$min', '$setOnInsert'] },
  },
  {
    id: 'sequelize',
    family: 'sequelize',
    packages: ['sequelize', 'sequelize-typescript'],
    clientExports: ['Sequelize', 'default', 'Model'],
    clientTypes: ['Sequelize', 'ModelStatic', 'ModelCtor'],
    clientFactories: ['define'],
    clientCallbacks: ['transaction'],
    injectors: { packages: ['@nestjs/sequelize'], exports: ['InjectModel', 'InjectConnection'] },
    sqlMethods: ['query'],
    conditionStyle: 'filter',
    writes: [
      { method: 'update', kind: 'update', filter: { arg: 1, property: ['where'] }, values: { arg: 0 }, result: { type: 'count', read: ['0'], tuple: 0 } },
      { method: 'destroy', kind: 'delete', filter: { arg: 0, property: ['where'] }, result: { type: 'number' } },
    ],
    result: { type: 'number' },
    fence: { compare: '{column}: { [Op.lt]: {token} }', store: '{column}: {token}' },
    // `version: true` in the model options makes `save()` send `WHERE version = ...` and bump it.
    // `user.increment('credits', { by })` / `decrement` step a column relative to itself: no late write.
    records: { methods: { save: 'update', update: 'update', destroy: 'delete', restore: 'update' }, bases: ['Model'], versionOption: 'version' },
    relative: { sqlValues: { calls: ['literal'] } },
  },
  {
    id: 'typeorm',
    family: 'typeorm',
    packages: ['typeorm', '@nestjs/typeorm'],
    clientExports: ['DataSource', 'getRepository', 'getManager', 'createConnection', 'getConnection'],
    clientTypes: ['Repository', 'EntityManager', 'DataSource', 'TreeRepository', 'MongoRepository'],
    clientFactories: ['getRepository', 'getTreeRepository', 'withRepository', 'manager', 'createQueryRunner'],
    clientCallbacks: ['transaction'],
    injectors: { packages: ['@nestjs/typeorm'], exports: ['InjectRepository', 'InjectEntityManager', 'InjectDataSource'] },
    receiverNames: /(?:repo|repository|manager)$/i,
    sqlMethods: ['query'],
    conditionStyle: 'filter',
    writes: [
      { method: 'update', kind: 'update', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'delete', kind: 'delete', filter: { arg: 0 } },
    ],
    result: { type: 'count', read: ['affected'], misleading: ['raw', 'generatedMaps'] },
    fence: { compare: '{column}: LessThan({token})', store: '{column}: {token}' },
    // ActiveRecord entities (`order.save()`), and `repo.save(order)` of an entity read before or handed in
    // typed as an entity (a `BaseEntity` or a class decorated `@Entity`); `@VersionColumn` is bumped, never compared.
    records: { methods: { save: 'update', remove: 'delete', softRemove: 'delete', recover: 'update' }, bases: ['BaseEntity', 'Entity'] },
    relative: { sqlValues: { arrow: true } },
  },
  {
    // MikroORM: em.nativeUpdate(Entity, where, data) / repo.nativeUpdate(where, data) send one
    // UPDATE with the filter as given (operators as in MongoDB: `{ fence: { $lt: t } }`).
    id: 'mikro-orm',
    family: 'mikro-orm',
    packages: ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/mysql', '@mikro-orm/mariadb', '@mikro-orm/sqlite', '@mikro-orm/better-sqlite', '@mikro-orm/libsql', '@mikro-orm/mssql', '@mikro-orm/mongodb', '@mikro-orm/knex'],
    clientExports: ['MikroORM'],
    clientTypes: ['EntityManager', 'SqlEntityManager', 'EntityRepository', 'SqlEntityRepository', 'MikroORM'],
    clientFactories: ['fork', 'getRepository'],
    clientCallbacks: ['transactional'],
    injectors: { packages: ['@mikro-orm/nestjs'], exports: ['InjectRepository', 'InjectEntityManager', 'InjectMikroORM'] },
    conditionStyle: 'filter',
    writes: [
      { method: 'nativeUpdate', kind: 'update', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'nativeDelete', kind: 'delete', filter: { arg: 0 } },
    ],
    result: { type: 'number' },
    fence: { compare: '{column}: { $lt: {token} }', store: '{column}: {token}' },
  },
  {
    id: 'kysely',
    family: 'kysely',
    packages: ['kysely'],
    clientExports: ['Kysely'],
    clientTypes: ['Kysely', 'Transaction'],
    clientFactories: ['withSchema'],
    clientCallbacks: ['execute'],
    conditionStyle: 'where-chain',
    writes: [
      { method: 'updateTable', kind: 'update', values: { arg: 0, link: 'set' } },
      { method: 'deleteFrom', kind: 'delete' },
      // insertInto(t).values(row).onConflict((oc) => oc.column('id').doUpdateSet({ ... })).
      { method: 'insertInto', kind: 'upsert', values: { arg: 0, link: 'doUpdateSet' }, upsert: { link: 'onConflict', update: 'doUpdateSet' } },
    ],
    result: { type: 'count', read: ['numUpdatedRows', 'numDeletedRows', 'numChangedRows', 'numInsertedOrUpdatedRows', 'length'] },
    fence: { compare: ".where('{column}', '<', {token})", store: '{column}: {token}' },
    relative: { sqlValues: { tags: ['sql'], builder: true } },
  },
  {
    id: 'drizzle',
    family: 'drizzle',
    packages: ['drizzle-orm', 'drizzle-orm/node-postgres', 'drizzle-orm/postgres-js', 'drizzle-orm/mysql2', 'drizzle-orm/better-sqlite3', 'drizzle-orm/neon-http'],
    clientExports: ['drizzle'],
    clientTypes: ['NodePgDatabase', 'PostgresJsDatabase', 'MySql2Database', 'BetterSQLite3Database', 'PgDatabase', 'NeonHttpDatabase'],
    clientFactories: [],
    clientCallbacks: ['transaction'],
    // Neon HTTP, LibSQL and D1 run a batch as one transaction.
    batchTransactions: ['batch'],
    conditionStyle: 'where-chain',
    writes: [
      { method: 'update', kind: 'update', values: { arg: 0, link: 'set' } },
      { method: 'delete', kind: 'delete' },
      // insert(t).values(row).onConflictDoUpdate({ target, set: {...}, setWhere }): an insert that
      // writes over the stored row on conflict (`onConflictDoNothing` inserts only).
      { method: 'insert', kind: 'upsert', values: { arg: 0, link: 'onConflictDoUpdate', property: ['set'] } },
    ],
    // The driver's own result: pg `rowCount`, mysql2 `[header]`, better-sqlite3 `changes`; `.returning()` gives rows.
    result: { type: 'count', read: ['rowCount', 'affectedRows', 'changes', 'rowsAffected', 'count', 'length'] },
    fence: { compare: 'lt({table}.{column}, {token})', store: '{column}: {token}' },
    relative: { sqlValues: { tags: ['sql'] } },
  },
  {
    // Supabase (PostgREST): client.from('t').update(values).eq('id', id); the filters are links
    // chained after the write method, so the fence is one more of them (`.lt('fence_token', t)`).
    id: 'supabase',
    family: 'supabase',
    packages: ['@supabase/supabase-js', '@supabase/ssr', '@supabase/postgrest-js'],
    clientExports: ['createClient', 'createServerClient', 'createBrowserClient', 'SupabaseClient', 'PostgrestClient'],
    clientTypes: ['SupabaseClient', 'PostgrestClient'],
    clientFactories: ['schema'],
    clientCallbacks: [],
    receiverNames: /supabase/i,
    conditionStyle: 'where-chain',
    writes: [
      { method: 'update', kind: 'update', values: { arg: 0, link: 'update' } },
      { method: 'delete', kind: 'delete' },
      // ON CONFLICT DO UPDATE, which PostgREST cannot filter; `ignoreDuplicates: true` only inserts.
      { method: 'upsert', kind: 'upsert', values: { arg: 0, link: 'upsert' } },
    ],
    // `{ data, error, count }`: `count` only with `{ count: 'exact' }`, `data` only after `.select()`.
    result: { type: 'count', read: ['count'], rows: ['data'] },
    fence: { compare: ".lt('{column}', {token})", store: '{column}: {token}' },
  },
  {
    id: 'typeorm-query-builder',
    family: 'typeorm',
    packages: ['typeorm'],
    clientExports: [],
    clientTypes: ['SelectQueryBuilder', 'UpdateQueryBuilder', 'DeleteQueryBuilder'],
    clientFactories: ['createQueryBuilder'],
    clientCallbacks: [],
    conditionStyle: 'where-chain',
    writes: [
      { method: 'update', kind: 'update', values: { arg: 0, link: 'set' } },
      { method: 'delete', kind: 'delete' },
    ],
    result: { type: 'count', read: ['affected'], misleading: ['raw', 'generatedMaps'] },
    fence: { compare: ".andWhere('{column} < :token', { token: {token} })", store: '{column}: {token}' },
    relative: { sqlValues: { arrow: true } },
  },
  {
    // pogi: tables read off a schema (`pgdb.public.users`, a transaction's `tx.public.users`);
    // conditions name the operator after the column (`{ 'fence_token <': token }`).
    id: 'pogi',
    family: 'object',
    packages: ['pogi'],
    clientExports: ['PgDb'],
    clientTypes: ['PgDb', 'PgSchema', 'PgTable'],
    clientFactories: ['transactionBegin', 'connect'],
    clientCallbacks: [],
    // Last resort: what a schema is read off (`pgdb.<schema>.<table>`, `tx.<schema>.<table>`).
    receiverNames: /^(?:pgdb|pgDb|tx|trx|transaction)$/,
    conditionStyle: 'filter',
    writes: [
      { method: 'update', kind: 'update', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'updateAndGet', kind: 'update', filter: { arg: 0 }, values: { arg: 1 }, result: { type: 'rows', read: ['length'] } },
      { method: 'updateOne', kind: 'update', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'updateAndGetOne', kind: 'update', filter: { arg: 0 }, values: { arg: 1 }, result: { type: 'record' } },
      { method: 'upsert', kind: 'upsert', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'delete', kind: 'delete', filter: { arg: 0 } },
      { method: 'deleteOne', kind: 'delete', filter: { arg: 0 } },
      { method: 'deleteAndGet', kind: 'delete', filter: { arg: 0 }, result: { type: 'rows', read: ['length'] } },
      { method: 'deleteAndGetOne', kind: 'delete', filter: { arg: 0 }, result: { type: 'record' } },
    ],
    result: { type: 'number' },
    fence: { compare: "'{column} <': {token}", store: '{column}: {token}' },
  },
  {
    id: 'dynamodb',
    family: 'dynamodb',
    packages: ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb', 'aws-sdk', 'aws-sdk/clients/dynamodb'],
    clientExports: ['DynamoDBDocumentClient', 'DynamoDBClient', 'DynamoDB', 'DocumentClient', 'DynamoDBDocument'],
    clientTypes: ['DynamoDBDocumentClient', 'DynamoDBClient', 'DynamoDB', 'DocumentClient', 'DynamoDBDocument'],
    clientFactories: ['from'],
    clientCallbacks: [],
    conditionStyle: 'condition-expression',
    writes: [
      // v3: client.send(new UpdateCommand(input)); v2 DocumentClient: client.update(input).promise().
      { method: 'UpdateCommand', kind: 'update', filter: { arg: 0 }, values: { arg: 0, property: ['UpdateExpression'] } },
      { method: 'PutCommand', kind: 'replace', filter: { arg: 0 }, values: { arg: 0, property: ['Item'] } },
      { method: 'DeleteCommand', kind: 'delete', filter: { arg: 0 } },
      { method: 'UpdateItemCommand', kind: 'update', filter: { arg: 0 }, values: { arg: 0, property: ['UpdateExpression'] } },
      { method: 'PutItemCommand', kind: 'replace', filter: { arg: 0 }, values: { arg: 0, property: ['Item'] } },
      { method: 'DeleteItemCommand', kind: 'delete', filter: { arg: 0 } },
      { method: 'update', kind: 'update', filter: { arg: 0 }, values: { arg: 0, property: ['UpdateExpression'] } },
      { method: 'put', kind: 'replace', filter: { arg: 0 }, values: { arg: 0, property: ['Item'] } },
      { method: 'delete', kind: 'delete', filter: { arg: 0 } },
      { method: 'updateItem', kind: 'update', filter: { arg: 0 }, values: { arg: 0, property: ['UpdateExpression'] } },
      { method: 'putItem', kind: 'replace', filter: { arg: 0 }, values: { arg: 0, property: ['Item'] } },
      { method: 'deleteItem', kind: 'delete', filter: { arg: 0 } },
    ],
    result: DYNAMO_REFUSED,
    relative: { updateExpression: 'UpdateExpression' },
    fence: { compare: 'ConditionExpression: \'{column} < :token\'', store: 'SET {column} = :token' },
  },
  // --- Key-value stores, HTTP, object storage -------------------------------------------
  {
    id: 'redis',
    family: 'redis',
    packages: REDIS_CLIENT_PACKAGES,
    clientExports: ['default', 'Redis', 'Cluster', 'createClient', 'createCluster', 'kv'],
    // `RedisClient`: node-redis 3's class, often promisified (`hsetAsync`, see `PROMISIFIED_SUFFIX`).
    clientTypes: ['Redis', 'Cluster', 'RedisClientType', 'RedisClusterType', 'RedisClient'],
    clientFactories: ['connect', 'duplicate', 'multi', 'pipeline'],
    clientCallbacks: [],
    // A receiver nothing resolves (`this.redisService` of whatever class a decorator wraps) counts by
    // these names; a file that sends it a command only Redis has makes it a client anyway.
    receiverNames: /^(?:redis|redisClient|redisService|redisCache|redisStore|redisConnection|ioredis|valkey|valkeyClient)$/i,
    // Plain commands that overwrite (a sorted-set member's score too), or remove what a newer
    // holder may have put back (a trim by the count this holder read, a member removed); appends
    // (LPUSH, XADD, SADD), counters and whole-key deletes (cache invalidation, safe whenever it
    // lands) are not reported, nor a ZADD with `GT`/`LT`/`NX` (see `api-writes.ts`).
    conditionStyle: 'script',
    writes: [
      ...['set', 'hset', 'hmset', 'mset', 'setex', 'psetex', 'hSet', 'mSet', 'setEx', 'pSetEx', 'hmSet', 'json.set', 'lset', 'lSet', 'zadd', 'zAdd'].map((method) => ({ method, kind: 'replace' as const })),
      ...['ltrim', 'lTrim', 'lrem', 'lRem', 'srem', 'sRem', 'zrem', 'zRem', 'zremrangebyscore', 'zRemRangeByScore', 'zremrangebyrank', 'zRemRangeByRank', 'hdel', 'hDel'].map((method) => ({ method, kind: 'delete' as const })),
    ],
    result: { type: 'reply' },
    fence: { compare: "if tonumber(redis.call('get', KEYS[2]) or '0') < tonumber(ARGV[2]) then", store: "redis.call('set', KEYS[2], ARGV[2])" },
  },
  {
    id: 'fetch',
    family: 'http',
    packages: [],
    clientExports: ['fetch'],
    clientTypes: [],
    clientFactories: [],
    clientCallbacks: [],
    conditionStyle: 'request',
    writes: ['PUT', 'PATCH', 'DELETE'].map((method) => ({ method, kind: 'update' as const })),
    result: { type: 'status', read: ['ok', 'status'] },
    fence: { compare: "'If-Match': {token}", store: "'Fence-Token': String({token})" },
  },
  {
    id: 'axios',
    family: 'http',
    packages: ['axios', 'got', 'ky', 'undici', 'superagent'],
    clientExports: ['default', 'create', 'extend', 'request'],
    clientTypes: ['AxiosInstance', 'Got', 'KyInstance'],
    clientFactories: ['create', 'extend'],
    clientCallbacks: [],
    receiverNames: /^(?:axios|http|httpClient|client|api|got|ky|request|this\.http|this\.httpClient|this\.api)$/i,
    conditionStyle: 'request',
    writes: ['put', 'patch', 'delete'].map((method) => ({ method, kind: 'update' as const })),
    // Non-2xx responses reject (axios `validateStatus` aside).
    result: { type: 'exception', names: ['AxiosError', 'HTTPError', 'RequestError'], codes: ['409', '412'] },
    fence: { compare: "'If-Match': {token}", store: "'Fence-Token': String({token})" },
  },
  {
    // ClickHouse: `command` and `exec` send statements that return no rows (mutations, DDL, INSERT ...
    // SELECT); `ALTER TABLE ... DELETE/UPDATE` and lightweight `DELETE` run asynchronously and cannot
    // compare a stored value, so none is fenced. `insert` appends rows (like a plain SQL INSERT: not read).
    id: 'clickhouse',
    family: 'clickhouse',
    packages: ['@clickhouse/client', '@clickhouse/client-web'],
    clientExports: ['createClient'],
    clientTypes: ['ClickHouseClient', 'NodeClickHouseClient', 'WebClickHouseClient'],
    clientFactories: [],
    clientCallbacks: [],
    conditionStyle: 'none',
    writes: [
      { method: 'command', kind: 'update', values: { arg: 0, property: ['query'] } },
      { method: 'exec', kind: 'update', values: { arg: 0, property: ['query'] } },
    ],
    result: { type: 'none' },
    fence: { compare: '', store: '' },
  },
  {
    id: 's3',
    family: 's3',
    // v3 commands sent with `client.send(new PutObjectCommand(...))`; the aggregated v3 `S3` client has
    // the same operations as methods (`s3.deleteObject({...})`).
    packages: ['@aws-sdk/client-s3'],
    clientExports: ['S3Client', 'S3'],
    clientTypes: ['S3Client', 'S3'],
    clientFactories: [],
    clientCallbacks: [],
    conditionStyle: 'precondition',
    writes: [
      { method: 'PutObjectCommand', kind: 'replace' },
      { method: 'CopyObjectCommand', kind: 'replace' },
      // A late delete removes the object a newer holder wrote (or deletes what it still needs).
      { method: 'DeleteObjectCommand', kind: 'delete' },
      { method: 'DeleteObjectsCommand', kind: 'delete' },
      { method: 'putObject', kind: 'replace' },
      { method: 'copyObject', kind: 'replace' },
      { method: 'deleteObject', kind: 'delete' },
      { method: 'deleteObjects', kind: 'delete' },
    ],
    result: { type: 'exception', names: ['PreconditionFailed', 'S3ServiceException'], codes: ['PreconditionFailed', '412'] },
    fence: { compare: 'IfMatch: {token}', store: '' },
  },
  {
    // aws-sdk v2: `new S3()` of `import { S3 } from 'aws-sdk'`, its operations as methods (`s3.deleteObject(params).promise()`).
    id: 's3-v2',
    family: 's3',
    packages: ['aws-sdk', 'aws-sdk/clients/s3'],
    clientExports: ['S3'],
    clientTypes: ['S3'],
    clientFactories: [],
    clientCallbacks: [],
    conditionStyle: 'precondition',
    writes: ['putObject', 'copyObject', 'deleteObject', 'deleteObjects'].map((method) => ({ method, kind: method.startsWith('delete') ? ('delete' as const) : ('replace' as const) })),
    result: { type: 'exception', names: ['PreconditionFailed'], codes: ['PreconditionFailed', '412'] },
    fence: { compare: 'IfMatch: {token}', store: '' },
  },
];

const byId = new Map(SINK_MODELS.map((m) => [m.id, m]));

export function sinkModel(id: string): SinkModel {
  const model = byId.get(id);
  if (!model) throw new Error(`no sink model ${id}`);
  return model;
}

/** The models of one family, in catalog order. */
export function sinkModelsOf(family: SinkFamily): SinkModel[] {
  return SINK_MODELS.filter((m) => m.family === family);
}

/** The catalog entry for a write method of a model, if the model has one by that name. */
export function sinkWrite(model: SinkModel, method: string): SinkWrite | undefined {
  return model.writes.find((w) => w.method === method);
}

/** What a write of `model` through `method` resolves to. */
export function resultShapeOf(model: SinkModel, method: string | undefined): ResultShape {
  if (method !== undefined) {
    const sql = model.sqlResults?.[method];
    if (sql) return sql;
    const write = sinkWrite(model, method);
    if (write?.result) return write.result;
  }
  return model.result;
}

/** Every SQL method and tag of the catalog: a call by one of these names may send SQL text. */
export const SQL_METHOD_NAMES: ReadonlySet<string> = new Set(SINK_MODELS.flatMap((m) => m.sqlMethods ?? []));
/** Every method that runs an array of statements as one transaction (`prisma.$transaction([...])`). */
export const BATCH_TRANSACTION_METHODS: ReadonlySet<string> = new Set(SINK_MODELS.flatMap((m) => m.batchTransactions ?? []));
export const SQL_TAG_NAMES: ReadonlySet<string> = new Set(SINK_MODELS.flatMap((m) => (m.sqlTags ?? []).filter((t) => !t.includes('.'))));

/** Count members any SQL driver result may carry: read one of these and the result was checked. */
export const ANY_COUNT_MEMBER: ReadonlySet<string> = new Set(
  SINK_MODELS.flatMap((m) => [m.result, ...m.writes.map((w) => w.result), ...Object.values(m.sqlResults ?? {})]).flatMap((r) => (r && 'read' in r ? r.read : [])),
);

/**
 * The members of a result object that hold the rows a write returned (Supabase `{ data, error }`
 * after `.select()`), from the catalog's result shapes: `const { data: rows } = await ...insert(x).select()`.
 */
export const RESULT_ROWS_MEMBERS: ReadonlySet<string> = new Set(SINK_MODELS.flatMap((m) => (m.result.type === 'count' ? (m.result.rows ?? []) : [])));
