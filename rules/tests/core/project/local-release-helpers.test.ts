/**
 * A service that takes its lock through one private method and gives it back through another
 * (`acquireRoomLock(id)` ... `finally { await this.releaseRoomLock(id) }`) and returns a value:
 * the release helper ends the section, so the service holds nothing when it returns, and a
 * caller's writes after the call are not under the lock. Without the release the service hands
 * the lock back to its caller, and the caller's writes are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const engine = (release: string) => `import Redis from 'ioredis';
export class Tables {
  constructor(private readonly redis: Redis) {}
  private async acquireRoomLock(id: string): Promise<boolean> {
    const taken = await this.redis.set('lock:room:' + id, '1', 'PX', 5000, 'NX');
    return taken === 'OK';
  }
  private async releaseRoomLock(id: string): Promise<void> {
    await this.redis.del('lock:room:' + id);
  }
  async play(id: string, move: string): Promise<string> {
    if (!(await this.acquireRoomLock(id))) throw new Error('busy');
    try {
      return move.toUpperCase();
    } finally {
      ${release}
    }
  }
}
`;

const gateway = `import { Pool } from 'pg';
import { Tables } from './tables';
const pool = new Pool();
export async function onMove(tables: Tables, id: string, move: string) {
  const shown = await tables.play(id, move);
  await pool.query('UPDATE rooms SET last_move = $2 WHERE id = $1', [id, shown]);
}
`;

describe('a lock given back through a same-file release helper', () => {
  it("ends the service's section, so the caller's later write is under no lock", async () => {
    current = project({ 'src/tables.ts': engine('await this.releaseRoomLock(id);'), 'src/gateway.ts': gateway });
    const results = await current.lint('src/gateway.ts');
    expect(findings(results.get('src/gateway.ts'))).toEqual([]);
  });

  it('without the release the caller holds the lock for its write', async () => {
    current = project({ 'src/tables.ts': engine('void 0;'), 'src/gateway.ts': gateway });
    const results = await current.lint('src/gateway.ts');
    expect(findings(results.get('src/gateway.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
