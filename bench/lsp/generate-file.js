// Generates the bench's source file: a realistic TypeScript service module of about 2,000
// lines in which several functions hold a lock while they write (some fenced, some not),
// between ordinary request handling, validation and mapping code. Lines that the bench edits
// carry the marker `/*edit*/` followed by one digit.

const HEADER = `import Redlock from 'redlock';
import { Pool, type PoolClient } from 'pg';
import postgres from 'postgres';
import { Etcd3 } from 'etcd3';
import knex from 'knex';
import { LeaseAuthority } from './lease-authority';

const pool = new Pool({ max: 10 });
const sql = postgres({ max: 5 });
const etcd = new Etcd3();
const db = knex({ client: 'pg' });
const redlock = new Redlock([], { retryCount: 3 });
const authority = new LeaseAuthority(pool);

export interface Account {
  id: string;
  owner: string;
  balance: number;
  currency: 'EUR' | 'USD' | 'GBP';
  updatedAt: Date;
}

export class ValidationError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'ValidationError';
  }
}
`;

/** Plain code: validation, mapping, formatting. No lock. */
function plainChunk(i) {
  return `
export function validateTransfer${i}(input: { from: string; to: string; amount: number; currency: string }): void {
  const limit = /*edit*/0 + 10_000;
  if (!input.from || !input.to) throw new ValidationError('account', 'both accounts are required');
  if (input.from === input.to) throw new ValidationError('to', 'cannot transfer to the same account');
  if (!Number.isFinite(input.amount) || input.amount <= 0) throw new ValidationError('amount', 'amount must be positive');
  if (input.amount > limit) throw new ValidationError('amount', \`amount above the limit of \${limit}\`);
  if (!['EUR', 'USD', 'GBP'].includes(input.currency)) throw new ValidationError('currency', 'unsupported currency');
}

export function toAccount${i}(row: Record<string, any>): Account {
  return {
    id: String(row.id),
    owner: String(row.owner),
    balance: Number(row.balance ?? 0),
    currency: (row.currency as Account['currency']) ?? 'EUR',
    updatedAt: row.updated_at instanceof Date ? row.updated_at : new Date(String(row.updated_at)),
  };
}

export function formatStatement${i}(accounts: Account[], locale = 'en-GB'): string {
  const lines: string[] = [];
  for (const account of accounts) {
    const amount = new Intl.NumberFormat(locale, { style: 'currency', currency: account.currency }).format(account.balance);
    lines.push(\`\${account.owner.padEnd(24)} \${amount.padStart(16)} \${account.updatedAt.toISOString()}\`);
  }
  return lines.join('\\n');
}

export async function listAccounts${i}(owner: string, page = 0, pageSize = 50): Promise<Account[]> {
  const { rows } = await pool.query(
    'SELECT id, owner, balance, currency, updated_at FROM accounts WHERE owner = $1 ORDER BY id LIMIT $2 OFFSET $3',
    [owner, pageSize, page * pageSize],
  );
  return rows.map(toAccount${i});
}
`;
}

/** The article's bug: redlock lease, UPDATE without a fence condition. */
function redlockChunk(i) {
  return `
export async function saveBalance${i}(accountId: string, balance: number): Promise<void> {
  const lock = await redlock.acquire([\`lock:account:\${accountId}\`], 5000);
  try {
    const retries = /*edit*/0;
    await pool.query('UPDATE accounts SET balance = $1, updated_at = now() WHERE id = $2', [balance, accountId]);
    if (retries > 3) console.warn('saveBalance${i} retried', retries);
  } finally {
    await lock.release();
  }
}
`;
}

/** Correct: the authority's token is compared and stored in one statement. */
function fencedChunk(i) {
  return `
export async function saveOwner${i}(accountId: string, owner: string): Promise<boolean> {
  const lease = await authority.acquire(\`account:\${accountId}\`);
  try {
    const attempt = /*edit*/0;
    const result = await pool.query(
      'UPDATE accounts SET owner = $1, fence_token = $2 WHERE id = $3 AND fence_token < $2',
      [owner, lease.fenceToken, accountId],
    );
    if (result.rowCount === 0) throw new Error(\`stale fence token \${lease.fenceToken} (attempt \${attempt})\`);
    return true;
  } finally {
    await authority.release(lease);
  }
}
`;
}

/** etcd lock with a postgres.js tagged template, unfenced. */
function etcdChunk(i) {
  return `
export async function closeAccount${i}(accountId: string, reason: string): Promise<void> {
  await etcd.lock(\`account/\${accountId}\`).do(async () => {
    const code = /*edit*/0;
    await sql\`UPDATE accounts SET status = 'closed', close_reason = \${reason}, close_code = \${code} WHERE id = \${accountId}\`;
  });
}
`;
}

/** knex chain under a redlock lease, unfenced, inside a transaction helper. */
function knexChunk(i) {
  return `
export async function renameAccount${i}(accountId: string, name: string, client?: PoolClient): Promise<number> {
  const lock = await redlock.acquire([\`lock:rename:\${accountId}\`], 3000);
  try {
    const version = /*edit*/0;
    const updated = await db('accounts').where({ id: accountId }).update({ display_name: name, version });
    if (client) await client.query('NOTIFY account_renamed');
    return updated;
  } finally {
    await lock.release();
  }
}
`;
}

const LOCKED = [redlockChunk, fencedChunk, etcdChunk, knexChunk];

/** About `targetLines` lines: plain chunks with a lock scope after every second one. */
export function generateServiceFile(targetLines = 2000) {
  let text = HEADER;
  let i = 0;
  while (text.split('\n').length < targetLines) {
    text += plainChunk(i);
    if (i % 2 === 1) text += LOCKED[((i - 1) / 2) % LOCKED.length](i);
    i++;
  }
  const lines = text.split('\n').slice(0, targetLines);
  // Never cut a function in half: end at the last line that closes a top-level block.
  let end = lines.length;
  while (end > 0 && lines[end - 1] !== '}') end--;
  return `${lines.slice(0, end).join('\n')}\n`;
}

/** Offsets of the digit after each `/*edit*\/` marker. */
export function editPoints(text) {
  const points = [];
  const marker = '/*edit*/';
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) points.push(at + marker.length);
  return points;
}

/**
 * The same service with its lock handling moved into the project's own helper module
 * (`src/locks.ts`), the way applications wrap their lock library: redlock, the lease authority
 * and etcd are taken and released through exported functions, and the service imports them.
 * Same functions, writes and edit points; the findings must be the same as the single file's.
 */
export const LOCK_HELPERS = `import Redlock from 'redlock';
import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';

export const pool = new Pool({ max: 10 });
const etcd = new Etcd3();
const redlock = new Redlock([], { retryCount: 3 });
const authority = new LeaseAuthority(pool);

/** Holds \`lock:<key>\` through redlock for \`ttlMs\`. */
export async function lockResource(key: string, ttlMs = 5000) {
  return redlock.acquire([\`lock:\${key}\`], ttlMs);
}

export async function unlockResource(lock: Awaited<ReturnType<typeof lockResource>>): Promise<void> {
  await lock.release();
}

/** A lease with a fence token from the authority. */
export async function takeLease(key: string) {
  return authority.acquire(key);
}

export async function returnLease(lease: Awaited<ReturnType<typeof takeLease>>): Promise<void> {
  await authority.release(lease);
}

/** Runs \`fn\` while etcd holds \`key\`. */
export async function underEtcdLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return etcd.lock(key).do(fn);
}
`;

export function generateServiceWithHelpers(targetLines = 2000) {
  const single = generateServiceFile(targetLines);
  const header = `import type { PoolClient } from 'pg';
import postgres from 'postgres';
import knex from 'knex';
import { lockResource, pool, returnLease, takeLease, underEtcdLock, unlockResource } from './locks';

const sql = postgres({ max: 5 });
const db = knex({ client: 'pg' });
`;
  const body = single
    .slice(single.indexOf('\nexport interface Account'))
    .replace(/redlock\.acquire\(\[`lock:([^`]*)`\], (\d+)\)/g, (_, key, ttl) => `lockResource(\`${key}\`, ${ttl})`)
    .replace(/await lock\.release\(\)/g, 'await unlockResource(lock)')
    .replace(/authority\.acquire\(/g, 'takeLease(')
    .replace(/authority\.release\(lease\)/g, 'returnLease(lease)')
    .replace(/etcd\.lock\(([^)]*)\)\.do\(/g, 'underEtcdLock($1, ');
  return { service: `${header}${body}`, helpers: LOCK_HELPERS };
}
