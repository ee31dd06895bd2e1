import rule from '../../src/rules/require-stale-check.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const authority = `import { LeaseAuthority } from './lease-authority';
const authority = new LeaseAuthority();
`;
const pg = `import { Pool } from 'pg';
const pool = new Pool();
${authority}`;
const FENCED = "'UPDATE docs SET body = $1, fence_token = $2 WHERE id = $3 AND fence_token < $2'";
const prisma = `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
${authority}`;
const mongo = `import { MongoClient } from 'mongodb';
const docs = new MongoClient('').db('app').collection('docs');
${authority}`;
const dynamo = `import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
const ddb = DynamoDBDocumentClient.from({} as never);
${authority}`;
const dynamoWrite = `ddb.send(new UpdateCommand({
      TableName: 'docs',
      Key: { id },
      UpdateExpression: 'SET body = :b, fence_token = :t',
      ConditionExpression: 'fence_token < :t',
      ExpressionAttributeValues: { ':b': body, ':t': fenceToken },
    }))`;

ruleTester.run('require-stale-check', rule, {
  valid: [
    {
      name: 'the article: rowCount 0 is thrown as stale',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('stale fence token');
}`,
    },
    {
      name: 'the rows RETURNING gives, destructured: their length decides',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { rows } = await pool.query(${FENCED.slice(0, -1)} RETURNING id', [body, fenceToken, id]);
  if (rows.length === 0) throw new Error('stale fence token');
  const { rows: [saved] } = await pool.query(${FENCED.slice(0, -1)} RETURNING id', [body, fenceToken, id]);
  return saved;
}`,
    },
    {
      name: 'a distinct result for a refused write',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { rowCount } = await pool.query(${FENCED}, [body, fenceToken, id]);
  return rowCount === 1 ? { status: 'saved' } : { status: 'stale' };
}`,
    },
    {
      name: 'the result is returned to a caller that checks it',
      code: `${pg}async function writeDoc(id: string, body: string, fenceToken: bigint) {
  return pool.query(${FENCED}, [body, fenceToken, id]);
}
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await writeDoc(id, body, fenceToken);
  if (result.rowCount === 0) throw new Error('stale');
}`,
    },
    {
      name: 'the count is checked through a helper',
      code: `${pg}declare function assertApplied(result: unknown, what: string): void;
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  assertApplied(result, 'doc');
}`,
    },
    {
      name: 'an early return on zero skips the work that follows',
      code: `${pg}declare function notify(id: string): Promise<void>;
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) {
    console.warn('stale write refused', id);
    return;
  }
  await notify(id);
}`,
    },
    {
      name: 'mysql2: the header destructured and affectedRows checked',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const [result] = await db.execute('UPDATE docs SET body = ?, fence_token = ? WHERE id = ? AND fence_token < ?', [body, fenceToken, id, fenceToken]);
  if (result.affectedRows === 0) throw new Error('stale');
}`,
    },
    {
      name: 'knex: the returned count decides',
      code: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const updated = await db('docs').where({ id }).where('fence_token', '<', fenceToken).update({ body, fence_token: fenceToken });
  if (!updated) throw new Error('stale');
}`,
    },
    {
      name: 'Prisma updateMany: count checked',
      code: `${prisma}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const { count } = await prisma.doc.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
  if (count === 0) return { stale: true };
  return { stale: false };
}`,
    },
    {
      name: 'Prisma update: P2025 propagates (no catch)',
      code: `${prisma}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.doc.update({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
}`,
    },
    {
      name: 'MongoDB: matchedCount checked',
      code: `${mongo}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const res = await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
  if (res.matchedCount === 0) throw new Error('stale');
}`,
    },
    {
      name: 'postgres.js: count of the fenced update checked',
      code: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await sql\`UPDATE docs SET body = \${body}, fence_token = \${fenceToken} WHERE id = \${id} AND fence_token < \${fenceToken}\`;
  if (result.count === 0) throw new Error('stale');
}`,
    },
    {
      name: 'postgres.js: RETURNING row destructured and checked',
      code: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const [row] = await sql\`UPDATE docs SET body = \${body}, fence_token = \${fenceToken} WHERE id = \${id} AND fence_token < \${fenceToken} RETURNING id\`;
  if (!row) throw new Error('stale');
}`,
    },
    {
      name: 'DynamoDB: the failed condition becomes a stale result',
      code: `${dynamo}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  try {
    await ${dynamoWrite};
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return { stale: true };
    throw err;
  }
  return { stale: false };
}`,
    },
    {
      name: 'Redis script: the reply decides',
      code: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = "local t = tonumber(redis.call('GET', KEYS[2]) or '0') if tonumber(ARGV[2]) <= t then return 0 end redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[2]) return 1";
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const applied = await redis.eval(FENCED_SET, 2, key, key + ':fence', value, fenceToken);
  if (applied === 0) throw new Error('stale');
}`,
    },
    {
      name: 'an unfenced write is the business of require-fence-condition, not of this rule',
      code: `${pg}export async function save(id: string, body: string) {
  const lease = await authority.acquire(id);
  await pool.query('UPDATE docs SET body = $1 WHERE id = $2', [body, id]);
}`,
    },
    {
      name: 'a later write fenced by the same token is checked',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await pool.query('UPDATE doc_meta SET touched = true, fence_token = $1 WHERE id = $2 AND fence_token < $1', [fenceToken, id]);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('stale');
}`,
    },
    {
      name: 'DynamoDB: a refused write stops the job right there',
      code: `${dynamo}export async function save(id: string, body: string): Promise<void> {
  const { fenceToken } = await authority.acquire(id);
  try {
    await ${dynamoWrite};
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') {
      console.warn('stale token, a newer worker owns', id);
      return;
    }
    throw err;
  }
}`,
    },
    {
      name: 'a batch skips the refused item and moves on',
      code: `${pg}export async function saveAll(items: Array<{ id: string; body: string }>) {
  const { fenceToken } = await authority.acquire('batch');
  for (const item of items) {
    const result = await pool.query(${FENCED}, [item.body, fenceToken, item.id]);
    if (result.rowCount === 0) continue;
    await pool.query('INSERT INTO audit (doc) VALUES ($1)', [item.id]);
  }
}`,
    },
    {
      name: 'HTTP: the response status of a fenced PUT is checked',
      code: `${authority}export async function publish(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const response = await fetch('https://index/docs/' + id, { method: 'PUT', headers: { 'If-Match': String(fenceToken) }, body });
  if (!response.ok) throw new Error('index refused the write: ' + response.status);
}`,
    },
  ],
  invalid: [
    {
      name: 'HTTP: the response of a fenced PUT is dropped; fetch resolves for 412',
      code: `${authority}export async function publish(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await fetch('https://index/docs/' + id, { method: 'PUT', headers: { 'If-Match': String(fenceToken) }, body });
}`,
      errors: [
        {
          messageId: 'ignored',
          data: { member: 'ok', lock: ' (lock on line 4)' },
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `${authority}export async function publish(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await fetch('https://index/docs/' + id, { method: 'PUT', headers: { 'If-Match': String(fenceToken) }, body });
  if (!result.ok) throw new Error('stale fence token: the write was refused');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: the result is dropped (the suggestion binds it and throws on zero)',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await pool.query(${FENCED}, [body, fenceToken, id]);
  return { ok: true };
}`,
      errors: [
        {
          messageId: 'ignored',
          data: { member: 'rowCount', lock: ' (lock on line 6)' },
          line: 7,
          suggestions: [
            {
              messageId: 'throwOnStale',
              data: { check: 'result.rowCount === 0' },
              output: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('stale fence token: the write was refused');
  return { ok: true };
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: `if (!result)` is always false for a result object',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (!result) throw new Error('write failed');
}`,
      errors: [
        {
          messageId: 'misread',
          data: { read: '!result', member: 'rowCount', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'checkCount',
              data: { check: 'result.rowCount === 0' },
              output: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('write failed');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: rows.length of an UPDATE without RETURNING is always 0',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rows.length === 0) throw new Error('stale');
}`,
      errors: [
        {
          messageId: 'misread',
          data: { read: 'result.rows.length', member: 'rowCount', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'checkCount',
              data: { check: 'result.rowCount' },
              output: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('stale');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'pg: a refused write is logged and then reported as saved',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if (result.rowCount === 0) console.warn('nothing updated', id);
  return { status: 'saved' };
}`,
      errors: [{ messageId: 'loggedOnly', data: { member: 'rowCount', lock: ' (lock on line 6)' }, suggestions: [] }],
    },
    {
      name: 'mysql2: affectedRows read off the [header, fields] pair is undefined (the suggestion destructures)',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await db.execute('UPDATE docs SET body = ?, fence_token = ? WHERE id = ? AND fence_token < ?', [body, fenceToken, id, fenceToken]);
  if (result.affectedRows === 0) throw new Error('stale');
}`,
      errors: [
        {
          messageId: 'misreadPair',
          data: { read: 'result.affectedRows', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'checkCount',
              data: { check: '[result]' },
              output: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const [result] = await db.execute('UPDATE docs SET body = ?, fence_token = ? WHERE id = ? AND fence_token < ?', [body, fenceToken, id, fenceToken]);
  if (result.affectedRows === 0) throw new Error('stale');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'knex: the returned count is dropped',
      code: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await db('docs').where({ id }).where('fence_token', '<', fenceToken).update({ body, fence_token: fenceToken });
}`,
      errors: [
        {
          messageId: 'ignored',
          data: { member: 'count', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `import Knex from 'knex';
const db = Knex({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await db('docs').where({ id }).where('fence_token', '<', fenceToken).update({ body, fence_token: fenceToken });
  if (result === 0) throw new Error('stale fence token: the write was refused');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Prisma updateMany: the { count } is dropped',
      code: `${prisma}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await prisma.doc.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
}`,
      errors: [
        {
          messageId: 'ignored',
          data: { member: 'count', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `${prisma}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await prisma.doc.updateMany({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
  if (result.count === 0) throw new Error('stale fence token: the write was refused');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'Prisma update: P2025 caught and success returned',
      code: `${prisma}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  try {
    await prisma.doc.update({ where: { id, fenceToken: { lt: fenceToken } }, data: { body, fenceToken } });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2025') return true;
    throw err;
  }
  return true;
}`,
      errors: [{ messageId: 'swallowed', data: { member: 'P2025', line: 9, lock: ' (lock on line 6)' }, suggestions: [] }],
    },
    {
      name: 'MongoDB: `acknowledged` is true for a write that matched nothing',
      code: `${mongo}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const res = await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
  if (!res.acknowledged) throw new Error('write failed');
}`,
      errors: [
        {
          messageId: 'misread',
          data: { read: 'res.acknowledged', member: 'matchedCount', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'checkCount',
              data: { check: 'res.matchedCount > 0' },
              output: `${mongo}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const res = await docs.updateOne({ _id: id, fenceToken: { $lt: fenceToken } }, { $set: { body, fenceToken } });
  if (!(res.matchedCount > 0)) throw new Error('write failed');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'postgres.js: the result array is always truthy',
      code: `import postgres from 'postgres';
const sql = postgres();
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await sql\`UPDATE docs SET body = \${body}, fence_token = \${fenceToken} WHERE id = \${id} AND fence_token < \${fenceToken}\`;
  if (!result) throw new Error('stale');
}`,
      errors: [{ messageId: 'misread', data: { read: '!result', member: 'count', lock: ' (lock on line 6)' } , suggestions: [] }],
    },
    {
      name: 'DynamoDB: ConditionalCheckFailedException swallowed, then success',
      code: `${dynamo}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  try {
    await ${dynamoWrite};
  } catch (err) {
    if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
    console.info('condition failed', id);
  }
  return { saved: true };
}`,
      errors: [{ messageId: 'swallowed', data: { member: 'ConditionalCheckFailedException', line: 15, lock: ' (lock on line 6)' }, suggestions: [] }],
    },
    {
      name: 'Redis script: the reply is dropped',
      code: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = "local t = tonumber(redis.call('GET', KEYS[2]) or '0') if tonumber(ARGV[2]) <= t then return 0 end redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[2]) return 1";
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  await redis.eval(FENCED_SET, 2, key, key + ':fence', value, fenceToken);
}`,
      errors: [
        {
          messageId: 'ignored',
          data: { member: 'reply', lock: ' (lock on line 7)' },
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `import Redis from 'ioredis';
const redis = new Redis();
${authority}const FENCED_SET = "local t = tonumber(redis.call('GET', KEYS[2]) or '0') if tonumber(ARGV[2]) <= t then return 0 end redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[2]) return 1";
export async function save(key: string, value: string) {
  const { fenceToken } = await authority.acquire(key);
  const result = await redis.eval(FENCED_SET, 2, key, key + ':fence', value, fenceToken);
  if (!result) throw new Error('stale fence token: the write was refused');
}`,
            },
          ],
        },
      ],
    },
    {
      name: 'returned to a same-file caller that drops it',
      code: `${pg}async function writeDoc(id: string, body: string, fenceToken: bigint) {
  return pool.query(${FENCED}, [body, fenceToken, id]);
}
export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await writeDoc(id, body, fenceToken);
}`,
      errors: [{ messageId: 'returnedIgnored', data: { line: 10 }, suggestions: [] }],
    },
    {
      name: 'a repository function with no lock in this file drops the count',
      code: `import { Pool } from 'pg';
const pool = new Pool();
export async function writeDocument(id: string, body: string, fenceToken: bigint): Promise<void> {
  await pool.query('UPDATE documents SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, id, fenceToken]);
}`,
      errors: [{ messageId: 'ignored', data: { member: 'rowCount', lock: '' } , suggestions: [{ messageId: 'throwOnStale', output: `import { Pool } from 'pg';
const pool = new Pool();
export async function writeDocument(id: string, body: string, fenceToken: bigint): Promise<void> {
  const result = await pool.query('UPDATE documents SET body = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [body, id, fenceToken]);
  if (result.rowCount === 0) throw new Error('stale fence token: the write was refused');
}` }] }],
    },
  ],
});

// A type assertion changes nothing about what is read.
ruleTester.run('require-stale-check', rule, {
  valid: [
    {
      name: 'pg: the count read through a cast of the result',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query(${FENCED}, [body, fenceToken, id]);
  if ((result as { rowCount: number | null }).rowCount === 0) throw new Error('stale');
}`,
    },
  ],
  invalid: [
    {
      name: 'mysql2: affectedRows read off a cast of the [header, fields] pair is still undefined',
      code: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await db.execute('UPDATE docs SET body = ?, fence_token = ? WHERE id = ? AND fence_token < ?', [body, fenceToken, id, fenceToken]);
  if ((result as unknown as { affectedRows: number }).affectedRows === 0) throw new Error('stale');
}`,
      errors: [
        {
          messageId: 'misreadPair',
          data: { read: '(result as unknown as { affectedRows: n…', lock: ' (lock on line 6)' },
          suggestions: [
            {
              messageId: 'checkCount',
              data: { check: '[result]' },
              output: `import mysql from 'mysql2/promise';
const db = mysql.createPool({});
${authority}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const [result] = await db.execute('UPDATE docs SET body = ?, fence_token = ? WHERE id = ? AND fence_token < ?', [body, fenceToken, id, fenceToken]);
  if ((result as unknown as { affectedRows: number }).affectedRows === 0) throw new Error('stale');
}`,
            },
          ],
        },
      ],
    },
  ],
});

// A fenced write that bumps a quantity is judged like any other fenced write.
ruleTester.run('require-stale-check', rule, {
  valid: [],
  invalid: [
    {
      name: 'pg: a fenced in-place increment whose refusal is only logged, then reported as done',
      code: `${pg}export async function restock(sku: string, qty: number) {
  const { fenceToken } = await authority.acquire(sku);
  const res = await pool.query('UPDATE stock SET on_hand = on_hand + $2, fence_token = $3 WHERE sku = $1 AND fence_token < $3', [sku, qty, fenceToken]);
  if (res.rowCount === 0) {
    console.warn('restock refused', { sku });
  }
  return { ok: true };
}`,
      errors: [{ messageId: 'loggedOnly', data: { member: 'rowCount', lock: ' (lock on line 6)' }, suggestions: [] }],
    },
  ],
});

// A plain value stored only where the stored one is below it (`SET level = $1 WHERE level < $1`)
// only raises the column: a refused write leaves a larger value there and nothing to react to.
// The same shape with a fence token compared is a fence whose refusal must be read.
ruleTester.run('require-stale-check: raise-only writes of plain values', rule, {
  valid: [
    {
      name: 'a trust level raised under a redlock lease, result dropped',
      code: `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function promote(memberId: string, level: number) {
  const lock = await redlock.acquire(['member:' + memberId], 5000);
  try {
    await pool.query('UPDATE members SET trust_level = $1 WHERE member_id = $2 AND trust_level < $1', [level, memberId]);
  } finally {
    await lock.release();
  }
}`,
    },
  ],
  invalid: [
    {
      name: 'the same shape comparing the fence token the lease gave, result dropped',
      code: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  await pool.query('UPDATE docs SET body = $1, revision = $2 WHERE id = $3 AND revision < $2', [body, fenceToken, id]);
}`,
      errors: [
        {
          messageId: 'ignored',
          line: 7,
          suggestions: [
            {
              messageId: 'throwOnStale',
              output: `${pg}export async function save(id: string, body: string) {
  const { fenceToken } = await authority.acquire(id);
  const result = await pool.query('UPDATE docs SET body = $1, revision = $2 WHERE id = $3 AND revision < $2', [body, fenceToken, id]);
  if (result.rowCount === 0) throw new Error('stale fence token: the write was refused');
}`,
            },
          ],
        },
      ],
    },
  ],
});
