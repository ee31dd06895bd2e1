/**
 * Sequelize's row locks in a transaction callback: a first step that reads its row with
 * `lock: t.LOCK.UPDATE` (or `lock: true`) on the callback's transaction holds the writes made on
 * that transaction after it (`{ transaction: t }` in their options), as TypeORM's
 * `pessimistic_write` does. A write left off the transaction, or after a read that locks
 * nothing, is still a late write.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redis from 'ioredis';
import { Sequelize, Model, DataTypes } from 'sequelize';
const redis = new Redis();
const sequelize = new Sequelize('postgres://localhost/clinic');
class Slot extends Model { declare status: string; }
Slot.init({ status: DataTypes.STRING }, { sequelize });
class Visit extends Model {}
Visit.init({ slotId: DataTypes.STRING }, { sequelize });
`;

const booking = (read: string, write: string) => `${header}export async function book(slotId: string, visitId: string) {
  if ((await redis.set('lock:slot:' + slotId, visitId, 'EX', 30, 'NX')) !== 'OK') return;
  try {
    await sequelize.transaction(async (t) => {
      const slot = await Slot.findOne(${read});
      if (!slot || slot.status !== 'open') throw new Error('taken');
      await slot.update({ status: 'booked' }, ${write});
      await Visit.update({ slotId }, { where: { id: visitId }, transaction: t });
    });
  } finally {
    await redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, 'lock:slot:' + slotId, visitId);
  }
}`;

ruleTester.run('require-fence-condition (Sequelize row locks in a transaction)', rule, {
  valid: [
    { name: 't.LOCK.UPDATE on the transaction', code: booking('{ where: { id: slotId }, lock: t.LOCK.UPDATE, transaction: t }', '{ transaction: t }') },
    { name: 'lock: true on the transaction', code: booking('{ where: { id: slotId }, lock: true, transaction: t }', '{ transaction: t }') },
  ],
  invalid: [
    {
      name: 'a read that locks nothing leaves both writes due',
      code: booking('{ where: { id: slotId }, transaction: t }', '{ transaction: t }'),
      errors: [{ messageId: 'recordWriteUnfenced', line: 15 }, { messageId: 'missingFenceNoToken', line: 16 }],
    },
    {
      name: 'a write left off the transaction commits on its own',
      code: booking('{ where: { id: slotId }, lock: t.LOCK.UPDATE, transaction: t }', '{}'),
      errors: [{ messageId: 'recordWriteUnfenced', line: 15 }],
    },
  ],
});
