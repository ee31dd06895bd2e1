/**
 * DynamoDB update expressions that only step numbers (`ADD n :d`, `SET n = n + :d`, also from
 * `if_not_exists(n, :zero)`) change a counter, as MongoDB `$inc` does: applied late, the step
 * lands once and overwrites nothing a newer holder wrote. Beside any absolute action the update
 * overwrites and stays reported.
 */
import rule from '../../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../../rule-tester.js';

const ruleTester = createRuleTester();

const under = (input: string) => `import Redlock from 'redlock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const redlock = new Redlock([]);
export async function tally(boothId: string, votes: number) {
  const lock = await redlock.acquire(['booth:' + boothId], 5000);
  try {
    await ddb.send(new UpdateCommand(${input}));
  } finally {
    await lock.release();
  }
}`;

ruleTester.run('DynamoDB counter steps', rule, {
  valid: [
    { name: 'ADD of a number', code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'ADD votes :v', ExpressionAttributeValues: { ':v': votes } }`) },
    { name: 'SET n = n + :d and ADD in one expression', code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'SET counted = counted + :one ADD votes :v', ExpressionAttributeValues: { ':one': 1, ':v': votes } }`) },
    { name: 'SET from if_not_exists, through an attribute name', code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'SET #v = if_not_exists(#v, :zero) - :v', ExpressionAttributeNames: { '#v': 'votes' }, ExpressionAttributeValues: { ':zero': 0, ':v': votes } }`) },
  ],
  invalid: [
    {
      name: 'a step beside an absolute SET overwrites',
      code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'SET closedBy = :me ADD votes :v', ExpressionAttributeValues: { ':me': 'x', ':v': votes } }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
    {
      name: 'an attribute set from another one is no step of itself',
      code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'SET votes = counted + :v', ExpressionAttributeValues: { ':v': votes } }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
    {
      name: 'a REMOVE beside the step',
      code: under(`{ TableName: 'booths', Key: { boothId }, UpdateExpression: 'ADD votes :v REMOVE pending', ExpressionAttributeValues: { ':v': votes } }`),
      errors: [{ messageId: 'missingFenceNoToken', line: 9 }],
    },
  ],
});
