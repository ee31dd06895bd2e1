/**
 * Cooldown claims: an update or upsert that stores a moment only while the stored one is a window
 * older (`t.last + interval '…' <= now()`, `CAST(t.value AS BIGINT) + $3 <= $4` storing `$4`) or
 * older at all (`t.last < $1` storing `$1`, the clock read where the write is sent). The stored moment only grows, and a late holder inside
 * the window matches nothing: judged compare-and-set. A cooldown that also stores data, stores a
 * value other than the one compared, moves the clock it stores, or stores a moment passed in with
 * no window (last-write-wins by clock), is still reported.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const pool = new Pool();
const prisma = new PrismaClient();
const WINDOW = 60000;
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (cooldown claims)', fenceRule, {
  valid: [
    {
      name: 'an interval window on now(), a numeric window through a cast and EXCLUDED, a plain newer-only guard',
      code: `${header}export async function reindex(shelf: string) {
  await redlock.using(['reindex'], 5000, async () => {
    await pool.query("INSERT INTO sweeps (shelf, swept_at) VALUES ($1, now()) ON CONFLICT (shelf) DO UPDATE SET swept_at = now() WHERE sweeps.swept_at + interval '10 minutes' <= now()", [shelf]);
    const stamp = Date.now();
    await prisma.$executeRaw\`INSERT INTO "Knob" (name, reading, "touchedAt") VALUES (\${shelf}, \${String(stamp)}, NOW())
      ON CONFLICT (name) DO UPDATE SET reading = EXCLUDED.reading, "touchedAt" = NOW()
      WHERE "Knob".reading !~ '^[0-9]+$' OR CAST("Knob".reading AS BIGINT) + \${WINDOW}::bigint <= \${stamp}::bigint\`;
    await pool.query('UPDATE shelves SET dusted_at = $2 WHERE shelf = $1 AND dusted_at < $2', [shelf, new Date()]);
  });
}`,
    },
    {
      name: 'a newer-only guard on a moment the shared clock catalog reads: a const of Date.now(), a clock package through its import',
      code: `import dayjs from 'dayjs';
${header}export async function dust(shelf: string) {
  await redlock.using(['dust'], 5000, async () => {
    const now = Date.now();
    await pool.query('UPDATE shelves SET dusted_ms = $2 WHERE shelf = $1 AND dusted_ms < $2', [shelf, now]);
    await pool.query('UPDATE shelves SET dusted_at = $2 WHERE shelf = $1 AND dusted_at < $2', [shelf, dayjs()]);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a newer-only guard on a project Date that shadows the global: not the clock as read here',
      code: `import { Date } from './frozen-clock';
${header}export async function dustFrozen(shelf: string) {
  await redlock.using(['dust'], 5000, async () => {
    await pool.query('UPDATE shelves SET dusted_at = $2 WHERE shelf = $1 AND dusted_at < $2', [shelf, new Date()]);
  });
}`,
      errors: [unfenced(12)],
    },
    {
      name: 'data stored beside the moment, another value stored than compared, a moved clock stored, a moment passed in with no window',
      code: `${header}export async function misindex(shelf: string, count: number, later: Date) {
  await redlock.using(['reindex'], 5000, async () => {
    await pool.query("UPDATE sweeps SET swept_at = now(), books = $2 WHERE shelf = $1 AND swept_at + interval '10 minutes' <= now()", [shelf, count]);
    await pool.query('UPDATE shelves SET dusted_at = $3 WHERE shelf = $1 AND dusted_at < $2', [shelf, new Date(), later]);
    await pool.query("UPDATE sweeps SET swept_at = now() + interval '1 hour' WHERE shelf = $1 AND swept_at < now()", [shelf]);
    await pool.query('UPDATE shelves SET dusted_at = $2 WHERE shelf = $1 AND dusted_at < $2', [shelf, later]);
  });
}`,
      errors: [unfenced(11), unfenced(12), unfenced(13), unfenced(14)],
    },
  ],
});
