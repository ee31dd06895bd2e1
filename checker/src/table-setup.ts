import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './backend/database.js';
import type { CopiedTable } from './catalog-copy.js';
import { BadInputError, CheckStoppedError } from './errors.js';
import type { ScratchSchema } from './scratch-schema.js';
import type { UnderstoodWrite } from './sql-understanding.js';

export type TableSource = 'schema-file' | 'migrations' | 'catalog' | 'inferred';

/** Folders where projects keep plain SQL migrations, relative to the project root. */
const MIGRATION_DIRS = ['migrations', 'db/migrations', 'sql/migrations', 'database/migrations', 'supabase/migrations', 'prisma/migrations'];

/** Every .sql file under the first migrations folder found, in path order (the order tools apply them). */
export function findMigrations(root: string): { dir: string; sql: string } | undefined {
  for (const rel of MIGRATION_DIRS) {
    const dir = join(root, rel);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.sql')).sort();
    if (files.length === 0) continue;
    return { dir: rel, sql: files.map((f) => `${readFileSync(join(dir, f), 'utf8')};`).join('\n') };
  }
  return undefined;
}

/**
 * Create the statement's table inside the scratch schema: from the user's DDL file, else from
 * the live database's definition of a table with the same name (structure only, no rows), else
 * inferred from the statement. Returns where the definition came from.
 */
export const ADDED_KEY_COLUMN = 'fencelint_key';

/** Reads the structure of the user's table of that name (a server's catalog), if there is one. */
export type UserTableReader = (table: string) => Promise<CopiedTable | undefined>;

export async function createTable(
  scratch: ScratchSchema,
  write: UnderstoodWrite,
  schemaSql?: string,
  migrations?: { dir: string; sql: string },
  userTable?: UserTableReader,
): Promise<TableSource> {
  const source = await createTableFrom(scratch, write, schemaSql, migrations, userTable);
  write.schema = scratch.name;
  // A token compared in a CTE over another table (a fence table) is no column of this one.
  const columns = new Set(
    (
      await scratch.db.query(
        `SELECT a.attname FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
        [`${ident(scratch.name)}.${ident(write.table)}`],
      )
    ).rows.map((r) => String(r.attname)),
  );
  if (write.tokenColumn && !columns.has(write.tokenColumn)) write.tokenColumn = undefined;
  if (write.operationIdColumn && !columns.has(write.operationIdColumn)) write.operationIdColumn = undefined;
  write.extraKeyColumns = write.extraKeyColumns.filter((c) => columns.has(c));
  if (!write.keyColumn) write.keyColumn = source === 'inferred' ? ADDED_KEY_COLUMN : await primaryKeyColumn(scratch, write.table);
  return source;
}

async function primaryKeyColumn(scratch: ScratchSchema, table: string): Promise<string> {
  const pk = await scratch.db.query(
    `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary`,
    [`${scratch.name}.${ident(table)}`],
  );
  if (pk.rows.length !== 1) {
    throw new BadInputError(`the statement names no key and ${table} has no single-column primary key; pass --key-column`);
  }
  return String(pk.rows[0].attname);
}

async function createTableFrom(
  scratch: ScratchSchema,
  write: UnderstoodWrite,
  schemaSql?: string,
  migrations?: { dir: string; sql: string },
  userTable?: UserTableReader,
): Promise<TableSource> {
  if (schemaSql !== undefined) {
    await runSchemaFile(scratch, schemaSql);
    if (!(await tableExists(scratch, write.table))) {
      throw new BadInputError(`the --schema file does not create table "${write.table}" that the statement writes`);
    }
    return 'schema-file';
  }
  if (migrations) {
    // Migrations that fail here (extensions, other schemas, a dialect) are skipped, not fatal.
    const applied = await runSchemaFile(scratch, migrations.sql).then(
      () => true,
      () => false,
    );
    if (applied && (await tableExists(scratch, write.table))) return 'migrations';
    if (applied) await scratch.empty();
  }
  const copied = await userTable?.(write.table);
  if (copied) {
    await copyStructure(scratch, copied);
    return 'catalog';
  }
  await scratch.db.exec(inferredDdl(write));
  await fitInferredTable(scratch, write);
  return 'inferred';
}

/**
 * The statement may name columns that play no role (`updated_at = now()`, `status = 'active'`) or
 * give a role's column another type. PostgreSQL says which when it prepares the statement: add
 * the missing column as text, or change the column to the type the statement assigns.
 */
async function fitInferredTable(scratch: ScratchSchema, write: UnderstoodWrite): Promise<void> {
  const table = ident(write.table);
  for (let attempt = 0; attempt < 12; attempt++) {
    try {
      await scratch.db.exec(`PREPARE fencelint_fit AS ${write.text}`);
      await scratch.db.exec('DEALLOCATE fencelint_fit');
      return;
    } catch (error) {
      const message = (error as Error).message;
      const missing = /column "([^"]+)"(?: of relation "[^"]+")? does not exist/.exec(message);
      const mistyped = /column "([^"]+)" is of type .+ but expression is of type (.+)$/.exec(message);
      if (missing && !missing[1].includes('.')) {
        await scratch.db.exec(`ALTER TABLE ${table} ADD COLUMN ${ident(missing[1])} text`);
      } else if (mistyped) {
        await scratch.db.exec(`ALTER TABLE ${table} ALTER COLUMN ${ident(mistyped[1])} TYPE ${mistyped[2]} USING NULL`);
      } else {
        return; // the statement's own problem: reported with PostgreSQL's words when it is prepared
      }
    }
  }
}

export function inferredDdl(write: UnderstoodWrite): string {
  const columns = [`${ident(write.keyColumn ?? ADDED_KEY_COLUMN)} text PRIMARY KEY`];
  for (const extra of write.extraKeyColumns) columns.push(`${ident(extra)} text`);
  if (write.valueColumn) columns.push(`${ident(write.valueColumn)} text`);
  if (write.tokenColumn) columns.push(`${ident(write.tokenColumn)} bigint`);
  if (write.operationIdColumn) columns.push(`${ident(write.operationIdColumn)} text`);
  const tables = [`CREATE TABLE ${ident(write.table)} (${columns.join(', ')})`];
  for (const aux of write.auxTables) {
    const auxColumns = [`${ident(aux.keyColumn ?? ADDED_KEY_COLUMN)} text PRIMARY KEY`];
    if (aux.tokenColumn) auxColumns.push(`${ident(aux.tokenColumn)} bigint`);
    tables.push(`CREATE TABLE IF NOT EXISTS ${ident(aux.table)} (${auxColumns.join(', ')})`);
  }
  return tables.join('; ');
}

/**
 * Put the row that every scenario starts from: value v0, token 0; and the key's row, token 0,
 * in every other table the statement writes (a fence table in a CTE).
 */
export async function seedRow(db: Database, write: UnderstoodWrite, key: string): Promise<void> {
  const keyColumns = [keyColumnOf(write), ...write.extraKeyColumns];
  const main: Record<string, unknown> = Object.fromEntries(keyColumns.map((c) => [c, key]));
  if (write.valueColumn) main[write.valueColumn] = 'v0';
  if (write.tokenColumn) main[write.tokenColumn] = 0;
  await seed(db, write.schema, write.table, main, keyColumns);
  for (const aux of write.auxTables) {
    if (!aux.keyColumn) continue;
    const has = await db.query(
      `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = ANY($2::text[]) AND NOT attisdropped`,
      [`${write.schema ? `${ident(write.schema)}.` : ''}${ident(aux.table)}`, [aux.keyColumn, ...(aux.tokenColumn ? [aux.tokenColumn] : [])]],
    );
    if (Number(has.rows[0]?.n) !== (aux.tokenColumn ? 2 : 1)) continue;
    await seed(db, write.schema, aux.table, { [aux.keyColumn]: key, ...(aux.tokenColumn ? { [aux.tokenColumn]: 0 } : {}) }, [aux.keyColumn]);
  }
}

async function seed(db: Database, schema: string | undefined, table: string, row: Record<string, unknown>, keyColumns: string[]): Promise<void> {
  const ref = schema ? `${ident(schema)}.${ident(table)}` : ident(table);
  // A --schema file may put the starting row itself (with the columns its statement needs).
  const where = keyColumns.map((c, i) => `${ident(c)}::text = $${i + 1}`).join(' AND ');
  const existing = await db.query(`SELECT 1 FROM ${ref} WHERE ${where}`, keyColumns.map((c) => String(row[c])));
  if (existing.rows.length > 0) return;
  const columns = Object.keys(row);
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
  try {
    await db.query(`INSERT INTO ${ref} (${columns.map(ident).join(', ')}) VALUES (${placeholders})`, Object.values(row));
  } catch (error) {
    if (error instanceof CheckStoppedError) throw error;
    throw new BadInputError(`cannot put a starting row into ${table}: ${(error as Error).message}`);
  }
}

/**
 * Run the user's DDL in one transaction, inside the check's own database: whatever it does
 * (DROP, ALTER, a DO block, search_path) stays there. A failure rolls it back and is bad input.
 */
async function runSchemaFile(scratch: ScratchSchema, sql: string): Promise<void> {
  const db = scratch.db;
  await db.exec('BEGIN');
  let committed = false;
  try {
    try {
      await db.exec(sql);
    } catch (error) {
      if (error instanceof CheckStoppedError) throw error;
      throw new BadInputError(`the --schema file fails: ${(error as Error).message}`);
    }
    await db.exec('COMMIT');
    committed = true;
  } finally {
    if (!committed) await db.exec('ROLLBACK').catch(() => {});
    // The file may have moved search_path; the checker's own statements are qualified anyway.
    await db.exec(`SET search_path TO ${scratch.name}`).catch(() => {});
  }
}

async function tableExists(scratch: ScratchSchema, table: string): Promise<boolean> {
  const found = await scratch.db.query(
    `SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
    [scratch.name, table],
  );
  return found.rows.length > 0;
}

/** Rebuild the user's table from its described structure; without its CHECKs and defaults when those do not apply here. */
async function copyStructure(scratch: ScratchSchema, copied: CopiedTable): Promise<void> {
  try {
    await scratch.db.exec(`BEGIN; ${copied.statements.join('; ')}; COMMIT`);
  } catch (error) {
    if (error instanceof CheckStoppedError) throw error;
    await scratch.db.exec('ROLLBACK').catch(() => {});
    try {
      await scratch.db.exec(`BEGIN; ${copied.fallback.join('; ')}; COMMIT`);
    } catch (again) {
      if (again instanceof CheckStoppedError) throw again;
      await scratch.db.exec('ROLLBACK').catch(() => {});
      throw new BadInputError(`cannot rebuild the structure of ${copied.original} in the scratch database: ${(again as Error).message}; give the table in a --schema file`);
    }
  }
}

export function keyColumnOf(write: UnderstoodWrite): string {
  if (!write.keyColumn) throw new Error('key column not resolved before use');
  return write.keyColumn;
}

/** The statement's table as the checker's own statements name it: qualified, whatever search_path says. */
export function tableRef(write: UnderstoodWrite): string {
  return write.schema ? `${ident(write.schema)}.${ident(write.table)}` : ident(write.table);
}

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Remember every table of the scratch schema as it is now (the seeded row, rows a --schema file
 * put, an empty journal) and return how to go back to it: between scenarios and explored
 * schedules nothing may carry over, or an operation journal would refuse the next scenario's writes.
 */
export async function captureInitialState(scratch: ScratchSchema, except: string[]): Promise<() => Promise<void>> {
  const db = scratch.db;
  const tables = (
    await db.query(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY 1`, [
      scratch.name,
    ])
  ).rows
    .map((r) => String(r.relname))
    .filter((t) => !except.includes(t));
  const rows = new Map<string, string>();
  for (const table of tables) {
    rows.set(table, String((await db.query(`SELECT coalesce(json_agg(t), '[]')::text AS rows FROM ${ident(scratch.name)}.${ident(table)} t`)).rows[0].rows));
  }
  return async () => {
    for (const table of tables) {
      const ref = `${ident(scratch.name)}.${ident(table)}`;
      await db.query(`DELETE FROM ${ref}`);
      const saved = rows.get(table)!;
      if (saved !== '[]') {
        await db.query(`INSERT INTO ${ref} SELECT * FROM json_populate_recordset(NULL::${ref}, $1::json)`, [saved]);
      }
    }
  };
}
