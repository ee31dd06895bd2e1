/**
 * A DynamoDB put conditioned on `attribute_not_exists` of an attribute its item stores creates
 * the item once: every later put of the same key is refused, so a late holder cannot overwrite
 * it (the DynamoDB form of a plain insert). Likewise an update that fills an attribute only while
 * it is absent. A condition joined by `OR`, or on an attribute the write does not store, is none.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import staleRule from '../../../src/rules/require-stale-check.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const under = (command: string, input: string) => `import Redlock from 'redlock';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const redlock = new Redlock([]);
export async function stamp(parcelId: string, depot: string) {
  const lock = await redlock.acquire(['parcel:' + parcelId], 5000);
  try {
    await ddb.send(new ${command}(${input}));
  } finally {
    await lock.release();
  }
}`;

const createOnce = under('PutCommand', `{ TableName: 'scans', Item: { scanId: randomUUID(), parcelId, depot }, ConditionExpression: 'attribute_not_exists(scanId)' }`);

ruleTester.run('DynamoDB create-once writes', rule, {
  valid: [
    { name: 'a put of a new item, only while its key attribute is absent', code: createOnce },
    { name: 'the same through an attribute name, beside another condition', code: under('PutCommand', `{ TableName: 'scans', Item: { scanId: randomUUID(), parcelId, depot }, ConditionExpression: 'attribute_not_exists(#id) AND depot <> :none', ExpressionAttributeNames: { '#id': 'scanId' }, ExpressionAttributeValues: { ':none': '' } }`) },
    { name: 'an update that fills an attribute only while it is absent', code: under('UpdateCommand', `{ TableName: 'parcels', Key: { parcelId }, UpdateExpression: 'SET firstDepot = :d', ConditionExpression: 'attribute_not_exists(firstDepot)', ExpressionAttributeValues: { ':d': depot } }`) },
  ],
  invalid: [
    {
      name: 'attribute_not_exists joined by OR lets an overwrite through',
      code: under('PutCommand', `{ TableName: 'parcels', Item: { parcelId, depot }, ConditionExpression: 'attribute_not_exists(parcelId) OR depot = :d', ExpressionAttributeValues: { ':d': depot } }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
    {
      name: 'absent attribute that the put does not store: every put passes',
      code: under('PutCommand', `{ TableName: 'parcels', Item: { parcelId, depot }, ConditionExpression: 'attribute_not_exists(archivedAt)' }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 10 }],
    },
  ],
});

ruleTester.run('DynamoDB create-once writes and their refusal', staleRule, {
  valid: [{ name: 'a create-once put compares no token: its refusal is no stale outcome to read', code: createOnce }],
  invalid: [],
});
