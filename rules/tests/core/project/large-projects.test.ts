/**
 * Services of a large project: a static lock facade in one module, a data layer over TypeORM
 * in another, and many service modules that import each other (cycles included). The module
 * graph's bounds must be spent on the lock and the writes under it, not on learning that each
 * imported service is no database client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const semaphore = `import { Mutex } from 'redis-semaphore';
import Redis from 'ioredis';

const client = new Redis();

export type HeldMutex = Mutex;

export default class Semaphore {
  public static async lock(options: { key: string; namespace: string; lockTimeout?: number }): Promise<HeldMutex> {
    const mutex = new Mutex(client, options.namespace + ':' + options.key, { lockTimeout: options.lockTimeout ?? 5000 });
    await mutex.acquire();
    return mutex;
  }

  public static async release(mutex: HeldMutex): Promise<void> {
    await mutex.release();
  }
}
`;

/** The data layer: every service's writes end in a TypeORM repository call here. */
const databaseService = `import { DataSource, Repository } from 'typeorm';
import AuditLog from './AuditLog';

export const dataSource = new DataSource({ type: 'postgres' });

export default class DatabaseService<T extends { id: string }> {
  public constructor(private readonly entityName: string) {}

  protected getRepository(): Repository<T> {
    return dataSource.getRepository<T>(this.entityName);
  }

  public async findOneById(id: string): Promise<T | null> {
    return this.getRepository().findOne({ where: { id } as never });
  }

  public async updateOneById(args: { id: string; data: Partial<T> }): Promise<void> {
    await AuditLog.note(this.entityName, args.id);
    await this.getRepository().update(args.id, args.data as never);
  }
}
`;

/** Imports the data layer back: an import cycle, so the data layer's summaries are partial. */
const auditLog = `import DatabaseService from './DatabaseService';

class AuditLogService extends DatabaseService<{ id: string; entity: string }> {
  public async note(entity: string, id: string): Promise<void> {
    const previous = await this.findOneById(id);
    if (previous) return;
  }
}

export default new AuditLogService('AuditLog');
`;

function service(index: number, count: number): string {
  const next = [1, 2, 3].map((step) => (index + step) % count);
  return `import DatabaseService from './DatabaseService';
${next.map((n) => `import Service${n} from './Service${n}';`).join('\n')}

class Service${index}Impl extends DatabaseService<{ id: string; name: string }> {
  public async refresh(id: string): Promise<void> {
${next.map((n) => `    const row${n} = await Service${n}.findOneById(id);\n    if (!row${n}) return;`).join('\n')}
  }
}

export default new Service${index}Impl('Entity${index}');
`;
}

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a large project of services', () => {
  it('finds a service write under a static semaphore facade when the file imports more services than the graph may summarise', async () => {
    const count = 120;
    const files: Record<string, string> = {
      'src/Infrastructure/Semaphore.ts': semaphore,
      'src/Services/DatabaseService.ts': databaseService,
      'src/Services/AuditLog.ts': auditLog,
    };
    for (let i = 0; i < count; i++) files[`src/Services/Service${i}.ts`] = service(i, count);
    const imports = Array.from({ length: count }, (_, i) => `import Service${i} from './Services/Service${i}';`).join('\n');
    const reads = Array.from({ length: count }, (_, i) => `  const seen${i} = await Service${i}.findOneById(id);`).join('\n');
    files['src/refresh.ts'] = `import Semaphore, { HeldMutex } from './Infrastructure/Semaphore';
${imports}

export async function refreshAll(id: string): Promise<void> {
${reads}
  let mutex: HeldMutex | null = null;
  try {
    mutex = await Semaphore.lock({ key: id, namespace: 'refresh' });
    await Service7.updateOneById({ id, data: { name: String(seen0) } });
  } finally {
    if (mutex) await Semaphore.release(mutex);
  }
}
`;
    current = project(files);
    const results = await current.lint('src/refresh.ts');
    const messages = results.get('src/refresh.ts') ?? [];
    const writeLine = 7 + count + count;
    expect(findings(messages)).toEqual([`${writeLine} fencelint/require-fence-condition`]);
    expect(messages[0]?.message).toContain('Semaphore.ts:');
    expect(messages[0]?.message).toContain('DatabaseService.ts:');
  }, 120_000);

  it('a write of a data layer caught in an import cycle is still a write under the caller\'s lock', async () => {
    current = project({
      'src/Infrastructure/Semaphore.ts': semaphore,
      'src/Services/DatabaseService.ts': databaseService,
      'src/Services/AuditLog.ts': auditLog,
      'src/Services/Project.ts': `import DatabaseService from './DatabaseService';\nclass ProjectService extends DatabaseService<{ id: string; status: string }> {}\nexport default new ProjectService('Project');\n`,
      'src/billing.ts': `import Semaphore from './Infrastructure/Semaphore';
import ProjectService from './Services/Project';

export async function refreshStatus(projectId: string, status: string): Promise<void> {
  const mutex = await Semaphore.lock({ key: projectId, namespace: 'billing', lockTimeout: 15000 });
  try {
    await ProjectService.updateOneById({ id: projectId, data: { status } });
  } finally {
    await Semaphore.release(mutex);
  }
}
`,
      'src/billing-read.ts': `import Semaphore from './Infrastructure/Semaphore';
import ProjectService from './Services/Project';

export async function readStatus(projectId: string): Promise<string | undefined> {
  const mutex = await Semaphore.lock({ key: projectId, namespace: 'billing' });
  try {
    return (await ProjectService.findOneById(projectId))?.status;
  } finally {
    await Semaphore.release(mutex);
  }
}
`,
    });
    const results = await current.lint('src/billing.ts', 'src/billing-read.ts');
    expect(findings(results.get('src/billing.ts'))).toEqual(['7 fencelint/require-fence-condition']);
    // A read through the same data layer is no write, cycle or not.
    expect(findings(results.get('src/billing-read.ts'))).toEqual([]);
  }, 60_000);
});

describe('helpers a file calls at its top', () => {
  it('a logger made by a project function whose module reaches more modules than one lint may read is read last: the write under the lock is found', async () => {
    const files: Record<string, string> = {};
    const calls: string[] = [];
    const imports: string[] = [];
    for (let i = 0; i < 110; i++) {
      files[`src/log/format${i}.ts`] = `import { format } from 'node:util';\nexport const format${i} = (v: unknown) => format('%s', v);\n`;
      imports.push(`import { format${i} } from './format${i}';`);
      calls.push(`format${i}(name);`);
    }
    files['src/log/index.ts'] = `${imports.join('\n')}
export function getLogger(name: string) {
  ${calls.join('\n  ')}
  return { info: (line: string) => console.log(name, line) };
}
`;
    files['src/books.ts'] = `import { Pool } from 'pg';
const pool = new Pool();
export async function closeBook(id: string) {
  await pool.query('UPDATE books SET closed = true WHERE id = $1', [id]);
}
`;
    files['src/close.ts'] = `import Redlock from 'redlock';
import { getLogger } from './log';
import { closeBook } from './books';
const logger = getLogger('close');
const redlock = new Redlock([]);
export async function close(id: string) {
  logger.info('closing ' + id);
  const lock = await redlock.acquire(['close:' + id], 5000);
  try {
    await closeBook(id);
  } finally {
    await lock.release();
  }
}
`;
    current = project(files);
    const result = await current.lint('src/close.ts');
    expect(findings(result.get('src/close.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  }, 60_000);
});

describe('static facades in other modules', () => {
  const storage = `import Redis from 'ioredis';

export default class CacheClient extends Redis {
  private static shared: CacheClient;

  public static get primary(): CacheClient {
    if (!CacheClient.shared) CacheClient.shared = new CacheClient(process.env.REDIS_URL ?? '');
    return CacheClient.shared;
  }
}
`;
  const mutex = `import Redlock, { type Lock } from 'redlock';
import CacheClient from './storage';

export class DistributedMutex {
  private static instance: Redlock;

  public static get redlock(): Redlock {
    if (!this.instance) this.instance = new Redlock([CacheClient.primary]);
    return this.instance;
  }

  public static async acquire(resource: string, ttl: number): Promise<Lock> {
    return this.redlock.acquire([resource], ttl);
  }

  public static async release(lock: Lock): Promise<void> {
    await lock.release();
  }
}
`;

  it('a static getter of a client class, read off the imported class, is that client', async () => {
    current = project({
      'src/storage.ts': storage,
      'src/mutex.ts': mutex,
      'src/memo.ts': `import CacheClient from './storage';
import { DistributedMutex } from './mutex';

export class Memo {
  public static async fill(key: string, compute: () => Promise<string>): Promise<string> {
    const lock = await DistributedMutex.acquire(\`fill:\${key}\`, 3000);
    try {
      const cached = await CacheClient.primary.get(key);
      if (cached !== null) return cached;
      const value = await compute();
      await this.store(key, value);
      return value;
    } finally {
      await DistributedMutex.release(lock);
    }
  }

  private static async store(key: string, value: string): Promise<void> {
    await CacheClient.primary.set(key, value, 'EX', 60);
  }

  public static async peek(key: string): Promise<string | null> {
    await CacheClient.primary.set(\`seen:\${key}\`, '1', 'EX', 60);
    return CacheClient.primary.get(key);
  }
}
`,
    });
    const results = await current.lint('src/memo.ts');
    // The write under the lock is reported; the same write outside any lock is not.
    expect(findings(results.get('src/memo.ts'))).toEqual(['19 fencelint/require-fence-condition']);
  }, 60_000);
});

describe('set-if-absent primitives of another module', () => {
  const cache = `import Redis from 'ioredis';
const client = new Redis();

export default class Cache {
  public static async setIfAbsent(namespace: string, key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const reply = await client.set(\`\${namespace}:\${key}\`, value, 'EX', ttlSeconds, 'NX');
    return reply === 'OK';
  }
}
`;
  const store = `import { Pool } from 'pg';
const pool = new Pool();
export async function rebuild(id: string): Promise<void> {
  await pool.query('UPDATE inventory SET rebuilt_at = now() WHERE id = $1', [id]);
}
`;

  it('a constant value makes it a once-per-window marker; an owner id makes it a lease', async () => {
    current = project({
      'src/cache.ts': cache,
      'src/store.ts': store,
      'src/throttle.ts': `import { randomUUID } from 'node:crypto';
import Cache from './cache';
import { rebuild } from './store';

async function shouldRebuild(id: string): Promise<boolean> {
  return Cache.setIfAbsent('rebuild', id, '1', 300);
}

async function takeRebuildLease(id: string): Promise<boolean> {
  return Cache.setIfAbsent('rebuild-lock', id, randomUUID(), 30);
}

export async function throttled(id: string): Promise<void> {
  if (!(await shouldRebuild(id))) return;
  await rebuild(id);
}

export async function leased(id: string): Promise<void> {
  if (!(await takeRebuildLease(id))) return;
  await rebuild(id);
}
`,
    });
    const results = await current.lint('src/throttle.ts');
    expect(findings(results.get('src/throttle.ts'))).toEqual(['20 fencelint/require-fence-condition']);
  }, 60_000);
});
