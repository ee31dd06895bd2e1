/**
 * A lease check and then a call: `if (signal.aborted) throw signal.error` in a redlock `using`
 * callback, then a call to the project's store in another module that writes. The lease can lapse
 * right after the check, as before a write in the same file, so `no-check-then-write` reports the
 * call; the write it leads to compares no token, so `require-fence-condition` reports it too. A
 * write made in the callback itself keeps its one finding.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lease check followed by a call that writes', () => {
  it('is a check-then-write at the call, and still an unfenced write', async () => {
    current = project({
      'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
      'src/store.ts': `import { redis } from './redis';
export async function putDraft(key: string, body: string, ttl?: number) {
  if (ttl) await redis.set(key, body, 'EX', ttl);
  else await redis.set(key, body);
}
`,
      'src/editor.ts': `import Redlock from 'redlock';
import { redis } from './redis';
import { putDraft } from './store';
const redlock = new Redlock([redis]);

export async function append(docId: string, line: string) {
  await redlock.using(['doc:' + docId], 5000, {}, async (signal) => {
    const body = (await redis.get('draft:' + docId)) ?? '';
    if (signal.aborted) throw signal.error;
    await putDraft('draft:' + docId, body + line, 600);
  });
}

export async function stamp(docId: string) {
  await redlock.using(['doc:' + docId], 5000, async (signal) => {
    if (signal.aborted) throw signal.error;
    await redis.set('stamp:' + docId, String(Date.now()));
  });
}
`,
    });
    const results = await current.lint('src/editor.ts');
    expect(findings(results.get('src/editor.ts')).sort()).toEqual(['10 fencelint/no-check-then-write', '10 fencelint/require-fence-condition', '17 fencelint/no-check-then-write']);
  });
});
