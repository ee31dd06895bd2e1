/**
 * A sweep under a lock that removes what has aged out by the clock (expired sessions, rows older
 * than a retention cutoff, scores below now) removes only what every later holder would remove
 * too, and writes nothing back: it is no late write. A write by the same kind of filter that
 * stores a value (a state change, a claim) is still one.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

function findings(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error' } }], 'sweep.ts')
    .map((m) => `${m.line} ${m.ruleId}`);
}

const head = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { PrismaClient } from '@prisma/client';
import { MongoClient } from 'mongodb';
const redis = new Redis();
const redlock = new Redlock([redis]);
const pool = new Pool();
const prisma = new PrismaClient();
const mongo = new MongoClient('mongodb://db');
const DAY = 24 * 60 * 60 * 1000;
`;

const locked = (body: string) => `${head}
export async function sweep(): Promise<void> {
  const lock = await redlock.acquire(['sweeper'], 60_000);
  try {
${body}
  } finally {
    await lock.release();
  }
}
`;

describe('object APIs', () => {
  it('deletes of expired records and a clear of old fields are no late writes; other writes by the same filters are', () => {
    const code = locked(`    const now = new Date();
    const cutoff = new Date(now.getTime() - 90 * DAY);
    await prisma.session.deleteMany({ where: { expiresAt: { lt: now } } });
    await prisma.auditLog.deleteMany({ where: { action: 'LOGIN', createdAt: { lte: cutoff } } });
    await prisma.auditLog.updateMany({ where: { createdAt: { lt: cutoff } }, data: { ipAddress: null, details: null } });
    await prisma.auditLog.updateMany({ where: { createdAt: { lt: cutoff } }, data: { userName: 'anonymous' } });
    await prisma.invoice.updateMany({ where: { dueAt: { lt: now } }, data: { state: 'overdue' } });
    await prisma.session.deleteMany({ where: { userId: 'u1' } });
    await prisma.session.deleteMany({ where: { OR: [{ expiresAt: { lt: now } }, { revoked: true }] } });`);
    expect(findings(code)).toEqual(['21 fencelint/require-fence-condition', '22 fencelint/require-fence-condition', '23 fencelint/require-fence-condition', '24 fencelint/require-fence-condition']);
  });

  it('MongoDB: a delete below the clock, and a cutoff stepped back from Date.now()', () => {
    const code = locked(`    const events = mongo.db('app').collection('events');
    await events.deleteMany({ seenAt: { $lt: new Date(Date.now() - 7 * DAY) } });
    await events.deleteMany({ seenAt: { $gt: new Date() } });`);
    expect(findings(code)).toEqual(['18 fencelint/require-fence-condition']);
  });
});

describe('builder chains', () => {
  it('a Drizzle or Kysely delete below the clock is no late write; with an or, above the clock, or storing a state it is', () => {
    const code = locked(`    const db = drizzle(pool);
    await db.delete(holds).where(and(eq(holds.roomId, 'r1'), lt(holds.expiresAt, new Date())));
    await db.delete(holds).where(lte(holds.expiresAt, new Date(Date.now() - DAY)));
    await db.delete(holds).where(or(eq(holds.roomId, 'r1'), lt(holds.expiresAt, new Date())));
    await db.delete(holds).where(gt(holds.expiresAt, new Date()));
    await db.update(holds).set({ state: 'lapsed' }).where(lt(holds.expiresAt, new Date()));
    const k = new Kysely<never>({ dialect: new PostgresDialect({ pool }) });
    await k.deleteFrom('holds').where('expires_at', '<', new Date()).execute();
    await k.deleteFrom('holds').where('room_id', '=', 'r1').execute();`).replace(
      head,
      `import { drizzle } from 'drizzle-orm/node-postgres';
import { and, eq, gt, lt, lte, or } from 'drizzle-orm';
import { Kysely, PostgresDialect } from 'kysely';
declare const holds: { roomId: string; expiresAt: Date; state: string };
${head}`,
    );
    expect(findings(code)).toEqual(['23 fencelint/require-fence-condition', '24 fencelint/require-fence-condition', '25 fencelint/require-fence-condition', '28 fencelint/require-fence-condition']);
  });
});

describe('date libraries', () => {
  it('a cutoff from dayjs or date-fns counts through its import; a project function of the same name is no clock', () => {
    const withDayjs = locked(`    await prisma.session.deleteMany({ where: { expiresAt: { lt: dayjs().subtract(1, 'day').toDate() } } });
    await prisma.session.deleteMany({ where: { expiresAt: { lt: subDays(new Date(), 30) } } });`).replace(head, `import dayjs from 'dayjs';\n${head}`);
    expect(findings(withDayjs)).toEqual([]);
    // `dayjs` here is the project's own: it returns the last sweep's time handed in, not the clock.
    const shadowed = locked(`    await prisma.session.deleteMany({ where: { expiresAt: { lt: dayjs().toDate() } } });`).replace(head, `${head}declare function dayjs(): { toDate(): Date };\n`);
    expect(findings(shadowed)).toEqual(['17 fencelint/require-fence-condition']);
  });
});

describe('SQL', () => {
  it('a DELETE below now() or a bound clock value is no late write; an OR, a claim, a stored state or a freed holder is', () => {
    const code = locked(`    await pool.query('DELETE FROM sessions WHERE expires_at < now()');
    await pool.query("DELETE FROM audit_log WHERE created_at < NOW() - INTERVAL '90 days'");
    await pool.query('DELETE FROM uploads WHERE created_at <= $1', [new Date(Date.now() - DAY)]);
    await pool.query('UPDATE users SET last_ip = NULL WHERE seen_at < now()');
    await pool.query('DELETE FROM sessions WHERE expires_at < now() OR revoked');
    await pool.query('UPDATE tasks SET worker = $1, visible_at = $2 WHERE visible_at < now()', ['me', new Date(Date.now() + DAY)]);
    await pool.query("UPDATE invoices SET state = 'overdue' WHERE due_at < now()");
    await pool.query('DELETE FROM uploads WHERE created_at < $1', [process.argv[2]]);
    await pool.query("UPDATE seats SET held_by = NULL WHERE held_at < now() - interval '10 minutes'");`);
    expect(findings(code)).toEqual(['20 fencelint/require-fence-condition', '21 fencelint/require-fence-condition', '22 fencelint/require-fence-condition', '23 fencelint/require-fence-condition', '24 fencelint/require-fence-condition']);
  });
});

describe('Redis', () => {
  it('ZREMRANGEBYSCORE from -inf up to the clock is no late write; up to a value handed in, or from a floor of its own, is', () => {
    const code = locked(`    await redis.zremrangebyscore('recent-logins', '-inf', Date.now() - DAY);
    await redis.zremrangebyscore('recent-logins', '-inf', String(Date.now()));
    await redis.zremrangebyscore('recent-logins', '-inf', process.argv[2]);
    await redis.zremrangebyscore('recent-logins', 0, Date.now());`);
    expect(findings(code)).toEqual(['18 fencelint/require-fence-condition', '19 fencelint/require-fence-condition']);
  });
});
