/**
 * A lock helper that takes an options object, runs one of its callbacks while it holds the lock
 * (`onGiveUp` when a retry budget is spent) and otherwise returns `true` with the lock still held:
 * the caller's code after `if (!ok) return;` is the section, as for any helper that returns holding
 * the lock, and the callback option does not turn the helper into a callback-only lock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const claims = (underLock: string) => `import { Redis } from 'ioredis';

interface ClaimOptions {
  redis: Redis;
  lockKey: string;
  budgetKey: string;
  onBusy: () => void;
  onGiveUp: () => Promise<void>;
}

export async function claimWithBudget({ redis, lockKey, budgetKey, onBusy, onGiveUp }: ClaimOptions): Promise<boolean> {
  const taken = await redis.set(lockKey, '1', 'EX', 5, 'NX');
  if (!taken) {
    onBusy();
    return false;
  }
  const used = Number(await redis.get(budgetKey)) || 0;
  if (used >= 3) {
    ${underLock}
    return false;
  }
  return true;
}
`;

const rooms = `import Redis from 'ioredis';
import { claimWithBudget } from './claims';

const redis = new Redis();

export async function openRoom(roomId: string) {
  const lockKey = 'room:' + roomId + ':open_lock';
  const ok = await claimWithBudget({
    redis,
    lockKey,
    budgetKey: 'budget:' + roomId,
    onBusy: () => undefined,
    onGiveUp: async () => undefined,
  });
  if (!ok) return;
  await redis.hset('room:' + roomId, { state: 'open' });
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('an options-object lock helper that returns holding the lock', () => {
  it("puts the caller's write after the call under the lock, also when the helper runs a callback option under it", async () => {
    for (const underLock of ['await onGiveUp();', '']) {
      current = project({ 'src/claims.ts': claims(underLock), 'src/rooms.ts': rooms });
      const results = await current.lint('src/rooms.ts');
      expect(findings(results.get('src/rooms.ts'))).toContain('16 fencelint/require-fence-condition');
      current.remove();
      current = undefined;
    }
  });
});
