/**
 * A lease document claimed through a Mongoose model named for a lock (`JobLock`, `Lease`): an
 * `updateOne`/`findOneAndUpdate` that writes a holder into it takes the lease, as the same write
 * through the driver's `db.collection('locks')` does, so the writes after it run under it.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const models = `import mongoose from 'mongoose';
const JobLock = mongoose.model('JobLock', new mongoose.Schema({ _id: String, holder: String, expiresAt: Date }));
const Block = mongoose.model('Block', new mongoose.Schema({ _id: String, holder: String, height: Number }));
const Report = mongoose.model('Report', new mongoose.Schema({ _id: String, status: String }));
`;

ruleTester.run('Mongoose lease models', rule, {
  valid: [
    {
      name: 'a model whose name only contains the letters of lock (Block) holds no leases',
      code: `${models}export async function build(id: string, me: string) {
  await Block.updateOne({ _id: id }, { holder: me });
  await Report.updateOne({ _id: id }, { $set: { status: 'built' } });
}`,
    },
    {
      name: 'freeing the lease row (holder: null) takes nothing',
      code: `${models}export async function free(id: string) {
  await JobLock.updateOne({ _id: id }, { $set: { holder: null } });
  await Report.updateOne({ _id: id }, { $set: { status: 'idle' } });
}`,
    },
  ],
  invalid: [
    {
      name: 'a holder written into a JobLock document takes the lease',
      code: `${models}export async function build(id: string, me: string) {
  await JobLock.findOneAndUpdate({ _id: id, expiresAt: { $lt: new Date() } }, { holder: me, expiresAt: new Date(Date.now() + 30_000) }, { upsert: true });
  await Report.updateOne({ _id: id }, { $set: { status: 'built' } });
}`,
      errors: [{ messageId: 'missingFenceNoToken', line: 7 }],
    },
  ],
});
