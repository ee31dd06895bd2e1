/**
 * A get-or-create under a lock: the record is read, and where the read found none a new one is
 * built (`repo.create({...})`) and saved. That save inserts a row no other holder knows, so it
 * is no late write; a save after the branch joins may write back the record that was read, and
 * stays a finding.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const header = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { DataSource, Repository } from 'typeorm';
class Ledger { id!: string; owner!: string; balance!: number }
const redlock = new Redlock([new Redis()]);
declare const source: DataSource;
const ledgers: Repository<Ledger> = source.getRepository(Ledger);
`;

ruleTester.run('require-fence-condition (get-or-create saves)', rule, {
  valid: [
    {
      name: 'the save in the branch that built the missing record inserts it',
      code: `${header}export async function openLedger(owner: string) {
  return redlock.using(['ledger:' + owner], 5000, async () => {
    let ledger = await ledgers.findOne({ where: { owner } });
    if (!ledger) {
      ledger = ledgers.create({ owner, balance: 0 });
      try {
        ledger = await ledgers.save(ledger);
      } catch (error) {
        ledger = await ledgers.findOne({ where: { owner } });
      }
    }
    return ledger;
  });
}`,
    },
    {
      name: 'through a helper in the same file: the helper builds the record it saves',
      code: `${header}async function ensureLedger(owner: string) {
  let ledger = await ledgers.findOneBy({ owner });
  if (ledger === null) {
    ledger = ledgers.create({ owner, balance: 0 });
    await ledgers.save(ledger);
  }
  return ledger;
}
export async function open(owner: string) {
  await redlock.using(['ledger:' + owner], 5000, async () => {
    await ensureLedger(owner);
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'a save after the branches join may write back the record that was read',
      code: `${header}export async function credit(owner: string, amount: number) {
  await redlock.using(['ledger:' + owner], 5000, async () => {
    let ledger = await ledgers.findOne({ where: { owner } });
    if (!ledger) {
      ledger = ledgers.create({ owner, balance: 0 });
    }
    ledger.balance = ledger.balance + amount;
    await ledgers.save(ledger);
  });
}`,
      errors: [{ messageId: 'recordWriteUnfenced', line: 15 }],
    },
    {
      name: 'a record built, then replaced by a read, is the read record when saved',
      code: `${header}export async function rename(owner: string, next: string) {
  await redlock.using(['ledger:' + owner], 5000, async () => {
    let ledger = ledgers.create({ owner, balance: 0 });
    ledger = (await ledgers.findOneBy({ owner }))!;
    ledger.owner = next;
    await ledgers.save(ledger);
  });
}`,
      errors: [{ messageId: 'recordWriteUnfenced', line: 13 }],
    },
  ],
});
