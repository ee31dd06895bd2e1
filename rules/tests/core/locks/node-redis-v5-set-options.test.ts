/**
 * node-redis v5 spells SET's options as `{ condition: 'NX', expiration: { type: 'PX', value } }`:
 * that takes a lease as v4's `{ NX: true, PX }` does. `condition: 'XX'` only overwrites an
 * existing key and takes nothing.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const withOptions = (options: string) => `import { createClient } from 'redis';
import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
const redis = createClient();
const pool = new Pool();
export async function rotate(keyId: string) {
  const me = randomUUID();
  const reply = await redis.set('rotate-lock:' + keyId, me, ${options});
  if (reply !== 'OK') return;
  await pool.query('UPDATE signing_keys SET active = false WHERE id = $1', [keyId]);
}`;

ruleTester.run('node-redis v5 SET options', rule, {
  valid: [{ name: "condition: 'XX' renews an existing key, takes nothing", code: withOptions(`{ condition: 'XX', expiration: { type: 'PX', value: 5000 } }`) }],
  invalid: [
    {
      name: "condition: 'NX' with an expiration object takes a lease",
      code: withOptions(`{ condition: 'NX', expiration: { type: 'PX', value: 5000 } }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
  ],
});
