/**
 * A lease service whose `release(boxId)` deletes, if it still holds it, the lease key it builds
 * from the id (a compare-and-delete script), called by a connection manager's
 * `disconnect(boxId)`, called in turn by a workspace service that stops a box: the id is the
 * lease's name, not a handle handed over, so `stopBox` holds nothing from its first line, and
 * neither do the other methods of the file that take a `boxId`. A manager that releases the
 * handle it is handed (`lease.release()`) still hands the lock over to the function that passes it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const redis = `import Redis from 'ioredis';
export const redis = new Redis();
`;

const leases = `import { redis } from './redis';
const PREFIX = 'box-lease:';
const OWNER = \`server:\${process.pid}\`;
class BoxLeases {
  private readonly held = new Set<string>();
  async acquire(boxId: string): Promise<boolean> {
    const reply = await redis.set(PREFIX + boxId, OWNER, 'EX', 30, 'NX');
    if (reply === 'OK') this.held.add(boxId);
    return reply === 'OK';
  }
  async release(boxId: string): Promise<void> {
    const key = PREFIX + boxId;
    const script = \`
      if redis.call('get', KEYS[1]) == ARGV[1] then
        return redis.call('del', KEYS[1])
      else
        return 0
      end
    \`;
    await redis.eval(script, 1, key, OWNER);
    this.held.delete(boxId);
  }
}
export const boxLeases = new BoxLeases();
`;

const connections = `import { boxLeases } from './leases';
class Connections {
  private readonly open = new Map<string, { close(): void }>();
  disconnect(boxId: string): void {
    this.open.get(boxId)?.close();
    this.open.delete(boxId);
    boxLeases.release(boxId).catch(() => undefined);
  }
}
export const connections = new Connections();
`;

const workspace = `// Free-tier boxes stay locked at 24 hours of idle time.
import { PrismaClient } from '@prisma/client';
import { connections } from './connections';
const prisma = new PrismaClient();
export class Workspaces {
  async startBox(ownerId: string, boxId: string) {
    await prisma.box.update({ where: { id: boxId }, data: { status: 'STARTING', ownerId } });
  }
  async stopBox(boxId: string) {
    await prisma.box.update({ where: { id: boxId }, data: { status: 'STOPPING' } });
    connections.disconnect(boxId);
    await prisma.box.update({ where: { id: boxId }, data: { status: 'STOPPED' } });
  }
}
`;

describe('a lease released by its name through two services', () => {
  it('hands no lock to the functions that pass the name', async () => {
    current = project({ 'src/redis.ts': redis, 'src/leases.ts': leases, 'src/connections.ts': connections, 'src/workspace.ts': workspace });
    const results = await current.lint('src/workspace.ts');
    expect(findings(results.get('src/workspace.ts'))).toEqual([]);
  });

  it('a manager that releases the handle it is given still hands the lock over', async () => {
    const byHandle = `import Redlock, { type Lock } from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
export class Connections {
  async disconnect(lease: Lock): Promise<void> {
    await redlock.release(lease);
  }
}
export const connections = new Connections();
`;
    const caller = `import { PrismaClient } from '@prisma/client';
import type { Lock } from 'redlock';
import { connections } from './connections';
const prisma = new PrismaClient();
export async function stopBox(boxId: string, lease: Lock) {
  await prisma.box.update({ where: { id: boxId }, data: { status: 'STOPPED' } });
  await connections.disconnect(lease);
}
`;
    current = project({ 'src/connections.ts': byHandle, 'src/workspace.ts': caller });
    const results = await current.lint('src/workspace.ts');
    expect(findings(results.get('src/workspace.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
