/**
 * The structure of the user's own table, read from their database's catalog (read-only, the
 * checker's own queries) and rebuilt as DDL for the scratch database: columns with their real
 * types (enums recreated, domains as their base type, other types of the user's as text), NOT
 * NULL, defaults (serials and identities as the scratch database's own), primary key, unique
 * constraints and plain unique indexes (ON CONFLICT needs them), CHECK constraints. No rows,
 * no foreign keys (the tables they point to are not there), no triggers.
 */
export type CatalogQuery = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

export interface CopiedTable {
  /** schema.table in the user's database. */
  original: string;
  /** Types first, then the table, then its indexes. */
  statements: string[];
  /** The same without CHECK constraints and non-serial defaults, for when those do not apply in the copy. */
  fallback: string[];
}

export async function describeUserTable(query: CatalogQuery, table: string): Promise<CopiedTable | undefined> {
  const found = (
    await query(
      `SELECT c.oid::int8 AS oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname = $1 AND c.relkind IN ('r', 'p')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
        ORDER BY (n.nspname = 'public') DESC, n.nspname LIMIT 1`,
      [table],
    )
  )[0];
  if (!found) return undefined;
  const oid = String(found.oid);
  const columns = await query(
    `SELECT a.attname AS name, a.attnotnull AS not_null, a.attidentity AS identity, a.attgenerated AS generated,
            t.typtype AS typtype, tn.nspname AS type_schema, t.typname AS type_name, t.oid::int8 AS type_oid,
            format_type(a.atttypid, a.atttypmod) AS type,
            CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base_type,
            CASE WHEN t.typtype = 'd' THEN (SELECT bn.nspname FROM pg_type b JOIN pg_namespace bn ON bn.oid = b.typnamespace WHERE b.oid = t.typbasetype) END AS base_schema,
            pg_get_expr(d.adbin, d.adrelid) AS default_expr
       FROM pg_attribute a
       JOIN pg_type t ON t.oid = a.atttypid
       JOIN pg_namespace tn ON tn.oid = t.typnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [oid],
  );
  const constraints = await query(
    `SELECT contype, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::oid AND contype IN ('p', 'u', 'c') ORDER BY contype DESC, conname`,
    [oid],
  );
  // Unique indexes that are not constraints, on plain columns and without a predicate.
  const uniqueIndexes = await query(
    `SELECT array_agg(quote_ident(a.attname) ORDER BY k.i) AS cols
       FROM pg_index x
       CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, i)
       JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
      WHERE x.indrelid = $1::oid AND x.indisunique AND x.indexprs IS NULL AND x.indpred IS NULL
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
      GROUP BY x.indexrelid`,
    [oid],
  );

  const types: string[] = [];
  const enumsMade = new Set<string>();
  const sequences: string[] = [];
  const full: string[] = [];
  const plain: string[] = [];
  for (const c of columns) {
    const name = ident(String(c.name));
    let type = String(c.type);
    if (c.typtype === 'e') {
      const enumName = `${String(c.type_name)}`;
      if (!enumsMade.has(enumName)) {
        enumsMade.add(enumName);
        const labels = await query(`SELECT enumlabel FROM pg_enum WHERE enumtypid = $1::oid ORDER BY enumsortorder`, [String(c.type_oid)]);
        types.push(`CREATE TYPE ${ident(enumName)} AS ENUM (${labels.map((l) => literal(String(l.enumlabel))).join(', ')})`);
      }
      type = ident(enumName);
    } else if (c.typtype === 'd') {
      type = c.base_schema === 'pg_catalog' ? String(c.base_type) : 'text';
    } else if (c.type_schema !== 'pg_catalog') {
      type = String(c.type).endsWith('[]') ? 'text[]' : 'text';
    }
    const notNull = c.not_null ? ' NOT NULL' : '';
    const expr = c.default_expr === null || c.default_expr === undefined ? undefined : String(c.default_expr);
    let serialDefault = '';
    let otherDefault = '';
    if (c.identity === 'a' || c.identity === 'd') {
      serialDefault = ` GENERATED ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`;
    } else if (c.generated === 's' && expr) {
      otherDefault = ` GENERATED ALWAYS AS (${expr}) STORED`;
    } else if (expr?.startsWith('nextval(')) {
      // The copy's own sequence: the user's sequence is never advanced.
      const sequence = `${table}_${String(c.name)}_seq`;
      sequences.push(`CREATE SEQUENCE IF NOT EXISTS ${ident(sequence)}`);
      serialDefault = ` DEFAULT nextval(${literal(ident(sequence))}::regclass)`;
    } else if (expr) {
      otherDefault = ` DEFAULT ${expr}`;
    }
    full.push(`${name} ${type}${notNull}${serialDefault}${otherDefault}`);
    plain.push(`${name} ${type}${notNull}${serialDefault}`);
  }
  const keys = constraints.filter((k) => k.contype !== 'c').map((k) => String(k.def));
  const checks = constraints.filter((k) => k.contype === 'c').map((k) => String(k.def));
  const indexes = uniqueIndexes.map((x) => `CREATE UNIQUE INDEX ON ${ident(table)} (${(x.cols as string[]).join(', ')})`);
  const create = (cols: string[], extra: string[]) => `CREATE TABLE ${ident(table)} (${[...cols, ...keys, ...extra].join(', ')})`;
  return {
    original: String(found.name),
    statements: [...types, ...sequences, create(full, checks), ...indexes],
    fallback: [...types, ...sequences, create(plain, []), ...indexes],
  };
}

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
