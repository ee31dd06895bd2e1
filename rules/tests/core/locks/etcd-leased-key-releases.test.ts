/**
 * A key attached to a lease by id (`client.put(key).value(v).lease(leaseId)`) belongs to that
 * lease as one put through `lease.put(key)` does: deleting it by name after the lease expired
 * frees a newer holder's key; revoking the lease frees only one's own.
 */
import rule from '../../../src/rules/no-release-by-name.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const claim = `import { Etcd3 } from 'etcd3';
const etcd = new Etcd3();
export async function water(farmId: string) {
  const key = 'irrigate/' + farmId;
  const lease = etcd.lease(5);
  const id = await lease.grant();
  const res = await etcd.if(key, 'Create', '==', 0).then(etcd.put(key).value('me').lease(id)).commit();
  if (!res.succeeded) return;
`;

ruleTester.run('keys put under a lease by id', rule, {
  valid: [
    { name: 'revoking the lease', code: `${claim}  await lease.revoke();\n}` },
    {
      name: 'deleting a key that no lease holds and whose name says no lock',
      code: `import { Etcd3 } from 'etcd3';
const etcd = new Etcd3();
export async function forget(farmId: string) {
  await etcd.put('cache/' + farmId).value('x');
  await etcd.delete().key('cache/' + farmId);
}`,
    },
  ],
  invalid: [
    { name: 'deleting the leased key by name', code: `${claim}  await etcd.delete().key(key);\n}`, errors: [{ messageId: 'etcdDelete', line: 9 }] },
  ],
});
