/**
 * Set-once claims under a lock: a write that fills a field only while it is still empty. The
 * first writer wins and a late holder matches nothing, so it overwrites nothing a newer holder
 * stored. A write that empties the field, or that tests one field empty and fills another, is
 * still a late write.
 */
import fenceRule from '../../src/rules/require-fence-condition.js';
import staleRule from '../../src/rules/require-stale-check.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { MongoClient } from 'mongodb';
import { PrismaClient } from '@prisma/client';
const redlock = new Redlock([new Redis()]);
const pool = new Pool();
const tickets = new MongoClient('').db('desk').collection('tickets');
const prisma = new PrismaClient();
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

const claims = `${header}export async function pickUp(ticketId: string, agentId: string) {
  await redlock.using(['ticket:' + ticketId], 5000, async () => {
    await pool.query('UPDATE tickets SET agent_id = $1, picked_at = now() WHERE id = $2 AND agent_id IS NULL', [agentId, ticketId]);
    await tickets.updateOne({ _id: ticketId, agentId: null }, { $set: { agentId, state: 'picked' } });
    await tickets.updateOne({ _id: ticketId, $or: [{ agentId: null }, { agentId: { $exists: false } }] }, { $set: { agentId } });
    await prisma.ticket.update({ where: { id: ticketId, agentId: null }, data: { agentId } });
    await prisma.ticket.updateMany({ where: { id: ticketId, agentId: { equals: null } }, data: { agentId } });
  });
}`;

ruleTester.run('require-fence-condition (set-once claims)', fenceRule, {
  valid: [{ name: 'SQL IS NULL, MongoDB null / $exists: false / $or of both, Prisma null and equals: null', code: claims }],
  invalid: [
    {
      name: 'a write that empties the field, and one that tests a field empty but fills another',
      code: `${header}export async function release(ticketId: string, note: string) {
  await redlock.using(['ticket:' + ticketId], 5000, async () => {
    await pool.query('UPDATE tickets SET agent_id = NULL WHERE id = $1 AND agent_id IS NULL', [ticketId]);
    await pool.query('UPDATE tickets SET note = $1 WHERE id = $2 AND agent_id IS NULL', [note, ticketId]);
    await tickets.updateOne({ _id: ticketId, agentId: null }, { $set: { agentId: null, state: 'open' } });
    await tickets.updateOne({ _id: ticketId, $or: [{ agentId: null }, { closedAt: null }] }, { $set: { agentId: note } });
  });
}`,
      errors: [unfenced(12), unfenced(13), unfenced(14), unfenced(15)],
    },
  ],
});

ruleTester.run('require-stale-check (set-once claims)', staleRule, {
  // A claim compares no token: whether it landed is the caller's business, not a fence's refusal.
  valid: [{ name: 'claims whose results are not read', code: claims }],
  invalid: [],
});
