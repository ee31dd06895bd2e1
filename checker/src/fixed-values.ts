import type { Database } from './backend/database.js';
import { CheckStoppedError } from './errors.js';
import type { UnderstoodWrite } from './sql-understanding.js';

/**
 * Texts tried, in order, as the one value of a parameter outside the fence (`other`): the first
 * that PostgreSQL accepts for the parameter's type is bound in every write. They cover text,
 * numbers, booleans, dates and times, uuids, json and arrays; an enum gets its first label.
 */
const CANDIDATES = ['fencelint-other', '0', 'false', '2000-01-01 00:00:00+00', '00:00:00', '00000000-0000-0000-0000-000000000000', '{}'];

/**
 * A value for each `other` parameter of the prepared statement `prepared`, by index (0 is `$1`),
 * from the type PostgreSQL gave it; null where no candidate fits (a NULL binds to any type).
 * Run outside a transaction: a candidate that fails to cast is only a failed query.
 */
export async function fixedValuesOf(db: Database, write: UnderstoodWrite, prepared: string): Promise<Map<number, unknown>> {
  const values = new Map<number, unknown>();
  const others = write.roles.flatMap((role, i) => (role === 'other' ? [i] : []));
  if (others.length === 0) return values;
  const row = (await db.query(`SELECT parameter_types::oid[] AS types FROM pg_prepared_statements WHERE name = $1`, [prepared])).rows[0];
  const types = parseOids(row?.types);
  for (const i of others) {
    const oid = types[i];
    values.set(i, oid === undefined ? null : await firstAccepted(db, oid));
  }
  return values;
}

async function firstAccepted(db: Database, oid: number): Promise<string | null> {
  const type = (await db.query(`SELECT format_type($1::oid, NULL) AS name`, [oid])).rows[0]?.name;
  if (typeof type !== 'string') return null;
  const enumLabel = (await db.query(`SELECT enumlabel FROM pg_enum WHERE enumtypid = $1::oid ORDER BY enumsortorder LIMIT 1`, [oid])).rows[0]?.enumlabel;
  for (const text of typeof enumLabel === 'string' ? [enumLabel, ...CANDIDATES] : CANDIDATES) {
    try {
      // format_type quotes the name where it must: it reads back as the same type.
      await db.query(`SELECT $1::${type}`, [text]);
      return text;
    } catch (error) {
      if (error instanceof CheckStoppedError) throw error;
    }
  }
  return null;
}

/** `oid[]` arrives as an array (PGlite, pg with its array parser) or as its text form `{25,1184}`. */
function parseOids(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number);
  if (typeof value === 'string') return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return [];
}
