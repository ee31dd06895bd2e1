/**
 * Objection.js writes: a model's query builder (`Crate.query(trx).where(...).patch({...})`,
 * `.findById(id).delete()`, `.patchAndFetchById(id, {...})`) and an instance's own
 * (`crate.$query().patch({...})`). The chain is knex's, so a `.where(<token column>, '<', token)`
 * link with the token stored fences it. A `.query()` on a lower-case client is no model.
 */
import rule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Model } from 'objection';
const redlock = new Redlock([new Redis()]);
const counters = new Redis();
class Crate extends Model { static tableName = 'crates'; id!: string; label!: string; fence_token!: number; }
declare const search: { query(text?: string): { update(values: object): Promise<void> } };
`;

ruleTester.run('require-fence-condition (Objection)', rule, {
  valid: [
    {
      name: 'a token compared in a where link and stored',
      code: `${header}export async function relabel(id: string, label: string) {
  await redlock.using(['crate:' + id], 5000, async () => {
    const token = await counters.incr('crate-fence:' + id);
    await Crate.query().where('id', id).where('fence_token', '<', token).patch({ label, fence_token: token });
  });
}`,
    },
    {
      name: 'reads, and a query() on something that is no model',
      code: `${header}export async function relabel(id: string, label: string) {
  await redlock.using(['crate:' + id], 5000, async () => {
    const crate = await Crate.query().findById(id);
    await search.query(crate?.label).update({ label });
  });
}`,
    },
    {
      name: 'a query() on what a lower-case call returns, not awaited first: no model',
      code: `${header}export async function recount(id: string, label: string, shelves: { current(): typeof search }) {
  await redlock.using(['crate:' + id], 5000, async () => {
    await shelves.current().query(id).update({ label });
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'patch, delete and fetch-and-patch through the model, and an instance patch',
      code: `${header}export async function restack(id: string, label: string, trx: unknown) {
  await redlock.using(['crate:' + id], 5000, async () => {
    await Crate.query(trx as never).where('id', id).patch({ label });
    await Crate.query().findById(id).delete();
    await Crate.query().patchAndFetchById(id, { label });
    const crate = await Crate.query().findById(id);
    await crate!.$query().patch({ label: label + '!' });
  });
}`,
      errors: [10, 11, 12, 14].map((line) => ({ messageId: 'missingFenceNoToken', line })),
    },
    {
      name: 'a model handed back at run time and awaited before its query',
      code: `${header}const kinds: Record<string, { model(): Promise<typeof Crate> }> = {};
export async function relabelAny(kind: string, id: string, label: string) {
  await redlock.using([kind + ':' + id], 5000, async () => {
    await (await kinds[kind].model()).query().findById(id).patch({ label });
  });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 11 }],
    },
  ],
});
