/**
 * A helper of another module that creates a record and then writes a Redis key named by the new
 * record's id (`room:${room.id}`) writes a key no other holder knows yet: called under a lock, that
 * write is the call's own. A key named by what the caller passed in is anybody's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const rooms = (key: string) => `import Redis from 'ioredis';
import { PrismaClient } from '@prisma/client';
const redis = new Redis();
const prisma = new PrismaClient();

export async function openRoom(first: string, second: string) {
  const room = await prisma.room.create({ data: { first, second } });
  await redis.set(${key}, JSON.stringify(room), 'EX', 3600);
  return room;
}
`;

const matcher = `import Redlock from 'redlock';
import { openRoom } from './rooms';
const redlock = new Redlock([]);

export async function pair(first: string, second: string) {
  const lock = await redlock.acquire(['lock:pairing'], 5000);
  try {
    await openRoom(first, second);
  } finally {
    await lock.release();
  }
}
`;

describe('Redis keys of a record the helper has just created', () => {
  it('a key built from the new record id is the own key of the call', async () => {
    current = project({ 'src/rooms.ts': rooms('`room:${room.id}`'), 'src/matcher.ts': matcher });
    const results = await current.lint('src/matcher.ts');
    expect(findings(results.get('src/matcher.ts'))).toEqual([]);
  });

  it('a key built from an argument is reported', async () => {
    current = project({ 'src/rooms.ts': rooms('`pair:${first}`'), 'src/matcher.ts': matcher });
    const results = await current.lint('src/matcher.ts');
    expect(findings(results.get('src/matcher.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });
});
