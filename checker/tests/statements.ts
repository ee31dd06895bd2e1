import { inject } from 'vitest';

/** Unsafe and fixed writes, each with the roles of its parameters and the scenario that must catch it. */
export interface StatementCase {
  name: string;
  sql: string;
  roles: string;
  fenced: boolean;
  /** For unsafe ones: the scenario expected to break. */
  breaks?: string;
  schemaSql?: string;
}

const plainFixed = 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3';

export const STATEMENTS: StatementCase[] = [
  { name: 'plain UPDATE without a token', sql: 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', roles: 'value,key', fenced: false, breaks: 'stale-write' },
  { name: 'plain UPDATE fenced', sql: plainFixed, roles: 'value,key,token', fenced: true },
  {
    name: 'UPDATE ... FROM (VALUES) without the comparison',
    sql: 'UPDATE resource_state AS r SET value = v.val, fence_token = v.tok FROM (VALUES ($1::text, $2::text, $3::bigint)) AS v(val, k, tok) WHERE r.resource_key = v.k',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'stale-write',
  },
  {
    name: 'UPDATE ... FROM (VALUES) fenced',
    sql: 'UPDATE resource_state AS r SET value = v.val, fence_token = v.tok FROM (VALUES ($1::text, $2::text, $3::bigint)) AS v(val, k, tok) WHERE r.resource_key = v.k AND r.fence_token < v.tok',
    roles: 'value,key,token',
    fenced: true,
  },
  {
    name: 'CTE without the comparison',
    sql: 'WITH input AS (SELECT $1::text AS val, $2::text AS k, $3::bigint AS tok) UPDATE resource_state SET value = input.val, fence_token = input.tok FROM input WHERE resource_key = input.k',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'stale-write',
  },
  {
    name: 'CTE fenced',
    sql: 'WITH input AS (SELECT $1::text AS val, $2::text AS k, $3::bigint AS tok) UPDATE resource_state SET value = input.val, fence_token = input.tok FROM input WHERE resource_key = input.k AND fence_token < input.tok',
    roles: 'value,key,token',
    fenced: true,
  },
  {
    name: 'INSERT ... ON CONFLICT DO UPDATE without WHERE',
    sql: 'INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($2, $1, $3) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'stale-write',
  },
  {
    name: 'INSERT ... ON CONFLICT DO UPDATE ... WHERE fenced',
    sql: 'INSERT INTO resource_state (resource_key, value, fence_token) VALUES ($2, $1, $3) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token WHERE resource_state.fence_token < EXCLUDED.fence_token',
    roles: 'value,key,token',
    fenced: true,
  },
  {
    name: '<= lets the equal-token replay through',
    sql: 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token <= $3',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'equal-token-replay',
  },
  {
    name: 'compares the token but does not store it',
    sql: 'UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'stale-write',
  },
  { name: 'no WHERE at all', sql: 'UPDATE resource_state SET value = $1, fence_token = $2', roles: 'value,token', fenced: false, breaks: 'stale-write' },
];

export const JOURNAL_SCHEMA =
  'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token bigint NOT NULL DEFAULT 0);\n' +
  'CREATE TABLE applied_operations (operation_id text PRIMARY KEY);\n';

/** Fenced, and idempotent through an operation journal in the same statement. */
export const JOURNALED =
  'WITH applied AS (INSERT INTO applied_operations (operation_id) SELECT $4 WHERE EXISTS ' +
  '(SELECT 1 FROM resource_state WHERE resource_key = $2 AND fence_token < $3) ON CONFLICT DO NOTHING RETURNING operation_id) ' +
  'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3 AND EXISTS (SELECT 1 FROM applied)';

/** Journals the operation even when the fence refuses the write: a redelivery is then never applied. */
export const JOURNALED_TOO_EARLY =
  'WITH applied AS (INSERT INTO applied_operations (operation_id) VALUES ($4) ON CONFLICT DO NOTHING RETURNING operation_id) ' +
  'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3 AND EXISTS (SELECT 1 FROM applied)';

/** Fenced but not idempotent: a redelivery under a newer lease applies again. */
export const NOT_IDEMPOTENT = 'UPDATE resource_state SET value = $1, fence_token = $3, last_operation_id = $4 WHERE resource_key = $2 AND fence_token < $3';

/** The real server of this test run (see support/global-setup.ts). */
export function serverUrl(): string {
  return inject('databaseUrl');
}

const TEXT_TOKEN = 'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token text NOT NULL DEFAULT \'0\');';
const NUMERIC_TOKEN = 'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text, fence_token numeric(20, 0) NOT NULL DEFAULT 0);';
const VARCHAR_TOKEN = 'CREATE TABLE jobs (job_id varchar(64) PRIMARY KEY, state text, generation varchar(20) NOT NULL DEFAULT \'0\');';
const FENCE_TABLE =
  'CREATE TABLE resource_state (resource_key text PRIMARY KEY, value text);\n' +
  'CREATE TABLE fence_tokens (resource_key text PRIMARY KEY, token bigint NOT NULL DEFAULT 0);';
const COMPOSITE = 'CREATE TABLE slots (tenant text, slot text, payload text, fence bigint NOT NULL DEFAULT 0, PRIMARY KEY (tenant, slot));';

/**
 * Pairs of statements, one unsafe and one fenced, across the kinds a verdict can get wrong:
 * deletes (the observation is whether the row stays), token columns that are not integers
 * (text compares '10' < '9'), and a fence kept in a separate table by a CTE that the main
 * UPDATE joins.
 */
export const VERDICT_PAIRS: StatementCase[] = [
  { name: 'DELETE by key only', sql: 'DELETE FROM resource_state WHERE resource_key = $1', roles: 'key', fenced: false, breaks: 'stale-delete' },
  { name: 'DELETE fenced with <=', sql: 'DELETE FROM resource_state WHERE resource_key = $1 AND fence_token <= $2', roles: 'key,token', fenced: true },
  { name: 'DELETE fenced with <', sql: 'DELETE FROM resource_state WHERE resource_key = $2 AND fence_token < $1', roles: 'token,key', fenced: true },
  { name: 'DELETE comparing the wrong way', sql: 'DELETE FROM resource_state WHERE resource_key = $1 AND fence_token >= $2', roles: 'key,token', fenced: false, breaks: 'stale-delete' },
  { name: 'DELETE that names the token but does not compare it', sql: 'DELETE FROM resource_state WHERE resource_key = $1 AND $2::bigint IS NOT NULL', roles: 'key,token', fenced: false, breaks: 'stale-delete' },
  {
    name: 'DELETE on a text token column',
    sql: 'DELETE FROM resource_state WHERE resource_key = $1 AND fence_token <= $2',
    roles: 'key,token',
    fenced: false,
    breaks: 'digit-boundary-10',
    schemaSql: TEXT_TOKEN,
  },
  {
    name: 'DELETE on a text token column compared as a number',
    sql: 'DELETE FROM resource_state WHERE resource_key = $1 AND fence_token::bigint <= $2::bigint',
    roles: 'key,token',
    fenced: true,
    schemaSql: TEXT_TOKEN,
  },
  {
    name: 'UPDATE on a text token column',
    sql: 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'digit-boundary-10',
    schemaSql: TEXT_TOKEN,
  },
  {
    name: 'UPDATE on a text token column compared as a number',
    sql: 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token::numeric < $3::numeric',
    roles: 'value,key,token',
    fenced: true,
    schemaSql: TEXT_TOKEN,
  },
  {
    name: 'upsert on a varchar generation column',
    sql: 'INSERT INTO jobs (job_id, state, generation) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO UPDATE SET state = EXCLUDED.state, generation = EXCLUDED.generation WHERE jobs.generation < EXCLUDED.generation',
    roles: 'key,value,token',
    fenced: false,
    breaks: 'digit-boundary-100',
    schemaSql: VARCHAR_TOKEN,
  },
  {
    name: 'upsert on a varchar generation column compared as a number',
    sql: 'INSERT INTO jobs (job_id, state, generation) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO UPDATE SET state = EXCLUDED.state, generation = EXCLUDED.generation WHERE jobs.generation::bigint < EXCLUDED.generation::bigint',
    roles: 'key,value,token',
    fenced: true,
    schemaSql: VARCHAR_TOKEN,
  },
  {
    name: 'UPDATE on a numeric token column',
    sql: 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3',
    roles: 'value,key,token',
    fenced: true,
    schemaSql: NUMERIC_TOKEN,
  },
  {
    name: 'UPDATE on a numeric token column with <=',
    sql: 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token <= $3',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'equal-token-replay',
    schemaSql: NUMERIC_TOKEN,
  },
  {
    name: 'CTE on a fence table, joined by the UPDATE',
    sql: 'WITH fence AS (UPDATE fence_tokens SET token = $3 WHERE resource_key = $2 AND token < $3 RETURNING resource_key) UPDATE resource_state SET value = $1 FROM fence WHERE resource_state.resource_key = fence.resource_key',
    roles: 'value,key,token',
    fenced: true,
    schemaSql: FENCE_TABLE,
  },
  {
    name: 'CTE on a fence table without the comparison',
    sql: 'WITH fence AS (UPDATE fence_tokens SET token = $3 WHERE resource_key = $2 RETURNING resource_key) UPDATE resource_state SET value = $1 FROM fence WHERE resource_state.resource_key = fence.resource_key',
    roles: 'value,key,token',
    fenced: false,
    breaks: 'stale-write',
    schemaSql: FENCE_TABLE,
  },
  {
    name: 'CTE on a fence table that compares but does not store the token',
    sql: 'WITH fence AS (SELECT resource_key FROM fence_tokens WHERE resource_key = $2 AND token < $3) UPDATE resource_state SET value = $1 FROM fence WHERE resource_state.resource_key = fence.resource_key',
    roles: 'value,key,token',
    fenced: false,
    schemaSql: FENCE_TABLE + "\nINSERT INTO fence_tokens VALUES ('resource-7', 0); INSERT INTO resource_state VALUES ('resource-7', 'v0');",
  },
  {
    name: 'CTE fence table, inferred without a schema file',
    sql: 'WITH f AS (UPDATE fence_tokens SET token = $3 WHERE resource_key = $2 AND token < $3 RETURNING resource_key) UPDATE resource_state SET value = $1 FROM f WHERE resource_state.resource_key = f.resource_key',
    roles: 'value,key,token',
    fenced: true,
  },
  {
    name: 'composite key without a token condition',
    sql: 'UPDATE slots SET payload = $1, fence = $4 WHERE tenant = $2 AND slot = $3',
    roles: 'value,key,key,token',
    fenced: false,
    breaks: 'stale-write',
    schemaSql: COMPOSITE,
  },
  {
    name: 'composite key fenced',
    sql: 'UPDATE slots SET payload = $1, fence = $4 WHERE tenant = $2 AND slot = $3 AND fence < $4',
    roles: 'value,key,key,token',
    fenced: true,
    schemaSql: COMPOSITE,
  },
];
