/**
 * A function of another module that claims a record with a compare-and-set, tests the result and
 * then writes that record again: called under a lock, the later write is the claim owner's (a
 * newer holder's claim matched nothing), so the call is not reported. A helper that writes another
 * record after its claim still leads to a late write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const kiln = (after: string) => `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();

export async function fire(potId: string, shelfId: string) {
  const taken = await prisma.pot.updateMany({ where: { potId, phase: 'drying' }, data: { phase: 'firing' } });
  if (taken.count === 0) return false;
  ${after}
  return true;
}
`;

const oven = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { fire } from './kiln';
const redlock = new Redlock([new Redis()]);

export async function bake(potId: string, shelfId: string) {
  await redlock.using(['kiln'], 5000, async () => {
    await fire(potId, shelfId);
  });
}
`;

describe('writes after a checked claim, inside a helper of another module', () => {
  it('the claimed record written again is the claim owner\'s', async () => {
    current = project({ 'src/kiln.ts': kiln("await prisma.pot.update({ where: { potId }, data: { glaze: 'blue' } });"), 'src/oven.ts': oven });
    const results = await current.lint('src/oven.ts');
    expect(findings(results.get('src/oven.ts'))).toEqual([]);
  });

  it('another record written after the claim is reported at the call', async () => {
    current = project({ 'src/kiln.ts': kiln("await prisma.shelf.update({ where: { shelfId }, data: { full: true } });"), 'src/oven.ts': oven });
    const results = await current.lint('src/oven.ts');
    expect(findings(results.get('src/oven.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });
});
