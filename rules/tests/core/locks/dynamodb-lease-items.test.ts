/**
 * A lock item in DynamoDB taken by a conditional write that puts a holder in it
 * (`UpdateCommand` with `SET holder = :me` and a `ConditionExpression`, or a `PutCommand` of an
 * item with an `owner`), in a table named as a lock table (also through a constant with a
 * default: `process.env.LOCKS_TABLE ?? 'kiln_locks'`): the writes after it run under the lease
 * until a same-file helper deletes the item, and the lock table's own writes are the lock's
 * upkeep, not writes it protects. The same write without a condition, or to a table that is no
 * lock table, takes nothing.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../../src/index.js';

function findings(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  return linter
    .verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { fencelint: plugin as never }, rules: { 'fencelint/require-fence-condition': 'error' } }], 'kiln.ts')
    .map((m) => `${m.line} ${m.ruleId}`);
}

const service = (claim: string, table = `process.env.LOCKS_TABLE ?? 'kiln_locks'`) => `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const LOCKS = ${table};
const ME = 'firing-' + process.pid;
async function takeKiln(kilnId: string): Promise<boolean> {
  const now = Date.now();
  try {
${claim}
    return true;
  } catch {
    return false;
  }
}
async function freeKiln(kilnId: string): Promise<void> {
  await ddb.send(new DeleteCommand({ TableName: LOCKS, Key: { kilnId } }));
}
export async function fire(kilnId: string, profile: string) {
  if (!(await takeKiln(kilnId))) return;
  try {
    await fetch('http://kilns.internal/' + kilnId + '/profile', { method: 'PUT', body: profile });
  } finally {
    await freeKiln(kilnId);
  }
  await fetch('http://kilns.internal/' + kilnId + '/log', { method: 'PUT', body: 'fired' });
}
`;

const update = `    await ddb.send(new UpdateCommand({
      TableName: LOCKS,
      Key: { kilnId },
      UpdateExpression: 'SET #h = :me, expiresAt = :until',
      ConditionExpression: 'attribute_not_exists(#h) OR expiresAt < :now',
      ExpressionAttributeNames: { '#h': 'holder' },
      ExpressionAttributeValues: { ':me': ME, ':until': now + 60_000, ':now': now },
    }));`;

const put = `    await ddb.send(new PutCommand({
      TableName: LOCKS,
      Item: { kilnId, owner: ME, expiresAt: now + 60_000 },
      ConditionExpression: 'attribute_not_exists(kilnId) OR expiresAt < :now',
      ExpressionAttributeValues: { ':now': now },
    }));`;

describe('a DynamoDB lock item claimed by a conditional write', () => {
  it('an update that sets the holder opens a section, which the delete helper ends', () => {
    expect(findings(service(update))).toEqual(['28 fencelint/require-fence-condition']);
  });

  it('so does a put of an item with an owner', () => {
    expect(findings(service(put))).toEqual(['26 fencelint/require-fence-condition']);
  });

  it('without a condition, or in a table that is no lock table, it takes nothing', () => {
    expect(findings(service(update.replace(/\n\s+ConditionExpression: .*,/, '')))).toEqual([]);
    expect(findings(service(put, `'kiln_profiles'`))).toEqual([]);
  });
});
