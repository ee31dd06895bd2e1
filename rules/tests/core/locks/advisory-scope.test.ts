/**
 * Advisory locks and writes made elsewhere: a function of another module, or of this file,
 * handed the lock's own transaction writes through it and cannot outlive the lock; one that
 * writes through its own pool can.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const tasksModule = `import knex from 'knex';
import type { Knex } from 'knex';
const db = knex({ client: 'pg' });

export async function expireOverdue(trx: Knex.Transaction, limit: number) {
  return trx('tasks').where('state', 'STARTED').andWhere('deadline', '<', trx.fn.now()).limit(limit).update({ state: 'EXPIRED' });
}

export async function expireOverdueOnPool(limit: number) {
  return db('tasks').where('state', 'STARTED').andWhere('deadline', '<', db.fn.now()).limit(limit).update({ state: 'EXPIRED' });
}
`;

const daemon = (call: string) => `import knex from 'knex';
import { expireOverdue, expireOverdueOnPool } from './tasks';
const db = knex({ client: 'pg' });

export async function tick(limit: number) {
  await db.transaction(async (trx) => {
    const res = await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS locked', [5003001108]);
    if (!res.rows[0].locked) return;
    await ${call};
  });
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('advisory locks and writes in called functions', () => {
  it("another module's function handed the lock's transaction writes inside it: no finding", async () => {
    current = project({ 'tasks.ts': tasksModule, 'daemon.ts': daemon('expireOverdue(trx, limit)') });
    const results = await current.lint('daemon.ts');
    expect(findings(results.get('daemon.ts'))).toEqual([]);
  });

  it("another module's function that writes through its own pool is reported, naming the exact lock function", async () => {
    current = project({ 'tasks.ts': tasksModule, 'daemon.ts': daemon('expireOverdueOnPool(limit)') });
    const results = await current.lint('daemon.ts');
    const messages = results.get('daemon.ts') ?? [];
    expect(findings(messages)).toEqual(['9 fencelint/require-fence-condition']);
    expect(messages[0].message).toContain('`pg_try_advisory_xact_lock`');
  });

  it('a same-file function whose callers all hand it the locked transaction writes inside it', async () => {
    current = project({
      'daemon.ts': `import knex from 'knex';
import type { Knex } from 'knex';
const db = knex({ client: 'pg' });

async function expire(trx: Knex.Transaction) {
  await trx('tasks').where('state', 'STARTED').update({ state: 'EXPIRED' });
}

async function expireOnPool() {
  await db('tasks').where('state', 'STARTED').update({ state: 'EXPIRED' });
}

export async function tick() {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [42]);
    await expire(trx);
    await expireOnPool();
  });
}
`,
    });
    const results = await current.lint('daemon.ts');
    expect(findings(results.get('daemon.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  describe('an advisory lock taken by a helper on the connection it is handed', () => {
    const guards = `import type { Knex } from 'knex';

export async function holdInvoiceLock(conn: Knex.Transaction, invoiceId: string): Promise<void> {
  await conn.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [invoiceId]);
}

// Composes the helper above: the connection is still the caller's second argument.
export async function holdCustomerLock(customerId: string, conn: Knex.Transaction): Promise<void> {
  await holdInvoiceLock(conn, 'customer:' + customerId);
}
`;
    const billing = (body: string) => `import knex from 'knex';
import { holdInvoiceLock, holdCustomerLock } from './guards';
const pool = knex({ client: 'pg' });

export function settle(invoiceId: string, customerId: string) {
  return pool.transaction(async (tx) => {
${body}
  });
}
`;

    it('writes on that transaction are inside the lock: no finding', async () => {
      current = project({
        'guards.ts': guards,
        'billing.ts': billing(`    await holdInvoiceLock(tx, invoiceId);
    await tx('invoices').where({ id: invoiceId }).update({ state: 'SETTLED' });
    await holdCustomerLock(customerId, tx);
    await tx('customers').where({ id: customerId }).increment('settled', 1);`),
      });
      const results = await current.lint('billing.ts');
      expect(findings(results.get('billing.ts'))).toEqual([]);
    });

    it('a write through the pool in the same callback is reported', async () => {
      current = project({
        'guards.ts': guards,
        'billing.ts': billing(`    await holdInvoiceLock(tx, invoiceId);
    await pool('invoices').where({ id: invoiceId }).update({ state: 'SETTLED' });`),
      });
      const results = await current.lint('billing.ts');
      const messages = results.get('billing.ts') ?? [];
      expect(findings(messages)).toEqual(['8 fencelint/require-fence-condition']);
      expect(messages[0].message).toContain('holdInvoiceLock');
    });
  });

  it("drizzle: a helper that runs the lock's SQL through the transaction it is handed (`tx.execute(sql`...`)`)", async () => {
    current = project({
      'locks.ts': `import { sql } from 'drizzle-orm';
export function lockOrder(tx: any, orderId: string) {
  return tx.execute(sql\`select pg_advisory_xact_lock(hashtext(\${orderId}))\`);
}
`,
      'orders.ts': `import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { lockOrder } from './locks';
import { orders, audit } from './schema';
const db = drizzle(process.env.DATABASE_URL!);

export async function cancel(orderId: string) {
  return db.transaction(async (tx) => {
    await lockOrder(tx, orderId);
    await tx.update(orders).set({ state: 'CANCELLED' }).where(eq(orders.id, orderId));
    await db.update(audit).set({ lastCancelled: orderId }).where(eq(audit.id, 1));
  });
}
`,
    });
    const results = await current.lint('orders.ts');
    expect(findings(results.get('orders.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it('a transaction handed through two factories (with a default client) to the function that writes', async () => {
    current = project({
      'flags.ts': `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();

export function makeSetFlag(client = prisma) {
  return async (key: string, value: string) => {
    await client.flag.upsert({ where: { key }, create: { key, value }, update: { value } });
  };
}

export function makeSetFlags(client = prisma) {
  const setFlag = makeSetFlag(client);
  return async (flags: Record<string, string>) => {
    for (const [key, value] of Object.entries(flags)) await setFlag(key, value);
  };
}

export async function flipAll(flags: Record<string, string>) {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw\`SELECT pg_advisory_xact_lock(hashtext('flags'))\`;
    await makeSetFlags(tx)(flags);
  });
}
`,
    });
    const results = await current.lint('flags.ts');
    expect(findings(results.get('flags.ts'))).toEqual([]);
  });

  it("a function of another module handed the transaction a helper locked writes inside the lock; one given the pool does not", async () => {
    current = project({
      'locks.ts': `import type { Knex } from 'knex';
export async function lockChat(trx: Knex.Transaction, chatId: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [chatId]);
}
`,
      'watches.ts': `import type { Knex } from 'knex';
export async function closeWatches(conn: Knex, chatId: string): Promise<number> {
  return conn('watches').where({ chat_id: chatId, active: true }).update({ active: false });
}
`,
      'chats.ts': `import knex from 'knex';
import { lockChat } from './locks';
import { closeWatches } from './watches';
const db = knex({ client: 'pg' });

export function deleteChat(chatId: string) {
  return db.transaction(async (trx) => {
    await lockChat(trx, chatId);
    await closeWatches(trx, chatId);
    await closeWatches(db, chatId);
  });
}
`,
    });
    const results = await current.lint('chats.ts');
    expect(findings(results.get('chats.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });
});

describe('a transaction opened by a same-file helper that hands it to a callback', () => {
  // The helper begins the transaction itself and passes it to the callback it was given; the
  // callback takes the xact lock on that transaction and writes through it.
  const ledger = (opener: string, run: string) => `import { Pool } from 'pg';
import { store } from './store';
const pool = new Pool();

${opener}

export async function rollUp(day: string, purge: boolean) {
  await ${run}(async (conn) => {
    const got = await conn.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [day]);
    if (!got.rows[0]?.ok) return;
    try {
      await conn.query({ text: 'UPDATE ledger SET rolled = true WHERE day = $1', values: [day] });
      if (purge) await conn.query({ text: 'DELETE FROM ledger_staging WHERE day = $1', values: [day] });
    } catch (err) {
      console.warn(err);
    }
  });
}
`;
  const store = `export const store = { async beginTransaction() { return { query: async (_q: unknown, _v?: unknown[]) => ({ rows: [] as any[] }), done: async () => {}, undo: async () => {} }; } };
`;

  it('a function declaration that opens it with beginTransaction(): writes on it are inside the lock', async () => {
    current = project({
      'store.ts': store,
      'ledger.ts': ledger(`async function inLedgerTx<T>(work: (conn: any) => Promise<T>): Promise<T> {
  const conn = await store.beginTransaction();
  try {
    const out = await work(conn);
    await conn.done();
    return out;
  } catch (e) {
    await conn.undo();
    throw e;
  }
}`, 'inLedgerTx'),
    });
    const results = await current.lint('ledger.ts');
    expect(findings(results.get('ledger.ts'))).toEqual([]);
  });

  it('an arrow helper that runs BEGIN-less queries on a pooled client hands no transaction: the writes are reported', async () => {
    current = project({
      'store.ts': store,
      'ledger.ts': ledger(`const onClient = async <T>(work: (conn: any) => Promise<T>): Promise<T> => {
  const conn = await pool.connect();
  try {
    return await work(pool);
  } finally {
    conn.release();
  }
};`, 'onClient'),
    });
    const results = await current.lint('ledger.ts');
    expect(findings(results.get('ledger.ts'))).toEqual(['19 fencelint/require-fence-condition', '20 fencelint/require-fence-condition']);
  });

  it('a helper that sends BEGIN on a pooled client before handing it on hands a transaction: writes on it are inside the lock', async () => {
    current = project({
      'store.ts': store,
      'ledger.ts': ledger(`async function inTransaction<T>(work: (conn: any) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  } finally {
    client.release();
  }
}`, 'inTransaction'),
    });
    expect(findings((await current.lint('ledger.ts')).get('ledger.ts'))).toEqual([]);
  });

  it('a BEGIN sent only after the callback ran opens nothing the callback wrote in: the writes are reported', async () => {
    current = project({
      'store.ts': store,
      'ledger.ts': ledger(`async function late<T>(work: (conn: any) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const out = await work(client);
    await client.query('BEGIN');
    await client.query('COMMIT');
    return out;
  } finally {
    client.release();
  }
}`, 'late'),
    });
    expect(findings((await current.lint('ledger.ts')).get('ledger.ts'))).toEqual(['22 fencelint/require-fence-condition', '23 fencelint/require-fence-condition']);
  });
});

describe('a helper of another module that opens the transaction, locks it and hands it to the callback', () => {
  const billing = `import knex from 'knex';
import { withXactLock } from './locks';
const db = knex({ client: 'pg' });

export async function closeInvoice(invoiceId: string) {
  return withXactLock(\`invoice:\${invoiceId}\`, async (trx) => {
    await trx('invoices').where({ id: invoiceId }).update({ status: 'closed' });
    await db('customers').where({ invoice_id: invoiceId }).update({ last_closed: true });
  });
}
`;

  it('writes on the transaction it hands over are inside the lock; a write through the pool is reported', async () => {
    current = project({
      'locks.ts': `import knex from 'knex';
import type { Knex } from 'knex';
const db = knex({ client: 'pg' });
export function withXactLock<T>(key: string, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [key]);
    return fn(trx);
  });
}
`,
      'billing.ts': billing,
    });
    const results = await current.lint('billing.ts');
    expect(findings(results.get('billing.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  it('a helper that takes the xact lock through the pool hands nothing that holds it: both writes are reported', async () => {
    current = project({
      'locks.ts': `import knex from 'knex';
import type { Knex } from 'knex';
const db = knex({ client: 'pg' });
export async function withXactLock<T>(key: string, fn: (trx: Knex) => Promise<T>): Promise<T> {
  await db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [key]);
  return fn(db);
}
`,
      'billing.ts': billing,
    });
    const results = await current.lint('billing.ts');
    expect(findings(results.get('billing.ts'))).toEqual(['7 fencelint/require-fence-condition', '8 fencelint/require-fence-condition']);
  });
});
