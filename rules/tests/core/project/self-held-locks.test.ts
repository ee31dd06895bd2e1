/**
 * A project class whose instance holds its own lock: `new KeyLock(key, ttl)`, one method takes it
 * (`SET NX PX` on the instance's key) and another frees it (`lock.release()`), with no handle passed
 * between them. The critical section ends at that release, so a write after it is not reported.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/store.ts': `import Redis from 'ioredis';
let shared: Redis | undefined;
export default function store() {
  if (!shared) shared = new Redis();
  return shared;
}
`,
  'src/key-lock.ts': `import { randomUUID } from 'node:crypto';
import store from './store';

export default class KeyLock {
  owner = randomUUID();
  key: string;
  ttl: number;
  constructor(name: string, ttl: number) {
    this.key = 'lock:' + name;
    this.ttl = ttl;
  }
  take = async () => {
    const reply = await store().set(this.key, this.owner, 'PX', this.ttl, 'NX');
    if (reply === 'OK') return -1;
    return store().pttl(this.key);
  };
  release = async () => {
    const holder = await store().get(this.key);
    if (holder === this.owner) await store().del(this.key);
  };
}
`,
  'src/snapshots.ts': `import store from './store';
export async function saveSnapshot(id: string, body: string) {
  await store().set('snapshot:' + id, body, 'PX', 25000);
}
`,
  'src/db.ts': `import pg from 'pg';
export const db = new pg.Pool();
`,
};

describe('a lock held by a project class instance', () => {
  it('ends at the instance method that frees it; writes before it are reported, writes after it are not', async () => {
    current = project({
      ...files,
      'src/enrol.ts': `import KeyLock from './key-lock';
import { saveSnapshot } from './snapshots';
import { db } from './db';

export async function enrol(userId: string, orgId: string) {
  const lock = new KeyLock('enrol:' + userId, 3000);
  const waitMs = await lock.take();
  if (waitMs > 0) return false;
  await db.query('UPDATE orgs SET last_enrolled = $2 WHERE id = $1', [orgId, userId]);
  await lock.release();
  await saveSnapshot(orgId, userId);
  return true;
}
`,
    });
    const results = await current.lint('src/enrol.ts');
    expect(findings(results.get('src/enrol.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a method of another instance does not end the section', async () => {
    current = project({
      ...files,
      'src/enrol.ts': `import KeyLock from './key-lock';
import { saveSnapshot } from './snapshots';

export async function enrol(userId: string, orgId: string) {
  const lock = new KeyLock('enrol:' + userId, 3000);
  const other = new KeyLock('other', 3000);
  const waitMs = await lock.take();
  if (waitMs > 0) return false;
  await other.release();
  await saveSnapshot(orgId, userId);
  await lock.release();
  return true;
}
`,
    });
    const results = await current.lint('src/enrol.ts');
    expect(findings(results.get('src/enrol.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });
});
