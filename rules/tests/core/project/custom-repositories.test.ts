/**
 * A project class that extends a library's repository (`class ShelfRepository extends
 * Repository<Shelf>`, TypeORM's custom repositories; MikroORM's `EntityRepository`), held in a field
 * or parameter typed with it: its inherited methods are the library's writes. Its own methods are
 * project methods, read through their summaries, and a class that extends nothing of a library is
 * no client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const locks = `import Redlock from 'redlock';
import Redis from 'ioredis';

export const redlock = new Redlock([new Redis()]);
`;

const repository = (base: string) => `${base}
import { Shelf } from './shelf';

export class ShelfRepository extends Repository<Shelf> {
  occupancy(id: string) {
    return this.count({ where: { id } });
  }
}
`;

const service = `import { redlock } from './locks';
import { ShelfRepository } from './shelf-repository';

export class ShelfService {
  constructor(private readonly shelves: ShelfRepository) {}

  async relabel(id: string, label: string) {
    const lock = await redlock.acquire([\`shelf:\${id}\`], 5000);
    try {
      const used = await this.shelves.occupancy(id);
      await this.shelves.update(id, { label, used });
    } finally {
      await lock.release();
    }
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('custom repositories of an ORM', () => {
  it("TypeORM's Repository subclass: the inherited update under the lock is reported, its own read is not", async () => {
    current = project({ 'locks.ts': locks, 'shelf-repository.ts': repository(`import { Repository } from 'typeorm';`), 'shelf-service.ts': service });
    expect(findings((await current.lint('shelf-service.ts')).get('shelf-service.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it("MikroORM's EntityRepository subclass: reported the same way", async () => {
    const file = repository(`import { EntityRepository as Repository } from '@mikro-orm/postgresql';`).replace('this.count({ where: { id } })', 'this.count({ id })');
    current = project({ 'locks.ts': locks, 'shelf-repository.ts': file, 'shelf-service.ts': service.replace('this.shelves.update(id, { label, used })', 'this.shelves.nativeUpdate({ id }, { label, used })') });
    expect(findings((await current.lint('shelf-service.ts')).get('shelf-service.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it('a project class that extends a base of its own, not a library, is no client', async () => {
    const base = `class Repository<T> {
  update(id: string, patch: Partial<T>) {
    return { id, ...patch };
  }
  count(_where: unknown) {
    return 0;
  }
}`;
    current = project({ 'locks.ts': locks, 'shelf-repository.ts': repository(base), 'shelf-service.ts': service });
    expect(findings((await current.lint('shelf-service.ts')).get('shelf-service.ts'))).toEqual([]);
  });
});
