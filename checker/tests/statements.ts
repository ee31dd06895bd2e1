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
