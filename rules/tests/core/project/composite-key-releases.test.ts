/**
 * A claim helper whose key is built from several of its arguments (`uploadKey(tenant, file, chunk)`)
 * is released by name only by a helper that deletes a key built from the same values. A helper of
 * the same module that deletes a key built from fewer of them (`waitersKey(tenant, file)`) deletes
 * another key, though the calls share their first arguments.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const chunks = `import Redis from 'ioredis';

const redis = new Redis();

const uploadKey = (tenant: string, file: string, chunk: string) => \`upload:\${tenant}:\${file}:\${chunk}\`;
const waitersKey = (tenant: string, file: string) => \`waiters:\${tenant}:\${file}\`;

export async function claimChunk(tenant: string, file: string, chunk: string): Promise<boolean> {
  return (await redis.set(uploadKey(tenant, file, chunk), '1', 'EX', 60, 'NX')) === 'OK';
}

export async function forgetChunk(tenant: string, file: string, chunk: string): Promise<void> {
  await redis.del(uploadKey(tenant, file, chunk));
}

export async function takeWaiters(tenant: string, file: string): Promise<string[]> {
  const key = waitersKey(tenant, file);
  const tx = redis.multi();
  tx.smembers(key);
  tx.del(key);
  const replies = await tx.exec();
  return (replies?.[0]?.[1] as string[] | undefined) ?? [];
}
`;

const handler = (after: string) => `import { claimChunk, forgetChunk, takeWaiters } from './chunks';

export async function receive(tenant: string, file: string, chunk: string, store: (c: string) => Promise<void>) {
  if (!(await claimChunk(tenant, file, chunk))) return [];
  await store(chunk);
  ${after}
}
`;

describe('a lock key built from several arguments of a helper', () => {
  it('is released by a helper that deletes the key built from the same values', async () => {
    current = project({ 'src/chunks.ts': chunks, 'src/receive.ts': handler('await forgetChunk(tenant, file, chunk);\n  return [];') });
    const results = await current.lint('src/receive.ts');
    expect(findings(results.get('src/receive.ts')).filter((f) => f.endsWith('no-release-by-name'))).toEqual(['6 fencelint/no-release-by-name']);
  });

  it('is not released by a helper that deletes a key built from fewer of them', async () => {
    current = project({ 'src/chunks.ts': chunks, 'src/receive.ts': handler('return takeWaiters(tenant, file);') });
    const results = await current.lint('src/receive.ts');
    expect(findings(results.get('src/receive.ts')).filter((f) => f.endsWith('no-release-by-name'))).toEqual([]);
  });
});
