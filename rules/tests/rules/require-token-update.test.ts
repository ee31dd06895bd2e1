import rule from '../../src/rules/require-token-update.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const authority = `import { LeaseAuthority } from './lease-authority';
const authority = new LeaseAuthority();
`;
const pg = `import { Pool } from 'pg';
const pool = new Pool();
${authority}`;

const pgLogger = `import { Pool } from 'pg';
import pino from 'pino';
const pool = new Pool();
const log = pino();
export interface Lease { leaseId: string; fenceToken: bigint }
`;

const redlockRedis = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
const pool = new Pool();
const redis = new Redis();
const redlock = new Redlock([redis]);
`;

ruleTester.run('require-token-update', rule, {
  valid: [
    {
      name: 'the article: compares and stores the token in one UPDATE',
      code: `${pg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2', [value, lease.fenceToken, key]);
}`,
    },
    {
      name: 'stores the newer of the two with GREATEST',
      code: `${pg}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1, fence_token = GREATEST(fence_token, $2) WHERE resource_key = $3 AND fence_token < $2', [value, fenceToken, key]);
}`,
    },
    {
      name: 'equality on the holder is compare-and-set: nothing new to store',
      code: `${pg}export async function finish(job: string, owner: string) {
  const lease = await authority.acquire(job);
  await pool.query('UPDATE jobs SET state = $1 WHERE id = $2 AND lease_owner = $3', ['done', job, owner]);
}`,
    },
    {
      name: 'a DELETE that compares the token has nothing to store',
      code: `${pg}export async function drop(key: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('DELETE FROM resource_state WHERE resource_key = $1 AND fence_token < $2', [key, fenceToken]);
}`,
    },
    {
      name: 'the token is stored by a helper named for it, right after, in the same function',
      code: `${pg}async function storeFenceToken(key: string, token: number) {
  await pool.query('UPDATE resource_fences SET fence_token = $2 WHERE resource_key = $1', [key, token]);
}
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3', [value, key, fenceToken]);
  await storeFenceToken(key, fenceToken);
}`,
    },
    {
      name: 'postgres.js: compared and stored in the same template',
      code: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await sql\`UPDATE resource_state SET value = \${value}, fence_token = \${lease.fenceToken} WHERE resource_key = \${key} AND fence_token < \${lease.fenceToken}\`;
}`,
    },
    {
      name: 'knex: the compared column is also in the update object',
      code: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state').where({ resource_key: key }).where('fence_token', '<', fenceToken).update({ value, fence_token: fenceToken });
}`,
    },
    {
      name: 'knex: the values come from a helper that adds the token (cannot be seen, not claimed missing)',
      code: `import Knex from 'knex';
const db = Knex({});
${authority}declare function withFence<T>(values: T, token: number): T;
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state').where('fence_token', '<', fenceToken).update(withFence({ value }, fenceToken));
}`,
    },
    {
      name: 'Prisma updateMany with the token in data',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.document.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
}`,
    },
    {
      name: 'Prisma: data spreads an object that may carry the token',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
${authority}export async function save(id: string, patch: object) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.document.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { ...patch } });
}`,
    },
    {
      name: 'MongoDB: $set carries the token',
      code: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('').db('app').collection('docs');
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
}`,
    },
    {
      name: 'MongoDB: $max stores the token',
      code: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('').db('app').collection('docs');
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body }, $max: { fenceToken } });
}`,
    },
    {
      name: 'DynamoDB: the UpdateExpression sets the compared attribute',
      code: `import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await ddb.send(new UpdateCommand({
    TableName: 'docs',
    Key: { id },
    UpdateExpression: 'SET body = :b, fence_token = :t',
    ConditionExpression: 'fence_token < :t',
    ExpressionAttributeValues: { ':b': body, ':t': fenceToken },
  }));
}`,
    },
    {
      name: 'Redis: the script compares and stores the token',
      code: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = \`
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return 1\`;
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await redis.eval(FENCED_SET, 2, key, \`\${key}:fence\`, value, fenceToken);
}`,
    },
    {
      name: 'Redis: a compare-and-delete release script compares the owner, not a token',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function release(lockKey: string, owner: string) {
  await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, lockKey, owner);
}`,
    },
    {
      name: 'a SELECT that compares the token writes nothing',
      code: `${pg}export async function read(key: string) {
  const { fenceToken } = await authority.acquire(key);
  return pool.query('SELECT value FROM resource_state WHERE resource_key = $1 AND fence_token < $2', [key, fenceToken]);
}`,
    },
  ],
  invalid: [
    {
      name: 'a token received from a caller compared but not stored',
      code: `${pgLogger}
export async function saveState(key: string, value: string, fenceToken: bigint) {
  await pool.query('UPDATE state SET value = $1 WHERE key = $2 AND fence_token < $3', [value, key, fenceToken]);
}`,
      errors: [{ messageId: 'tokenNotStored', line: 8, suggestions: [{ messageId: 'storeToken', output: `${pgLogger}
export async function saveState(key: string, value: string, fenceToken: bigint) {
  await pool.query('UPDATE state SET value = $1, fence_token = $3 WHERE key = $2 AND fence_token < $3', [value, key, fenceToken]);
}` }] }],
    },
    {
      name: 'a Redis INCR counter under any name is compared but not stored',
      code: `${redlockRedis}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const n = await redis.incr(\`fence:\${key}\`);
    await pool.query('UPDATE documents SET body = $1 WHERE id = $2 AND writer_seq < $3', [body, key, n]);
  } finally { await lock.release(); }
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'writer_seq', lock: ' (lock on line 9)' },
          line: 12,
          suggestions: [
            {
              messageId: 'storeToken',
              output: `${redlockRedis}
export async function save(key: string, body: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    const n = await redis.incr(\`fence:\${key}\`);
    await pool.query('UPDATE documents SET body = $1, writer_seq = $3 WHERE id = $2 AND writer_seq < $3', [body, key, n]);
  } finally { await lock.release(); }
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: compares the token but does not store it (the suggestion stores the compared parameter)',
      code: `${pg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3', [value, key, lease.fenceToken]);
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: ' (lock on line 6)' },
          line: 7,
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: 'lease.fenceToken', column: 'fence_token' },
              output: `${pg}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, lease.fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: any column compared with the token, in multi-line SQL',
      code: `${pg}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query(
    \`UPDATE documents
        SET body = $1
      WHERE id = $2
        AND revision <= $3\`,
    [value, key, fenceToken],
  );
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'revision', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: 'fenceToken', column: 'revision' },
              output: `${pg}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query(
    \`UPDATE documents
        SET body = $1, revision = $3
      WHERE id = $2
        AND revision <= $3\`,
    [value, key, fenceToken],
  );
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'mysql2: the suggestion adds `?` and the token to the values in the right place',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db.execute('UPDATE resource_state SET value = ? WHERE resource_key = ? AND fence_token < ?', [value, key, fenceToken]);
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db.execute('UPDATE resource_state SET value = ?, fence_token = ? WHERE resource_key = ? AND fence_token < ?', [value, fenceToken, key, fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'postgres.js: the suggestion interpolates the compared value',
      code: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await sql\`UPDATE resource_state SET value = \${value} WHERE resource_key = \${key} AND fence_token < \${lease.fenceToken}\`;
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  await sql\`UPDATE resource_state SET value = \${value}, fence_token = \${lease.fenceToken} WHERE resource_key = \${key} AND fence_token < \${lease.fenceToken}\`;
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'an upsert whose DO UPDATE compares but does not store',
      code: `${pg}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($1, $2, $3) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value WHERE resource_state.fence_token < EXCLUDED.fence_token', [key, value, fenceToken]);
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: 'fenceToken', column: 'fence_token' },
              output: `${pg}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await pool.query('INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($1, $2, $3) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = $3 WHERE resource_state.fence_token < EXCLUDED.fence_token', [key, value, fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'a repository function that receives the token, with no lock in this file',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function writeDocument(id: string, body: string, fenceToken: bigint) {
  await pool.query('UPDATE documents SET body = $1 WHERE id = $2 AND fence_token < $3', [body, id, fenceToken]);
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: '' },
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import { Pool } from 'pg';
const pool = new Pool();
export async function writeDocument(id: string, body: string, fenceToken: bigint) {
  await pool.query('UPDATE documents SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, id, fenceToken]);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'knex: .where(col, "<", token).update({...}) leaves the column out',
      code: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state')
    .where({ resource_key: key })
    .where('fence_token', '<', fenceToken)
    .update({ value });
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await db('resource_state')
    .where({ resource_key: key })
    .where('fence_token', '<', fenceToken)
    .update({ value, fence_token: fenceToken });
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Prisma updateMany whose data omits the token field',
      code: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.document.updateMany({
    where: { id, fenceToken: { lt: fenceToken } },
    data: {
      body,
    },
  });
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fenceToken', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: 'fenceToken', column: 'fenceToken' },
              output: `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.document.updateMany({
    where: { id, fenceToken: { lt: fenceToken } },
    data: {
      body,
      fenceToken,
    },
  });
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Prisma inside $transaction: the callback client is Prisma too',
      code: `import { PrismaClient } from '@prisma/client';
const store = new PrismaClient();
${authority}export async function save(id: string, body: string) {
  const lease = await authority.acquire(id);
  await store.$transaction(async (q) => {
    await q.document.updateMany({ where: { id, generation: { lt: lease.fenceToken } }, data: { body } });
  });
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'generation', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import { PrismaClient } from '@prisma/client';
const store = new PrismaClient();
${authority}export async function save(id: string, body: string) {
  const lease = await authority.acquire(id);
  await store.$transaction(async (q) => {
    await q.document.updateMany({ where: { id, generation: { lt: lease.fenceToken } }, data: { body, generation: lease.fenceToken } });
  });
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'MongoDB: $set without the token',
      code: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('').db('app').collection('docs');
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docs.updateOne({ _id: id, fence_token: { $lt: fenceToken } }, { $set: { body } });
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import { MongoClient } from 'mongodb';
const docs = new MongoClient('').db('app').collection('docs');
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docs.updateOne({ _id: id, fence_token: { $lt: fenceToken } }, { $set: { body, fence_token: fenceToken } });
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'DynamoDB: the UpdateExpression never sets the token attribute',
      code: `import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await ddb.send(new UpdateCommand({
    TableName: 'docs',
    Key: { id },
    UpdateExpression: 'SET body = :b',
    ConditionExpression: '#ft < :t',
    ExpressionAttributeNames: { '#ft': 'fence_token' },
    ExpressionAttributeValues: { ':b': body, ':t': fenceToken },
  }));
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          data: { column: 'fence_token', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: ':t', column: '#ft' },
              output: `import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await ddb.send(new UpdateCommand({
    TableName: 'docs',
    Key: { id },
    UpdateExpression: 'SET body = :b, #ft = :t',
    ConditionExpression: '#ft < :t',
    ExpressionAttributeNames: { '#ft': 'fence_token' },
    ExpressionAttributeValues: { ':b': body, ':t': fenceToken },
  }));
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'DynamoDB v2 DocumentClient: same, through update().promise()',
      code: `import { DynamoDB } from 'aws-sdk';
const docClient = new DynamoDB.DocumentClient();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docClient.update({ TableName: 'docs', Key: { id }, UpdateExpression: 'SET body = :b REMOVE draft', ConditionExpression: 'fence_token < :t', ExpressionAttributeValues: { ':b': body, ':t': fenceToken } }).promise();
}`,
      errors: [
        {
          messageId: 'tokenNotStored',
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import { DynamoDB } from 'aws-sdk';
const docClient = new DynamoDB.DocumentClient();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await docClient.update({ TableName: 'docs', Key: { id }, UpdateExpression: 'SET body = :b, fence_token = :t REMOVE draft', ConditionExpression: 'fence_token < :t', ExpressionAttributeValues: { ':b': body, ':t': fenceToken } }).promise();
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Redis: a script that compares the token and never stores it',
      code: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = \`
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1\`;
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await redis.eval(FENCED_SET, 2, key, \`\${key}:fence\`, value, fenceToken);
}`,
      errors: [
        {
          messageId: 'scriptTokenNotStored',
          data: { arg: 'ARGV[2]', column: 'KEYS[2]', lock: ' (lock on line 11)' },
          suggestions: [
            {
              messageId: 'storeToken',
              data: { value: 'ARGV[2]', column: 'KEYS[2]' },
              output: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = \`
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return 1\`;
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await redis.eval(FENCED_SET, 2, key, \`\${key}:fence\`, value, fenceToken);
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Redis: a defineCommand script with a local alias for the token, in a hash',
      code: `import Redis from 'ioredis';
const redis = new Redis();
redis.defineCommand('fencedWrite', {
  numberOfKeys: 1,
  lua: "local token = tonumber(ARGV[2]) local stored = tonumber(redis.call('HGET', KEYS[1], 'fence')) if stored and token < stored then return 0 end redis.call('HSET', KEYS[1], 'value', ARGV[1]) return 1",
});
export async function save(key: string, value: string, fenceToken: number) {
  await (redis as any).fencedWrite(key, value, fenceToken);
}`,
      errors: [
        {
          messageId: 'scriptTokenNotStored',
          data: { arg: 'ARGV[2]', column: 'KEYS[1]', lock: '' },
          suggestions: [
            {
              messageId: 'storeToken',
              output: `import Redis from 'ioredis';
const redis = new Redis();
redis.defineCommand('fencedWrite', {
  numberOfKeys: 1,
  lua: "local token = tonumber(ARGV[2]) local stored = tonumber(redis.call('HGET', KEYS[1], 'fence')) if stored and token < stored then return 0 end redis.call('HSET', KEYS[1], 'value', ARGV[1]) redis.call('HSET', KEYS[1], 'fence', ARGV[2]) return 1",
});
export async function save(key: string, value: string, fenceToken: number) {
  await (redis as any).fencedWrite(key, value, fenceToken);
}`,
            },
          ],
        },
      ],
    },
  ],
});
