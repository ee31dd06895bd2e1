/**
 * A cache class of another module claims a key with a Lua script that sets it only if absent:
 * with an expiry that is a lease, and the class's plain delete of the key releases it by name.
 * Without an expiry it is a once-only marker: nothing lapses, nothing is reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const store = (claimScript: string) => `import Redis from 'ioredis';

export class Slots {
  private readonly redis = new Redis();

  async claim(slot: string, holder: string, seconds: number): Promise<string> {
    return (await this.redis.eval(\`${claimScript}\`, 1, 'slot:' + slot, holder, seconds)) as string;
  }

  async save(slot: string, body: string): Promise<void> {
    await this.redis.set('body:' + slot, body);
  }

  async drop(slot: string): Promise<void> {
    await this.redis.del('slot:' + slot);
  }
}
`;

const caller = `import { Slots } from './slots';

export async function render(slots: Slots, slot: string, me: string, body: () => Promise<string>) {
  const lockKey = slot;
  if ((await slots.claim(lockKey, me, 30)) !== me) return;
  try {
    await slots.save(lockKey, await body());
  } finally {
    await slots.drop(lockKey);
  }
}
`;

describe('a set-if-absent script of a project class', () => {
  it('with an expiry takes a lease: the write under it and the plain delete that ends it are reported', async () => {
    current = project({
      'src/slots.ts': store(`if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then redis.call('expire', KEYS[1], ARGV[2]) return ARGV[1] end return redis.call('get', KEYS[1])`),
      'src/render.ts': caller,
    });
    const results = await current.lint('src/render.ts');
    expect(findings(results.get('src/render.ts'))).toEqual(['7 fencelint/require-fence-condition', '9 fencelint/no-release-by-name']);
  });

  it('without an expiry marks the slot once: nothing can lapse under the write', async () => {
    current = project({
      'src/slots.ts': store(`if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then return ARGV[1] end return redis.call('get', KEYS[1])`),
      'src/render.ts': caller,
    });
    const results = await current.lint('src/render.ts');
    expect(findings(results.get('src/render.ts'))).toEqual([]);
  });
});
