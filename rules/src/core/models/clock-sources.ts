/**
 * Where clock and random values come from, as data: global APIs, package exports and SQL
 * functions. None of them is a durable monotonic counter, so none can issue a fence token.
 *
 * `clock`: wall or monotonic time, repeats and goes backwards across machines and restarts.
 * `random`: no order at all. `time-id`: ids that sort by creation time (UUID v1/v7, ULID):
 * ordered within one generator, not across machines.
 */
export type OriginKind = 'clock' | 'random' | 'time-id';

export interface ClockSource {
  kind: OriginKind;
  /** Only a source when called without arguments (`new Date()`, `dayjs()`; `dayjs(row.at)` parses). */
  noArgs?: boolean;
}

/** Calls on globals, keyed by their dotted path (`Date.now`, `process.hrtime.bigint`). */
export const GLOBAL_CLOCK_CALLS: ReadonlyMap<string, ClockSource> = new Map([
  ['Date.now', { kind: 'clock' }],
  ['Date', { kind: 'clock', noArgs: true }],
  ['performance.now', { kind: 'clock' }],
  ['process.hrtime', { kind: 'clock' }],
  ['process.hrtime.bigint', { kind: 'clock' }],
  ['process.uptime', { kind: 'clock' }],
  ['Temporal.Now.instant', { kind: 'clock' }],
  ['Temporal.Now.zonedDateTimeISO', { kind: 'clock' }],
  ['Temporal.Now.plainDateTimeISO', { kind: 'clock' }],
  ['Math.random', { kind: 'random' }],
  ['crypto.randomUUID', { kind: 'random' }],
  ['crypto.getRandomValues', { kind: 'random' }],
]);

/** Roots of global calls, for a cheap first test before any scope lookup. */
export const GLOBAL_CLOCK_ROOTS: ReadonlySet<string> = new Set(['Date', 'performance', 'process', 'Temporal', 'Math', 'crypto']);
/** `globalThis.crypto.randomUUID()` and friends: prefixes that still name the global. */
export const GLOBAL_OBJECTS: ReadonlySet<string> = new Set(['globalThis', 'window', 'self', 'global']);

export interface PackageClockSources {
  packages: readonly string[];
  /** Export path (`randomUUID`, `DateTime.now`, `default`) -> source. */
  exports: ReadonlyMap<string, ClockSource>;
  /** The default export is the module namespace (CommonJS and Node built-ins). */
  defaultIsNamespace?: boolean;
}

export const PACKAGE_CLOCK_SOURCES: readonly PackageClockSources[] = [
  {
    packages: ['crypto', 'node:crypto'],
    defaultIsNamespace: true,
    exports: new Map([
      ['randomUUID', { kind: 'random' }],
      ['randomBytes', { kind: 'random' }],
      ['randomInt', { kind: 'random' }],
      ['getRandomValues', { kind: 'random' }],
      ['pseudoRandomBytes', { kind: 'random' }],
      ['webcrypto.randomUUID', { kind: 'random' }],
    ]),
  },
  { packages: ['perf_hooks', 'node:perf_hooks'], defaultIsNamespace: true, exports: new Map([['performance.now', { kind: 'clock' }]]) },
  {
    packages: ['process', 'node:process'],
    defaultIsNamespace: true,
    exports: new Map([
      ['hrtime', { kind: 'clock' }],
      ['hrtime.bigint', { kind: 'clock' }],
      ['uptime', { kind: 'clock' }],
    ]),
  },
  { packages: ['os', 'node:os'], defaultIsNamespace: true, exports: new Map([['uptime', { kind: 'clock' }]]) },
  {
    packages: ['uuid'],
    defaultIsNamespace: true,
    exports: new Map([
      ['v1', { kind: 'time-id' }],
      ['v4', { kind: 'random' }],
      ['v6', { kind: 'time-id' }],
      ['v7', { kind: 'time-id' }],
    ]),
  },
  { packages: ['uuid/v4'], exports: new Map([['default', { kind: 'random' }]]) },
  { packages: ['uuid/v1'], exports: new Map([['default', { kind: 'time-id' }]]) },
  { packages: ['nanoid', 'nanoid/non-secure'], exports: new Map([['nanoid', { kind: 'random' }]]) },
  { packages: ['ulid', 'ulidx'], exports: new Map([['ulid', { kind: 'time-id' }]]) },
  // KSUIDs start with a second-resolution timestamp: ordered per machine clock only.
  {
    packages: ['ksuid'],
    exports: new Map([
      ['default.random', { kind: 'time-id' }],
      ['default.randomSync', { kind: 'time-id' }],
    ]),
  },
  { packages: ['@paralleldrive/cuid2'], exports: new Map([['createId', { kind: 'random' }]]) },
  { packages: ['cuid'], exports: new Map([['default', { kind: 'time-id' }]]) },
  { packages: ['shortid'], defaultIsNamespace: true, exports: new Map([['generate', { kind: 'random' }]]) },
  { packages: ['dayjs'], exports: new Map([['default', { kind: 'clock', noArgs: true }]]) },
  {
    packages: ['moment'],
    exports: new Map([
      ['default', { kind: 'clock', noArgs: true }],
      ['default.now', { kind: 'clock' }],
      ['default.utc', { kind: 'clock', noArgs: true }],
    ]),
  },
  {
    packages: ['luxon'],
    exports: new Map([
      ['DateTime.now', { kind: 'clock' }],
      ['DateTime.utc', { kind: 'clock', noArgs: true }],
      ['DateTime.local', { kind: 'clock', noArgs: true }],
    ]),
  },
];

/** Calls that keep a clock or random value's nature: conversions, rounding, formatting. */
export const VALUE_KEEPING_FUNCTIONS: ReadonlySet<string> = new Set([
  'Number', 'BigInt', 'String', 'parseInt', 'parseFloat', 'Math.floor', 'Math.round', 'Math.trunc', 'Math.ceil', 'Math.abs', 'Date.parse',
]);
/** Methods on a value that keep its nature (`new Date().getTime()`, `randomBytes(8).toString('hex')`). */
export const VALUE_KEEPING_METHODS: ReadonlySet<string> = new Set([
  'getTime', 'valueOf', 'toString', 'toFixed', 'toPrecision', 'toISOString', 'toJSON', 'padStart', 'toUTCString',
  'readBigUInt64BE', 'readBigUInt64LE', 'readUInt32BE', 'readUInt32LE', 'readUIntBE', 'readBigInt64BE',
  'unix', 'toMillis', 'toSeconds', 'toUnixInteger', 'epochMilliseconds', 'epochNanoseconds',
  // KSUID: `KSUID.randomSync().string`.
  'string',
]);

/**
 * Methods that step a clock value back, or convert it, and keep it a point no later than the
 * clock: `dayjs().subtract(7, 'day')`, `DateTime.now().minus({ days: 1 })`, `.startOf('day')`,
 * besides the value-keeping conversions above (`getTime()`, `toISOString()`).
 */
export const CLOCK_STEP_BACK_METHODS: ReadonlySet<string> = new Set(['subtract', 'minus', 'sub', 'startOf', 'toDate', 'toJSDate', 'toSQL', ...VALUE_KEEPING_METHODS]);
/** date-fns style functions that step a date back: `subDays(new Date(), 90)`. */
export const DATE_STEP_BACK_FUNCTION = /^sub(?:Milliseconds|Seconds|Minutes|Hours|Days|Weeks|Months|Years)$/;
/** SQL functions that step a time back or convert it (`now() - make_interval(days => 7)`, `date_trunc('day', now())`). */
export const SQL_TIME_STEP_FUNCTIONS: ReadonlySet<string> = new Set(['date_sub', 'subdate', 'to_timestamp', 'extract', 'date_trunc', 'timezone', 'make_interval']);

/** SQL functions that read the database clock. */
export const SQL_CLOCK_FUNCTIONS: ReadonlySet<string> = new Set([
  'now', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp', 'timeofday', 'current_timestamp', 'localtimestamp', 'current_date',
  'unix_timestamp', 'utc_timestamp', 'sysdate', 'current_time', 'localtime', 'getdate', 'sysdatetime',
]);
/** SQL functions that return random values. */
export const SQL_RANDOM_FUNCTIONS: ReadonlySet<string> = new Set([
  'random', 'rand', 'gen_random_uuid', 'uuid_generate_v4', 'uuid', 'uuid_generate_v1', 'uuid_generate_v1mc', 'newid',
]);
