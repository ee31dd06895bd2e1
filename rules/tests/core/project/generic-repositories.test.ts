/**
 * Generic repositories: a base class over knex whose table is a constructor argument
 * (`this.db(this.table)`), extended per entity in other modules, and injected into a service
 * that writes through it under a lock. The table is known only at run time; the write is
 * still one, because the receiver is knex by its type, not by its name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lockRunner = `import Redlock from 'redlock';
import Redis from 'ioredis';
export class LockRunner {
  private readonly redlock = new Redlock([new Redis()]);
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.redlock.using([key], 10000, fn);
  }
}
`;

const baseRepository = (db: string) => `import type { Knex } from 'knex';
export abstract class BaseRepository<T extends { id: string }> {
  protected constructor(${db}, protected readonly table: string) {}
  patch(id: string, changes: Partial<T>): Promise<number> {
    return this.db(this.table).where({ id }).update(changes);
  }
  patchFenced(id: string, changes: Partial<T>, fenceToken: number): Promise<number> {
    return this.db(this.table).where({ id }).where('fence_token', '<', fenceToken).update({ ...changes, fence_token: fenceToken });
  }
}
`;

const planRepository = `import knex from 'knex';
import { BaseRepository } from './base.repository';
export interface Plan { id: string; tier: string }
export class PlanRepository extends BaseRepository<Plan> {
  constructor() { super(knex({ client: 'pg' }), 'plans'); }
  upgrade(id: string) { return this.patch(id, { tier: 'pro' }); }
}
`;

const service = (body: string) => `import { LockRunner } from '../infra/lock-runner';
import { PlanRepository } from '../db/plan.repository';
export class PlanService {
  constructor(private readonly locks: LockRunner, private readonly plans: PlanRepository) {}
  async upgrade(id: string) {
    return this.locks.run(\`plan:\${id}\`, async () => {
${body}
    });
  }
}
`;

describe('generic repositories', () => {
  it('an inherited write and a subclass method calling it, with the table a constructor argument, are writes under the lock', async () => {
    current = project({
      'src/infra/lock-runner.ts': lockRunner,
      'src/db/base.repository.ts': baseRepository('protected readonly db: Knex'),
      'src/db/plan.repository.ts': planRepository,
      'src/plans/plan.service.ts': service('      await this.plans.upgrade(id);\n      await this.plans.patch(id, { tier: "team" });'),
    });
    const result = await current.lint();
    expect(findings(result.get('src/plans/plan.service.ts'))).toEqual(['7 fencelint/require-fence-condition', '8 fencelint/require-fence-condition']);
    expect(result.get('src/plans/plan.service.ts')![0].message).toContain('base.repository.ts:5');
    expect(findings(result.get('src/db/base.repository.ts'))).toEqual([]);
  });

  it('a knex parameter property with a default value is knex too', async () => {
    current = project({
      'src/infra/lock-runner.ts': lockRunner,
      'src/db/base.repository.ts': `import knex from 'knex';\nconst defaultDb = knex({ client: 'pg' });\n${baseRepository('protected readonly db = defaultDb').replace("import type { Knex } from 'knex';\n", '')}`,
      'src/db/plan.repository.ts': planRepository,
      'src/plans/plan.service.ts': service('      await this.plans.patch(id, { tier: "team" });'),
    });
    expect(findings((await current.lint()).get('src/plans/plan.service.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('the fenced method of the same repository, handed a counter token, is clean', async () => {
    current = project({
      'src/infra/lock-runner.ts': lockRunner,
      'src/db/base.repository.ts': baseRepository('protected readonly db: Knex'),
      'src/db/plan.repository.ts': planRepository,
      'src/plans/plan.service.ts': service(
        '      const fenceToken = await this.redis.incr(`fence:plan:${id}`);\n      const changed = await this.plans.patchFenced(id, { tier: "team" }, fenceToken);\n      if (changed === 0) throw new Error("stale");',
      ).replace('private readonly plans: PlanRepository', "private readonly plans: PlanRepository, private readonly redis: import('ioredis').default"),
    });
    expect(findings((await current.lint()).get('src/plans/plan.service.ts'))).toEqual([]);
  });

  it('a receiver known only by its name needs a table written out: `db(name).update()` of an unknown `db` is no write', async () => {
    current = project({
      'src/infra/lock-runner.ts': lockRunner,
      'src/jobs/job.ts': `import { LockRunner } from '../infra/lock-runner';
declare const db: (table: string) => { where(q: object): { update(v: object): Promise<number> } };
export async function touch(locks: LockRunner, table: string, id: string) {
  await locks.run(id, async () => {
    await db(table).where({ id }).update({ seen: true });
  });
}
`,
    });
    expect(findings((await current.lint()).get('src/jobs/job.ts'))).toEqual([]);
  });
});
