/**
 * A project's own repository class whose receiver is named like a library's (`jobRepo`,
 * `this.orderRepository`) and whose methods are named like a library's writes (`update`,
 * `save`): the call runs the project's method, so its summary says what is written and whether
 * it is fenced, not the library the name suggests. And a row the holder has just inserted through
 * such a repository (`const jobId = await jobs.create()`) picked again by its id in a builder's
 * where (`eq(t.id, jobId)`) is the holder's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const repository = `import { and, eq, lt } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { exports } from './schema';

export class ExportJobRepo {
  constructor(private readonly db: PostgresJsDatabase) {}

  async create(tenant: string) {
    const [{ id }] = await this.db.insert(exports).values({ tenant, state: 'queued' }).returning();
    return id;
  }

  update(jobId: string, state: string) {
    return this.db.update(exports).set({ state }).where(eq(exports.id, jobId)).execute();
  }

  save(jobId: string, state: string, fence: number) {
    return this.db.update(exports).set({ state, fence }).where(and(eq(exports.id, jobId), lt(exports.fence, fence))).execute();
  }
}
`;

const schema = 'export const exports = {} as any;\n';

const service = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { drizzle } from 'drizzle-orm/postgres-js';
import { ExportJobRepo } from './export-job-repo';

const redlock = new Redlock([new Redis()]);
const counters = new Redis();
const db = drizzle(process.env.DATABASE_URL!);

export class ExportRunner {
  constructor(private readonly jobRepo: ExportJobRepo) {}

  async start(tenant: string) {
    const jobs = new ExportJobRepo(db);
    const jobId = await jobs.create(tenant);
    await redlock.using(['export:' + tenant], 10_000, async () => {
      await jobs.update(jobId, 'running');
    });
  }

  async finish(tenant: string, jobId: string) {
    await redlock.using(['export:' + tenant], 10_000, async () => {
      const fence = await counters.incr('export-fence:' + tenant);
      await this.jobRepo.save(jobId, 'done', fence);
      await this.jobRepo.update(jobId, 'archived');
    });
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe("a project repository named like a library's", () => {
  it('is judged by its own methods: the fenced save and the own new row pass, the unfenced update is reported there', async () => {
    current = project({ 'schema.ts': schema, 'export-job-repo.ts': repository, 'export-runner.ts': service });
    const results = await current.lint('export-runner.ts');
    const messages = results.get('export-runner.ts') ?? [];
    expect(findings(messages)).toEqual(['25 fencelint/require-fence-condition']);
    // Named through the repository's own write, not as a TypeORM update of the receiver.
    expect(messages[0]?.message).toContain('export-job-repo.ts');
  });

  it('a same-file repository class instance is judged by its own method too', async () => {
    current = project({
      'jobs.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';

const redlock = new Redlock([new Redis()]);
const counters = new Redis();
const pool = new Pool();

class JobRepo {
  async update(id: string, state: string, fence: number) {
    const result = await pool.query('UPDATE jobs SET state = $1, fence = $3 WHERE id = $2 AND fence < $3', [state, id, fence]);
    if (result.rowCount === 0) throw new Error('stale');
  }
}

const jobRepo = new JobRepo();

export async function finish(id: string) {
  await redlock.using(['job:' + id], 10_000, async () => {
    const fence = await counters.incr('job-fence:' + id);
    await jobRepo.update(id, 'done', fence);
    await new JobRepo().update(id, 'archived', fence);
  });
}
`,
    });
    const results = await current.lint('jobs.ts');
    expect(findings(results.get('jobs.ts'))).toEqual([]);
  });
});
