/**
 * The sinks catalog and the receivers it resolves: which library a write goes through, found
 * through imports, factories, callbacks, same-file functions, subclasses and types, with the
 * result shape `require-stale-check` reads.
 */
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { getFileAnalysis, type WriteSite } from '../../../src/core/file-analysis.js';
import { loadSqlParser } from '../../../src/core/sql/index.js';
import { ANY_COUNT_MEMBER, SINK_MODELS, resultShapeOf, sinkModel } from '../../../src/core/models/sinks.js';

await loadSqlParser();

/** The writes the per-file pass finds, as `library:method` of the catalog. */
function writesOf(code: string): string[] {
  const found: WriteSite[] = [];
  const linter = new Linter({ configType: 'flat' });
  const probe = {
    create(context: never) {
      return { 'Program:exit': () => found.push(...getFileAnalysis(context).writes) };
    },
  };
  const messages = linter.verify(code, [
    { files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { probe: { rules: { writes: probe as never } } }, rules: { 'probe/writes': 'error' } },
  ], 'service.ts');
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return found.map((w) => {
    if (w.sink === 'sql') return `${w.call.client?.id ?? 'sql'}:${w.call.method}`;
    if (w.sink === 'knex') return `knex:${w.write.method}`;
    if (w.sink === 'object') return `${w.write.model.id}:${w.write.method}`;
    if (w.sink === 'call') return `call:${w.callee.name}`;
    return `${w.write.model.id}`;
  });
}

const redlock = `import Redlock from 'redlock';\nconst redlock = new Redlock([]);\n`;
const underLock = (body: string) => `export async function run(id: string, v: string) {\n  const lock = await redlock.acquire([id], 5000);\n  try {\n${body}\n  } finally { await lock.release(); }\n}`;

describe('the sinks catalog', () => {
  it('has one entry per library, each with a result shape and a fence template unless the store has no conditional write', () => {
    const ids = SINK_MODELS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of SINK_MODELS) {
      expect(model.result.type).toBeTruthy();
      if (model.conditionStyle === 'none') expect(model.fence.compare).toBe('');
      else expect(model.fence.compare).toBeTruthy();
    }
  });

  it('knows each library\'s stale result', () => {
    expect(resultShapeOf(sinkModel('pg'), 'query')).toMatchObject({ type: 'count', read: ['rowCount'] });
    expect(resultShapeOf(sinkModel('mysql2'), 'execute')).toMatchObject({ type: 'count', read: ['affectedRows', 'changedRows'], tuple: 0 });
    expect(resultShapeOf(sinkModel('postgres'), 'sql')).toMatchObject({ type: 'rows', read: ['count', 'length'] });
    expect(resultShapeOf(sinkModel('knex'), 'update')).toEqual({ type: 'number' });
    expect(resultShapeOf(sinkModel('prisma'), 'updateMany')).toMatchObject({ type: 'count', read: ['count'] });
    expect(resultShapeOf(sinkModel('prisma'), 'update')).toMatchObject({ type: 'exception', codes: ['P2025'] });
    expect(resultShapeOf(sinkModel('mongodb'), 'updateOne')).toMatchObject({ type: 'count', read: expect.arrayContaining(['matchedCount', 'modifiedCount']), misleading: expect.arrayContaining(['acknowledged']) });
    expect(resultShapeOf(sinkModel('dynamodb'), 'UpdateCommand')).toMatchObject({ type: 'exception', names: expect.arrayContaining(['ConditionalCheckFailedException']) });
    expect(resultShapeOf(sinkModel('redis'), 'eval')).toEqual({ type: 'reply' });
    expect(resultShapeOf(sinkModel('pg-promise'), 'none')).toEqual({ type: 'none' });
    expect(ANY_COUNT_MEMBER.has('rowCount') && ANY_COUNT_MEMBER.has('affectedRows') && ANY_COUNT_MEMBER.has('matchedCount')).toBe(true);
  });
});

describe('receivers resolved through the catalog', () => {
  it('pg, mysql2 and postgres.js clients by import, factory and tag', () => {
    expect(writesOf(`${redlock}import { Pool } from 'pg';\nconst pool = new Pool();\n${underLock(`    const c = await pool.connect();\n    await c.query('UPDATE t SET v = $1 WHERE id = $2', [v, id]);`)}`)).toEqual(['pg:query']);
    expect(writesOf(`${redlock}import mysql from 'mysql2/promise';\nconst db = mysql.createPool({});\n${underLock(`    await db.execute('UPDATE t SET v = ? WHERE id = ?', [v, id]);`)}`)).toEqual(['mysql2:execute']);
    expect(writesOf(`${redlock}import postgres from 'postgres';\nconst sql = postgres();\n${underLock('    await sql`UPDATE t SET v = ${v} WHERE id = ${id}`;')}`)).toEqual(['postgres:sql']);
  });

  it('Prisma by import, not by name: a client called `store`, a `$transaction` callback, a subclass, a factory expression', () => {
    const prisma = `import { PrismaClient } from '@prisma/client';\n`;
    expect(writesOf(`${redlock}${prisma}const store = new PrismaClient();\n${underLock('    await store.account.updateMany({ where: { id }, data: { v } });')}`)).toEqual(['prisma:updateMany']);
    expect(writesOf(`${redlock}${prisma}const store = new PrismaClient();\n${underLock('    await store.$transaction(async (q) => { await q.account.update({ where: { id }, data: { v } }); });')}`)).toEqual(['prisma:update']);
    expect(writesOf(`${redlock}${prisma}class Store extends PrismaClient {}\nconst store = new Store();\n${underLock('    await store.account.update({ where: { id }, data: { v } });')}`)).toEqual(['prisma:update']);
    expect(
      writesOf(`${redlock}${prisma}const base = new PrismaClient();\nfunction getClient() { return base; }\nlet trx: PrismaClient | undefined;\n${underLock('    await (trx ?? getClient()).account.update({ where: { id }, data: { v } });')}`),
    ).toEqual(['prisma:update']);
    expect(writesOf(`${redlock}import type { Prisma } from '@prisma/client';\nasync function save(q: Prisma.TransactionClient, id: string, v: string) { await q.account.update({ where: { id }, data: { v } }); }\n${underLock('    await save(undefined as never, id, v);')}`)).toEqual(['prisma:update']);
  });

  it('a resolved non-Prisma receiver is not read as Prisma even when named like one', () => {
    expect(writesOf(`${redlock}import { Pool } from 'pg';\nconst prisma = new Pool();\n${underLock('    await prisma.account.update({ where: { id }, data: { v } });')}`)).toEqual([]);
  });

  it('TypeORM repositories through getRepository and Repository<T>', () => {
    const typeorm = `import { DataSource, Repository } from 'typeorm';\nconst ds = new DataSource({} as never);\n`;
    expect(writesOf(`${redlock}${typeorm}const accounts = ds.getRepository('Account');\n${underLock('    await accounts.update({ id }, { v });')}`)).toEqual(['typeorm:update']);
    expect(writesOf(`${redlock}${typeorm}class Svc { constructor(private readonly accounts: Repository<object>) {}\n  ${underLock('    await this.accounts.update({ id }, { v });').replace('export async function run', 'async run')} }`)).toEqual(['typeorm:update']);
  });

  it('this.db assigned from a typed constructor parameter', () => {
    const code = `${redlock}import { Pool } from 'pg';\nclass Repo {\n  private db: unknown;\n  constructor(db: Pool) { this.db = db; }\n  ${underLock("    await (this.db as Pool).query('UPDATE t SET v = $1 WHERE id = $2', [v, id]);").replace('export async function run', 'async run')}\n}`;
    expect(writesOf(code)).toEqual(['pg:query']);
  });

  it('knex transactions, Mongo collections, DynamoDB commands', () => {
    expect(writesOf(`${redlock}import Knex from 'knex';\nconst k = Knex({});\n${underLock("    await k.transaction(async (t) => { await t('accounts').where({ id }).update({ v }); });")}`)).toEqual(['knex:update']);
    expect(writesOf(`${redlock}import { MongoClient } from 'mongodb';\nconst docs = new MongoClient('').db('app').collection('docs');\n${underLock('    await docs.updateOne({ _id: id }, { $set: { v } });')}`)).toEqual(['mongodb:updateOne']);
    expect(writesOf(`${redlock}import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';\nconst ddb = DynamoDBDocumentClient.from({} as never);\n${underLock("    await ddb.send(new UpdateCommand({ TableName: 't', Key: { id }, UpdateExpression: 'SET v = :v' }));")}`)).toEqual(['dynamodb:UpdateCommand']);
  });
});
