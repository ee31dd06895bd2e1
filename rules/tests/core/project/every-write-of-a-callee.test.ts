/**
 * A function of another module called under the lock that makes several unfenced writes makes
 * several late writes: the call is one finding that names the first and lists the other kinds
 * by line (two deletes of the same store are one). Commands queued on one
 * Redis pipeline go out together at exec() and are one write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const sweeper = `import Redlock from 'redlock';
import { sweepSessions } from './sessions';
const redlock = new Redlock([]);

export async function nightly() {
  const lock = await redlock.acquire(['lock:sweep'], 30000);
  try {
    await sweepSessions();
  } finally {
    await lock.release();
  }
}
`;

const messagesAt = (messages: Array<{ ruleId: string | null; line: number; message: string }> | undefined, line: number) =>
  (messages ?? []).filter((m) => m.ruleId === 'fencelint/require-fence-condition' && m.line === line).map((m) => m.message);

describe('every unfenced write of a function called under the lock', () => {
  it('reports a delete and a write-back of one helper at the call in one finding; a second delete is the same write', async () => {
    current = project({
      'src/sweeper.ts': sweeper,
      'src/sessions.ts': `import Redis from 'ioredis';
const redis = new Redis();

export async function sweepSessions() {
  for (const key of await redis.keys('session:*')) {
    const raw = await redis.get(key);
    if (!raw) continue;
    const s = JSON.parse(raw);
    if (s.owner === 'gone') await redis.del(key);
    if (s.guest === 'gone') await redis.del(key);
    await redis.set(key, JSON.stringify({ ...s, sweptAt: s.seenAt }));
  }
}
`,
    });
    const results = await current.lint('src/sweeper.ts');
    const messages = messagesAt(results.get('src/sweeper.ts'), 8);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^`redis\.del` \(sessions\.ts:9\) and 1 more \(:11\) run under /);
  });

  it('reports the commands queued on one pipeline as one write', async () => {
    current = project({
      'src/sweeper.ts': sweeper,
      'src/sessions.ts': `import Redis from 'ioredis';
const redis = new Redis();

export async function sweepSessions() {
  const ids = await redis.zrange('sessions', 0, -1);
  const pipeline = redis.pipeline();
  for (const id of ids) {
    pipeline.zrem('sessions', id);
    pipeline.del('session:' + id);
  }
  await pipeline.exec();
}
`,
    });
    const results = await current.lint('src/sweeper.ts');
    expect(messagesAt(results.get('src/sweeper.ts'), 8)).toHaveLength(1);
  });
});
