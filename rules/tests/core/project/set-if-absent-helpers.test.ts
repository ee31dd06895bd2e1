/**
 * A set-if-absent helper of the project (`tryClaim(key, value, ttl)` over `SET NX PX`, handing
 * the reply back) is a lock only where its caller uses it as one: the caller tests the reply and
 * writes a value that tells holders apart. Dropping the reply, or writing a constant (also once
 * the helper has converted it to text), marks something once, as the same `SET NX` would in the
 * caller's own file; a key named as a lock keeps it a lease.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

/** `tryClaim` hands the reply back; `claimOrFail` throws when the key is taken. */
const kv = `import Redis from 'ioredis';

export class Kv {
  private readonly redis = new Redis();

  private encode(value: unknown): string {
    if (typeof value === 'string') return value;
    return JSON.stringify(value);
  }

  async tryClaim(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const encoded = this.encode(value);
    const reply = await this.redis.set(key, encoded, 'PX', ttlMs, 'NX');
    return reply === 'OK';
  }

  async claimOrFail(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.redis.set(key, value, 'PX', ttlMs, 'NX');
    if (reply !== 'OK') throw new Error('taken: ' + key);
    return true;
  }
}
`;

const caller = (body: string) => `import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Kv } from './kv';

const pool = new Pool();

export class Reports {
  constructor(private readonly locks: Kv) {}

  async rebuild(id: string, body: string): Promise<void> {
    const owner = randomUUID();
${body}
    await pool.query('UPDATE reports SET body = $1 WHERE id = $2', [body, id]);
  }
}
`;

async function lintCaller(body: string): Promise<string[]> {
  current = project({ 'src/kv.ts': kv, 'src/reports.ts': caller(body) });
  const results = await current.lint('src/reports.ts');
  return findings(results.get('src/reports.ts'));
}

describe('a set-if-absent helper of another module', () => {
  it('is a lease when the caller tests the reply and writes an owner id', async () => {
    expect(await lintCaller(`    if (!(await this.locks.tryClaim('report:' + id, owner, 30000))) return;`)).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('takes no lock when the caller drops the reply it hands back', async () => {
    expect(await lintCaller(`    await this.locks.tryClaim('report:' + id, owner, 30000);`)).toEqual([]);
  });

  it('takes no lock when the reply is dropped with the Promise.all it sits in', async () => {
    expect(await lintCaller(`    await Promise.all([this.locks.tryClaim('report:' + id, owner, 30000), pool.query('SELECT 1')]);`)).toEqual([]);
  });

  it('still takes a lock when the helper throws on a taken key, whatever the caller does with the reply', async () => {
    expect(await lintCaller(`    await this.locks.claimOrFail('report:' + id, owner, 30000);`)).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('marks something once when the caller writes a constant the helper only converts to text', async () => {
    expect(await lintCaller(`    if (!(await this.locks.tryClaim('report-rebuilding:' + id, 'yes', 30000))) return;`)).toEqual([]);
  });

  it('stays a lease for a constant under a key named as a lock', async () => {
    expect(await lintCaller(`    if (!(await this.locks.tryClaim('report-lock:' + id, 'yes', 30000))) return;`)).toEqual(['13 fencelint/require-fence-condition']);
  });

  it('stays a lease for a dropped reply under a key named as a lock', async () => {
    expect(await lintCaller(`    await this.locks.tryClaim('report-lock:' + id, owner, 30000);`)).toEqual(['13 fencelint/require-fence-condition']);
  });
});
