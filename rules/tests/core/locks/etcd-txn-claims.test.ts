/**
 * An etcd key taken by hand: a transaction that puts the key under a lease only while it has
 * never been created. The code that goes on once the transaction succeeded holds an expiring
 * lease, as after a Redis `SET NX PX`, up to the lease's revoke. A put without a lease never
 * expires and takes no lock.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const setup = `import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
const etcd = new Etcd3();
const pool = new Pool();
`;

ruleTester.run('etcd create-if-absent claims', rule, {
  valid: [
    {
      name: 'a key put without a lease is a marker: nothing after it is under a lock',
      code: `${setup}export async function seed(farmId: string) {
  const key = 'seeded/' + farmId;
  const res = await etcd.if(key, 'Create', '==', 0).then(etcd.put(key).value('1')).commit();
  if (!res.succeeded) return;
  await pool.query('UPDATE farms SET seeded = true WHERE id = $1', [farmId]);
}`,
    },
    {
      name: 'a transaction that compares the value, not its absence, takes nothing',
      code: `${setup}export async function rename(farmId: string, grant: string) {
  const key = 'owner/' + farmId;
  const res = await etcd.if(key, 'Value', '==', 'me').then(etcd.put(key).value('me').lease(grant)).commit();
  if (!res.succeeded) return;
  await pool.query('UPDATE farms SET name = $2 WHERE id = $1', [farmId, 'x']);
}`,
    },
    {
      name: 'the write after the lease is revoked is outside the section',
      code: `${setup}export async function water(farmId: string) {
  const key = 'irrigate/' + farmId;
  const lease = etcd.lease(5);
  const id = await lease.grant();
  const res = await etcd.if(key, 'Create', '==', 0).then(etcd.put(key).value('me').lease(id)).commit();
  if (!res.succeeded) return;
  await lease.revoke();
  await pool.query('UPDATE farms SET watered_at = now() WHERE id = $1', [farmId]);
}`,
    },
    {
      name: "the claim's revision compared and stored by the write",
      code: `${setup}export async function water(farmId: string) {
  const key = 'irrigate/' + farmId;
  const lease = etcd.lease(5);
  const id = await lease.grant();
  const res = await etcd.if(key, 'Create', '==', 0).then(etcd.put(key).value('me').lease(id)).commit();
  if (!res.succeeded) return;
  try {
    const rev = res.header.revision;
    await pool.query('UPDATE farms SET watered_at = now(), rev = $2 WHERE id = $1 AND rev < $2', [farmId, rev]);
  } finally {
    await lease.revoke();
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'put under a lease by id, only while absent: the write after success is under the lease',
      code: `${setup}export async function water(farmId: string) {
  const key = 'irrigate/' + farmId;
  const lease = etcd.lease(5);
  const id = await lease.grant();
  const res = await etcd.if(key, 'Create', '==', 0).then(etcd.put(key).value('me').lease(id)).commit();
  if (!res.succeeded) {
    await lease.revoke();
    return;
  }
  try {
    await pool.query('UPDATE farms SET watered_at = now() WHERE id = $1', [farmId]);
  } finally {
    await etcd.delete().key(key);
  }
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 15 }],
    },
    {
      name: 'lease.put(key) in the transaction, absence tested through the version',
      code: `${setup}export async function water(farmId: string) {
  const key = 'irrigate/' + farmId;
  const lease = etcd.lease(5);
  const res = await etcd.if(key, 'Version', '==', 0).then(lease.put(key).value('me')).commit();
  if (!res.succeeded) return;
  await pool.query('UPDATE farms SET watered_at = now() WHERE id = $1', [farmId]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
  ],
});
