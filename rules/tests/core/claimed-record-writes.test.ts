/**
 * Writes after a compare-and-set claim whose result the section checks: once `if (r.count === 0)
 * return;` has let this holder past, a newer holder's claim of the same record matched nothing, so
 * the later writes that pick that record (by the claim's key, or a child read by that key) are the
 * claim owner's. Writes that pick another record, writes before the check, and writes after a claim
 * whose result nobody reads are still late writes.
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
`;

const unfenced = (line: number) => ({ messageId: 'missingFenceNoToken' as const, line });

ruleTester.run('require-fence-condition (writes after a checked compare-and-set claim)', fenceRule, {
  valid: [
    {
      name: 'Prisma: a status claim checked for zero rows, then the same render job and a frame read by its id',
      code: `${header}export async function render(job: { renderId: string; scene: string }) {
  await redlock.using(['render:' + job.scene], 5000, async () => {
    const claimed = await prisma.render.updateMany({ where: { renderId: job.renderId, phase: { in: ['queued', 'parked'] } }, data: { phase: 'drawing' } });
    if ((claimed?.count ?? 0) === 0) return;
    const frame = await prisma.frame.findFirst({ where: { renderId: job.renderId, drawn: false } });
    if (frame) await prisma.frame.update({ where: { frameId: frame.frameId }, data: { drawn: true, pixels: 42 } });
    await prisma.render.update({ where: { renderId: job.renderId }, data: { phase: 'done', frames: 1 } });
  });
}`,
    },
    {
      name: 'SQL: an UPDATE ... RETURNING claim with a rowCount test, the write in the branch where it matched',
      code: `${header}export async function press(batchId: string, grams: number) {
  await redlock.using(['press'], 5000, async () => {
    const res = await pool.query("UPDATE batches SET stage = 'pressing' WHERE batch_id = $1 AND stage = 'ready' RETURNING batch_id", [batchId]);
    if (res.rowCount > 0) {
      await pool.query('UPDATE batches SET weight = $2 WHERE batch_id = $1', [batchId, grams]);
    }
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'another record after the claim, a write before the check, a claim whose result is not read',
      code: `${header}export async function misrender(job: { renderId: string; scene: string }, other: string) {
  await redlock.using(['render:' + job.scene], 5000, async () => {
    const claimed = await prisma.render.updateMany({ where: { renderId: job.renderId, phase: 'queued' }, data: { phase: 'drawing' } });
    await prisma.render.update({ where: { renderId: job.renderId }, data: { frames: 0 } });
    if (claimed.count === 0) return;
    await prisma.render.update({ where: { renderId: other }, data: { phase: 'done' } });
    await prisma.scene.update({ where: { sceneId: job.scene }, data: { busy: true } });
  });
  await redlock.using(['render:' + job.scene], 5000, async () => {
    await prisma.render.updateMany({ where: { renderId: job.renderId, phase: 'queued' }, data: { phase: 'drawing' } });
    await prisma.render.update({ where: { renderId: job.renderId }, data: { phase: 'done' } });
  });
}`,
      errors: [unfenced(11), unfenced(13), unfenced(14), unfenced(18)],
    },
  ],
});
