/**
 * MikroORM writes that send one statement with the filter as given: `em.nativeUpdate(Entity,
 * where, data)`, `repo.nativeUpdate(where, data)`, `nativeDelete`. The fence is a filter
 * operator on the token column (`{ fence: { $lt: token } }`, as in MongoDB). Only receivers known
 * to be MikroORM's (by import, type, NestJS injection or `orm.em`) are read: `em` is too common a name.
 */
import rule from '../../src/rules/require-fence-condition.js';
import staleRule from '../../src/rules/require-stale-check.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { EntityManager, EntityRepository, MikroORM } from '@mikro-orm/postgresql';
const redlock = new Redlock([new Redis()]);
const counters = new Redis();
declare const orm: MikroORM;
class Shelf { id!: string; label!: string; fence!: number; }
`;

ruleTester.run('require-fence-condition (MikroORM)', rule, {
  valid: [
    {
      name: 'a token compared with $lt and stored, on the EntityManager and on a repository',
      code: `${header}export async function relabel(em: EntityManager, shelves: EntityRepository<Shelf>, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    await em.nativeUpdate(Shelf, { id, fence: { $lt: fence } }, { label, fence });
    await shelves.nativeUpdate({ id, fence: { $lt: fence } }, { label, fence });
  });
}`,
    },
    {
      name: 'a receiver nothing says is MikroORM is not read as one',
      code: `${header}export async function relabel(em: { nativeUpdate(...args: unknown[]): Promise<number> }, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    await em.nativeUpdate(Shelf, { id }, { label });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'unfenced nativeUpdate and nativeDelete through the EntityManager, orm.em and a repository',
      code: `${header}export async function clear(em: EntityManager, shelves: EntityRepository<Shelf>, id: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    await em.nativeUpdate(Shelf, { id }, { label: '' });
    await orm.em.nativeDelete(Shelf, { id });
    await shelves.nativeUpdate({ id }, { label: 'empty' });
  });
}`,
      errors: [
        { messageId: 'missingFenceNoToken', line: 10, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 11, suggestions: [] },
        { messageId: 'missingFenceNoToken', line: 12, suggestions: [] },
      ],
    },
    {
      name: 'a token in scope left out of the filter: the suggestion compares and stores it',
      code: `${header}export async function relabel(em: EntityManager, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    await em.nativeUpdate(Shelf, { id }, { label });
  });
}`,
      errors: [
        {
          messageId: 'missingFence',
          line: 11,
          suggestions: [
            {
              messageId: 'addFenceCondition',
              output: `${header}export async function relabel(em: EntityManager, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    await em.nativeUpdate(Shelf, { id, fenceToken: { $lt: fence } }, { label, fenceToken: fence });
  });
}`,
            },
          ],
        },
      ],
    },
  ],
});


ruleTester.run('require-stale-check (MikroORM)', staleRule, {
  valid: [
    {
      name: 'the number nativeUpdate resolves to decides',
      code: `${header}export async function relabel(em: EntityManager, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    const changed = await em.nativeUpdate(Shelf, { id, fence: { $lt: fence } }, { label, fence });
    if (changed === 0) throw new Error('a newer holder relabelled the shelf');
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a fenced nativeUpdate whose result is dropped',
      code: `${header}export async function relabel(em: EntityManager, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    await em.nativeUpdate(Shelf, { id, fence: { $lt: fence } }, { label, fence });
  });
}`,
      errors: [
        {
          messageId: 'ignored',
          line: 11,
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `${header}export async function relabel(em: EntityManager, id: string, label: string) {
  await redlock.using(['shelf:' + id], 5000, async () => {
    const fence = await counters.incr('shelf-fence:' + id);
    const result = await em.nativeUpdate(Shelf, { id, fence: { $lt: fence } }, { label, fence });
    if (result === 0) throw new Error('stale fence token: the write was refused');
  });
}`,
            },
          ],
        },
      ],
    },
  ],
});
