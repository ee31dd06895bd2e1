/**
 * A callback-style acquire made promise-returning with Node's `promisify`: the const it is bound
 * to takes the lock when called, and resolves to the handle the callback would have been given,
 * so the writes after `await acquire(id)` run under the lock.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const setup = `import { promisify } from 'node:util';
import * as util from 'node:util';
import DynamoDBLockClient from 'dynamodb-lock-client';
import { Pool } from 'pg';
const pool = new Pool();
const locker = new DynamoDBLockClient.FailOpen({ dynamodb: {} as never, lockTable: 'gate-locks', partitionKey: 'id' });
`;

ruleTester.run('promisified acquires', rule, {
  valid: [
    {
      name: 'promisify of something that is no lock method takes nothing',
      code: `${setup}const pause = promisify(setTimeout);
export async function openGate(gateId: string) {
  await pause(10);
  await pool.query('UPDATE gates SET open = true WHERE id = $1', [gateId]);
}`,
    },
    {
      name: 'a method bound without promisify is still callback style: called without a callback it is not read as the handle',
      code: `${setup}const take = locker.acquireLock.bind(locker);
export async function openGate(gateId: string) {
  const lock = await take(gateId);
  await pool.query('UPDATE gates SET open = true WHERE id = $1', [gateId]);
}`,
    },
  ],
  invalid: [
    {
      name: 'promisify(locker.acquireLock.bind(locker)): the write after the awaited call is under the lock',
      code: `${setup}const takeGate = promisify(locker.acquireLock.bind(locker));
export async function openGate(gateId: string) {
  const lock = await takeGate(gateId);
  await pool.query('UPDATE gates SET open = true WHERE id = $1', [gateId]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
    {
      name: 'util.promisify(locker.acquireLock).bind(locker) is the same acquire',
      code: `${setup}const takeGate = util.promisify(locker.acquireLock).bind(locker);
export async function openGate(gateId: string) {
  await takeGate(gateId);
  await pool.query('UPDATE gates SET open = true WHERE id = $1', [gateId]);
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
  ],
});
