/**
 * `end()` closes an HTTP response or a stream as well as it ends a lease. A parameter whose type
 * comes from a library that is no lock library (`Response` from express, Node's `ServerResponse`,
 * a `Writable`) or is a global type is no lock handle, so a function that ends it releases
 * nothing, and its caller that passes its own parameter on is no section handed a lock.
 * A parameter typed with the project's own handle type still is one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const base = {
  'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
  'src/db.ts': `import pg from 'pg';
export const db = new pg.Pool();
`,
};

describe('a response or stream parameter ended by a callee', () => {
  it('does not make the caller a section handed a lock', async () => {
    current = project({
      ...base,
      'src/replies.ts': `import type { Response } from 'express';
import { db } from './db';

export class Replies {
  async send(topic: string, out?: Response) {
    try {
      const { rows } = await db.query('SELECT body FROM notes WHERE topic = $1', [topic]);
      out?.write(JSON.stringify(rows));
    } finally {
      out?.end();
    }
  }
}
`,
      'src/desk.ts': `import type { Response } from 'express';
import { redis } from './redis';
import { db } from './db';
import { Replies } from './replies';

export class Desk {
  constructor(private readonly replies: Replies) {}

  async claim(topic: string) {
    const ok = await redis.set('desk:' + topic, 'me', 'PX', 5000, 'NX');
    if (ok !== 'OK') return;
    await db.query('UPDATE topics SET owner = $1 WHERE id = $2', ['me', topic]);
  }

  async answer(topic: string, out: Response) {
    await db.query('UPDATE topics SET opened_at = now() WHERE id = $1', [topic]);
    return this.replies.send(topic, out);
  }
}
`,
    });
    const results = await current.lint('src/desk.ts');
    expect(findings(results.get('src/desk.ts'))).toEqual(['12 fencelint/require-fence-condition']);
  });

  it('does not count a global stream type either, but a project handle type still ends a lease', async () => {
    current = project({
      ...base,
      'src/lease.ts': `export interface Lease { key: string; end(): Promise<void> }
`,
      'src/finish.ts': `import type { Lease } from './lease';
import { db } from './db';

export async function closeStream(out: WritableStream | NodeJS.WritableStream) {
  await db.query('SELECT 1');
  (out as NodeJS.WritableStream).end();
}

export async function finish(lease: Lease) {
  await db.query('SELECT 1');
  await lease.end();
}
`,
      'src/jobs.ts': `import type { Lease } from './lease';
import { db } from './db';
import { closeStream, finish } from './finish';

export async function report(id: string, out: NodeJS.WritableStream) {
  await db.query('UPDATE jobs SET reported = now() WHERE id = $1', [id]);
  await closeStream(out);
}

export async function complete(id: string, lease: Lease) {
  await db.query('UPDATE jobs SET done = now() WHERE id = $1', [id]);
  await finish(lease);
}
`,
    });
    const results = await current.lint('src/jobs.ts');
    expect(findings(results.get('src/jobs.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });
});
