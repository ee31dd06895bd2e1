// The generated project corpus: one TypeScript application of several hundred modules, shaped
// like the services fencelint is for. Shared lock helpers (a Redis `withLock` and an
// acquire/release pair, a redlock-based lock service, a PostgreSQL advisory-lock helper) live
// in `src/shared/` behind a barrel and are used from most service modules; each domain has
// repositories over knex; plain modules (mappers, validation, pricing) hold no lock at all.
// Most writes under a lock are fenced; a known few are not, and carry an `// expect:` marker
// so the benchmark can check that it measured the analysis finding exactly those.
//
// Deterministic: the same text on every run, written under .tmp/ (not committed) and
// rewritten only when it differs.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROJECT_CORPUS_DIR = '.tmp/bench/project-corpus';

/** The least the issue asks of the generated corpus. */
export const MIN_PROJECT_FILES = 300;
export const MIN_PROJECT_LINES = 50_000;

const DOMAINS = ['billing', 'orders', 'inventory', 'shipping', 'accounts', 'payouts', 'catalog', 'subscriptions', 'notifications', 'reports'];
const ENTITIES = ['invoice', 'order', 'item', 'parcel', 'account', 'payout', 'product', 'plan', 'message', 'report', 'refund', 'coupon'];
const SERVICES_PER_DOMAIN = 22;
const REPOSITORIES_PER_DOMAIN = 4;
const PLAIN_MODULES_PER_DOMAIN = 5;

const pascal = (word) => word[0].toUpperCase() + word.slice(1);
const MARK = '// expect: fencelint/require-fence-condition';

const shared = {
  'src/shared/redis.ts': `import Redis from 'ioredis';

export const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
`,
  'src/shared/db.ts': `import { Pool } from 'pg';

export const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
`,
  'src/shared/knex.ts': `import knex from 'knex';

export const db = knex({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 1, max: 10 } });
`,
  'src/shared/locks/redis-lock.ts': `import { randomUUID } from 'node:crypto';
import { redis } from '../redis';

const LOCK_TTL_MS = 30_000;

// Deletes the key only while it still holds this owner's id.
const RELEASE_SCRIPT = \`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0\`;

export interface HeldLock {
  key: string;
  owner: string;
  /** From a persisted Redis counter: grows with every grant of this key. */
  fenceToken: number;
}

/** Takes \`lock:<key>\` with a fresh fence token; null when another worker holds it. */
export async function acquireLock(key: string, ttlMs = LOCK_TTL_MS): Promise<HeldLock | null> {
  const owner = randomUUID();
  const reply = await redis.set(\`lock:\${key}\`, owner, 'PX', ttlMs, 'NX');
  if (reply !== 'OK') return null;
  const fenceToken = await redis.incr(\`fence:\${key}\`);
  return { key, owner, fenceToken };
}

export async function releaseLock(lock: HeldLock): Promise<void> {
  await redis.eval(RELEASE_SCRIPT, 1, \`lock:\${lock.key}\`, lock.owner);
}

/** Runs \`fn\` with the lease's fence token while this worker holds \`lock:<key>\`. */
export async function withLock<T>(key: string, fn: (fenceToken: number) => Promise<T>): Promise<T> {
  const lock = await acquireLock(key);
  if (!lock) throw new Error(\`lock \${key} is held by another worker\`);
  try {
    return await fn(lock.fenceToken);
  } finally {
    await releaseLock(lock);
  }
}
`,
  'src/shared/locks/lock-service.ts': `import type Redis from 'ioredis';
import Redlock from 'redlock';

const LOCK_TTL_MS = 10_000;

/** The application's one way to run something under a distributed lock, with a fence token. */
export class LockService {
  constructor(
    private readonly redlock: Redlock,
    private readonly redis: Redis,
  ) {}

  run<T>(key: string, work: (fenceToken: number) => Promise<T>): Promise<T> {
    return this.redlock.using([\`lock:\${key}\`], LOCK_TTL_MS, async () => {
      // A persisted counter per key: every holder gets a larger number than the one before.
      const fenceToken = await this.redis.incr(\`fence:\${key}\`);
      return work(fenceToken);
    });
  }
}
`,
  'src/shared/locks/advisory.ts': `import type { PoolClient } from 'pg';
import { pool } from '../db';

/** Runs \`fn\` inside a transaction that holds the advisory lock for \`key\` until it commits. */
export async function inLockedTransaction<T>(key: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
`,
  'src/shared/locks/index.ts': `export { acquireLock, releaseLock, withLock } from './redis-lock';
export type { HeldLock } from './redis-lock';
export { LockService } from './lock-service';
export { inLockedTransaction } from './advisory';
`,
  'src/shared/clock.ts': `/** Wall-clock helpers for display and scheduling, never for ordering writes. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function addMinutes(at: Date, minutes: number): Date {
  return new Date(at.getTime() + minutes * 60_000);
}

export function startOfDay(at: Date): Date {
  const copy = new Date(at);
  copy.setUTCHours(0, 0, 0, 0);
  return copy;
}
`,
  'src/shared/errors.ts': `export class NotFoundError extends Error {
  constructor(readonly what: string, readonly id: string) {
    super(\`\${what} \${id} not found\`);
  }
}

export class StaleLeaseError extends Error {
  constructor(readonly what: string, readonly id: string) {
    super(\`\${what} \${id}: a newer lock holder wrote it first\`);
  }
}

export class ValidationError extends Error {
  constructor(readonly field: string, readonly reason: string) {
    super(\`\${field}: \${reason}\`);
  }
}
`,
};

function repository(domain, entity) {
  const Entity = pascal(entity);
  const table = `${domain}_${entity}s`;
  return `import type { Knex } from 'knex';

export interface ${Entity} {
  id: string;
  status: string;
  amount: number;
  owner_id: string;
  fence_token: number;
  updated_at: Date;
}

/** Rows of \`${table}\`; every write under a lease takes its fence token. */
export class ${Entity}Repository {
  constructor(private readonly db: Knex) {}

  findById(id: string): Promise<${Entity} | undefined> {
    return this.db<${Entity}>('${table}').where({ id }).first();
  }

  listByOwner(ownerId: string, limit = 50): Promise<${Entity}[]> {
    return this.db<${Entity}>('${table}').where({ owner_id: ownerId }).orderBy('updated_at', 'desc').limit(limit);
  }

  countByStatus(status: string): Promise<Array<{ count: number }>> {
    return this.db('${table}').where({ status }).count({ count: '*' });
  }

  /** 0 rows: a newer lock holder has written this row; the caller must not report success. */
  setStatus(id: string, status: string, fenceToken: number): Promise<number> {
    return this.db('${table}')
      .where({ id })
      .andWhere('fence_token', '<', fenceToken)
      .update({ status, fence_token: fenceToken, updated_at: this.db.fn.now() });
  }

  /** Written only by the nightly import, which holds no lock. */
  setAmount(id: string, amount: number): Promise<number> {
    return this.db('${table}').where({ id }).update({ amount, updated_at: this.db.fn.now() });
  }

  /** An audit row per change: appends, never overwrites. */
  recordEvent(id: string, event: string): Promise<number[]> {
    return this.db('${table}_events').insert({ ${entity}_id: id, event });
  }
}
`;
}

function plainModule(domain, index) {
  const name = ['mapper', 'validation', 'pricing', 'format', 'filters'][index];
  const Domain = pascal(domain);
  const lines = [`// ${Domain}: ${name} helpers, pure functions over plain values.`, ''];
  lines.push(`export interface ${Domain}Row {`, '  id: string;', '  status: string;', '  amount: number;', '  currency: string;', '  tags: string[];', '  createdAt: string;', '}', '');
  for (let i = 0; i < 12; i++) {
    lines.push(
      `/** ${name} step ${i} for ${domain} rows. */`,
      `export function ${name}${Domain}${i}(rows: ${Domain}Row[], threshold = ${10 + i}): ${Domain}Row[] {`,
      '  const out: ' + `${Domain}Row[] = [];`,
      '  for (const row of rows) {',
      `    if (row.amount < threshold) continue;`,
      `    const tags = row.tags.filter((tag) => tag.length > ${i % 4}).map((tag) => tag.toLowerCase());`,
      `    out.push({ ...row, tags, status: row.status.trim() || 'open' });`,
      '  }',
      `  return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));`,
      '}',
      '',
    );
  }
  return `${lines.join('\n')}`;
}

/** One service module; `variant` picks which writes are left unfenced. */
function service(domain, index, entities) {
  const Domain = pascal(domain);
  const entity = entities[index % entities.length];
  const Entity = pascal(entity);
  const table = `${domain}_${entity}s`;
  const feature = `${entity}Step${index}`;
  const Feature = pascal(feature);
  // Every fifth module leaves a raw write under withLock unfenced, every seventh a repository
  // write under the lock service, every eleventh a write in an acquire/release pair.
  const rawUnfenced = index % 5 === 2;
  const repoUnfenced = index % 7 === 3;
  const pairUnfenced = index % 11 === 5;
  const out = [];
  out.push(
    `import { acquireLock, releaseLock, withLock, inLockedTransaction, type LockService } from '../../shared/locks';`,
    `import { pool } from '../../shared/db';`,
    `import { StaleLeaseError, NotFoundError, ValidationError } from '../../shared/errors';`,
    `import { nowIso } from '../../shared/clock';`,
    `import type { ${Entity}Repository } from '../repositories/${entity}.repository';`,
    `import { mapper${Domain}${index % 12}, type ${Domain}Row } from '../lib/mapper';`,
    `import { validation${Domain}${(index + 3) % 12}, validation${Domain}${(index + 5) % 12} } from '../lib/validation';`,
    '',
    `/** ${Domain} / ${feature}: takes the ${entity} lock before it changes a row. */`,
    '',
  );
  // 1. A raw write under the callback helper.
  out.push(
    `export async function settle${Feature}(id: string, reference: string): Promise<void> {`,
    `  await withLock(\`${domain}:${entity}:\${id}\`, async (fenceToken) => {`,
    `    const { rows } = await pool.query('SELECT status FROM ${table} WHERE id = $1', [id]);`,
    `    if (rows.length === 0) throw new NotFoundError('${entity}', id);`,
    `    if (rows[0].status === 'settled') return;`,
  );
  if (rawUnfenced) {
    out.push(`    await pool.query("UPDATE ${table} SET status = 'settled', reference = $1 WHERE id = $2", [reference, id]); ${MARK}`);
  } else {
    out.push(
      '    const { rowCount } = await pool.query(',
      `      "UPDATE ${table} SET status = 'settled', reference = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3",`,
      '      [reference, id, fenceToken],',
      '    );',
      `    if (rowCount === 0) throw new StaleLeaseError('${entity}', id);`,
    );
  }
  out.push('  });', '}', '');
  // 2. A repository write under the injected lock service.
  out.push(
    `export class ${Feature}Service {`,
    '  constructor(',
    '    private readonly locks: LockService,',
    `    private readonly ${entity}s: ${Entity}Repository,`,
    '  ) {}',
    '',
    `  close(id: string): Promise<void> {`,
    `    return this.locks.run(\`${domain}:${entity}:\${id}\`, async (fenceToken) => {`,
    `      const row = await this.${entity}s.findById(id);`,
    `      if (!row || row.status === 'closed') return;`,
  );
  if (repoUnfenced) {
    out.push(`      await this.${entity}s.setAmount(id, 0); ${MARK}`);
  } else {
    out.push(
      `      const updated = await this.${entity}s.setStatus(id, 'closed', fenceToken);`,
      `      if (updated === 0) throw new StaleLeaseError('${entity}', id);`,
    );
  }
  out.push(
    `      await this.${entity}s.recordEvent(id, 'closed');`,
    '    });',
    '  }',
    '',
    `  async history(ownerId: string): Promise<string[]> {`,
    `    const rows = await this.${entity}s.listByOwner(ownerId);`,
    "    return rows.map((row) => `${row.id}:${row.status}`);",
    '  }',
    '}',
    '',
  );
  // 3. An acquire/release pair with the token from the held lock.
  out.push(
    `export async function reserve${Feature}(id: string, quantity: number): Promise<boolean> {`,
    `  const lock = await acquireLock(\`${domain}:reserve:\${id}\`);`,
    '  if (!lock) return false;',
    '  try {',
    `    const { rows } = await pool.query('SELECT available FROM ${table} WHERE id = $1', [id]);`,
    '    const available = Number(rows[0]?.available ?? 0);',
    '    if (available < quantity) return false;',
  );
  if (pairUnfenced) {
    out.push(`    await pool.query('UPDATE ${table} SET available = $1 WHERE id = $2', [available - quantity, id]); ${MARK}`);
    out.push('    return true;');
  } else {
    out.push(
      '    const { rowCount } = await pool.query(',
      `      'UPDATE ${table} SET available = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3',`,
      '      [available - quantity, id, lock.fenceToken],',
      '    );',
      '    return rowCount === 1;',
    );
  }
  out.push('  } finally {', '    await releaseLock(lock);', '  }', '}', '');
  // 4. Writes in the transaction that holds an advisory lock: cannot outlive it.
  out.push(
    `export async function rollup${Feature}(day: string): Promise<void> {`,
    `  await inLockedTransaction(\`${domain}:rollup:\${day}\`, async (client) => {`,
    `    await client.query('DELETE FROM ${table}_daily WHERE day = $1', [day]);`,
    `    await client.query('INSERT INTO ${table}_daily (day, total) SELECT $1, sum(amount) FROM ${table} WHERE day = $1', [day]);`,
    '  });',
    '}',
    '',
  );
  // 5. A write that holds no lock at all.
  out.push(
    `export async function touch${Feature}(id: string): Promise<void> {`,
    `  await pool.query('UPDATE ${table} SET seen_at = now() WHERE id = $1', [id]);`,
    '}',
    '',
  );
  // 6. Plain business logic, the bulk of a real module.
  for (let i = 0; i < 9; i++) {
    out.push(
      `/** Rule ${i} of ${feature}: which rows the next batch takes. */`,
      `export function select${Feature}${i}(rows: ${Domain}Row[], budget: number): ${Domain}Row[] {`,
      `  const valid = validation${Domain}${(index + 3) % 12}(mapper${Domain}${index % 12}(rows));`,
      '  const picked: ' + `${Domain}Row[] = [];`,
      '  let spent = 0;',
      '  for (const row of valid) {',
      `    if (row.currency !== '${['EUR', 'USD', 'GBP'][i % 3]}') continue;`,
      '    if (spent + row.amount > budget) break;',
      `    if (row.tags.includes('hold-${i}')) continue;`,
      '    spent += row.amount;',
      '    picked.push(row);',
      '  }',
      `  if (picked.length === 0 && budget < 0) throw new ValidationError('budget', 'negative');`,
      '  return picked;',
      '}',
      '',
    );
  }
  out.push(
    `export function describe${Feature}(rows: ${Domain}Row[]): string {`,
    `  const open = validation${Domain}${(index + 5) % 12}(rows).length;`,
    "  return `${open} of ${rows.length} rows open at ${nowIso()}`;",
    '}',
    '',
  );
  return out.join('\n');
}

/** Relative path -> text, for the whole corpus. */
export function projectCorpusFiles() {
  const files = { ...shared };
  files['tsconfig.json'] = `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'Bundler', strict: true } }, null, 2)}\n`;
  for (const [d, domain] of DOMAINS.entries()) {
    const entities = [ENTITIES[d], ENTITIES[(d + 3) % ENTITIES.length], ENTITIES[(d + 7) % ENTITIES.length], ENTITIES[(d + 10) % ENTITIES.length]].slice(0, REPOSITORIES_PER_DOMAIN);
    for (const entity of entities) files[`src/${domain}/repositories/${entity}.repository.ts`] = repository(domain, entity);
    for (let i = 0; i < PLAIN_MODULES_PER_DOMAIN; i++) {
      const name = ['mapper', 'validation', 'pricing', 'format', 'filters'][i];
      files[`src/${domain}/lib/${name}.ts`] = plainModule(domain, i);
    }
    for (let i = 0; i < SERVICES_PER_DOMAIN; i++) files[`src/${domain}/services/step-${String(i).padStart(2, '0')}.service.ts`] = service(domain, i, entities);
  }
  return files;
}

/** `file:line rule` for every marked line (the findings the corpus is built to contain). */
export function expectedFindings(files) {
  const expected = [];
  for (const [path, text] of Object.entries(files)) {
    text.split('\n').forEach((line, i) => {
      const match = /\/\/ expect: (\S+)$/.exec(line);
      if (match) expected.push(`${path}:${i + 1} ${match[1]}`);
    });
  }
  return expected.sort();
}

/**
 * Writes the corpus under `PROJECT_CORPUS_DIR` (only files whose text changed) and returns
 * its absolute folder, its source files, line count and expected findings.
 */
export function writeProjectCorpus() {
  const dir = join(root, PROJECT_CORPUS_DIR);
  const files = projectCorpusFiles();
  if (existsSync(dir)) {
    // A corpus from an older generator may hold files this one no longer writes.
    const stamp = join(dir, '.files');
    const listed = existsSync(stamp) ? readFileSync(stamp, 'utf8') : '';
    if (listed !== Object.keys(files).join('\n')) rmSync(dir, { recursive: true, force: true });
  }
  let lines = 0;
  const sources = [];
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
    if (path.endsWith('.ts')) {
      sources.push(file);
      lines += text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    }
  }
  writeFileSync(join(dir, '.files'), Object.keys(files).join('\n'));
  return { dir, relativeDir: relative(root, dir).split(sep).join('/'), files: sources.sort(), lines, expected: expectedFindings(files) };
}
