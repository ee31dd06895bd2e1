import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeSql, loadSqlParser, type SqlAnalysis, type SqlComparison, type SqlStatementInfo } from '../../../src/core/sql/index.js';

beforeAll(async () => {
  await loadSqlParser();
});

function analyze(sql: string, dialect: 'postgres' | 'mysql' = 'postgres'): SqlAnalysis {
  const analysis = analyzeSql(sql, dialect);
  expect(analysis, sql).toBeDefined();
  return analysis!;
}

function first(sql: string, dialect: 'postgres' | 'mysql' = 'postgres'): SqlStatementInfo {
  return analyze(sql, dialect).statements[0];
}

/** Comparisons as `column op $params` strings: easy to read in a failure. */
function conds(s: SqlStatementInfo): string[] {
  return s.conditions.map((c: SqlComparison) => `${c.column} ${c.op} [${c.value.params.join(',')}]`);
}

function assigned(s: SqlStatementInfo): Record<string, number[]> {
  return Object.fromEntries(s.assignments.map((a) => [a.column, a.value.params]));
}

describe('UPDATE', () => {
  it('reads the article statement: the write compares and stores the token in one step', () => {
    const sql = 'UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2;';
    const s = first(sql);
    expect(s.kind).toBe('update');
    expect(s.table).toBe('resource_state');
    expect(conds(s)).toEqual(['resource_key = [3]', 'fence_token < [2]']);
    expect(assigned(s)).toEqual({ value: [1], fence_token: [2] });
    expect(s.params).toEqual([1, 2, 3]);
    expect(s.range).toEqual({ start: 0, end: sql.length - 1 });
  });

  it('reads the article statement as the design card formats it', () => {
    const sql = 'UPDATE resource_state\nSET value = $1, fence_token = $2\nWHERE resource_key = $3\n  AND fence_token < $2;      -- rowCount 0 => stale';
    const s = first(sql);
    expect(conds(s)).toEqual(['resource_key = [3]', 'fence_token < [2]']);
    expect(s.edit.whereRange).toEqual({ start: sql.indexOf('resource_key = $3'), end: sql.indexOf(';') });
    expect(s.edit.setListEnd).toBe(sql.indexOf('\nWHERE'));
  });

  it('resolves an alias and qualified columns', () => {
    const s = first('UPDATE resource_state AS s SET value = $1 WHERE s.resource_key = $2 AND s.fence_token < $3');
    expect(s.alias).toBe('s');
    expect(conds(s)).toEqual(['resource_key = [2]', 'fence_token < [3]']);
  });

  it('drops the schema from the table name', () => {
    expect(first('UPDATE public.resource_state SET v = 1 WHERE k = $1').table).toBe('resource_state');
  });

  it('normalizes a comparison written the other way round', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE $2 > fence_token AND $3 = k'))).toEqual(['fence_token < [2]', 'k = [3]']);
    expect(conds(first('UPDATE t SET v = $1 WHERE $2 <= fence_token'))).toEqual(['fence_token >= [2]']);
  });

  it('sees through casts on either side', () => {
    const s = first('UPDATE t SET v = $1 WHERE fence_token < $2::bigint AND CAST($3 AS int8) > epoch AND k::text = $4');
    expect(conds(s)).toEqual(['fence_token < [2]', 'epoch < [3]', 'k = [4]']);
    expect(s.conditions[0].value.text).toBe('$2::bigint');
    expect(s.conditions[1].value.text).toBe('CAST($3 AS int8)');
  });

  it('reads COALESCE(column, default) as the column', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE k = $3 AND COALESCE(fence_token, 0) < $2'))).toEqual(['k = [3]', 'fence_token < [2]']);
  });

  it('reads IS DISTINCT FROM and IS NULL', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE fence_token IS DISTINCT FROM $2 OR fence_token IS NULL'))).toEqual([
      'fence_token IS DISTINCT FROM [2]',
      'fence_token IS NULL []',
    ]);
  });

  it('finds comparisons inside AND/OR trees', () => {
    const s = first('UPDATE t SET v = $1 WHERE (k = $2 AND (fence_token IS NULL OR fence_token < $3)) OR (k = $4 AND false)');
    expect(conds(s)).toEqual(['k = [2]', 'fence_token IS NULL []', 'fence_token < [3]', 'k = [4]']);
  });

  it('reads IN lists and = ANY(array)', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE k IN ($2, $3) AND id = ANY($4::int[]) AND NOT (s IN (1, 2))'))).toEqual([
      'k IN [2,3]',
      'id = ANY [4]',
      's NOT IN []',
    ]);
  });

  it('reads BETWEEN as two comparisons', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE fence_token BETWEEN $2 AND $3'))).toEqual(['fence_token >= [2]', 'fence_token <= [3]']);
  });

  it('flips the operator under NOT', () => {
    expect(conds(first('UPDATE t SET v = $1 WHERE NOT (fence_token >= $2)'))).toEqual(['fence_token < [2]']);
  });

  it('resolves FROM (VALUES ...) columns back to the parameters they carry', () => {
    const s = first(
      'UPDATE resource_state AS r SET value = v.value FROM (VALUES ($1, $2, $3::bigint)) AS v(key, value, tok) WHERE r.resource_key = v.key AND r.fence_token < v.tok',
    );
    expect(conds(s)).toEqual(['resource_key = [1]', 'fence_token < [3]']);
    expect(assigned(s)).toEqual({ value: [2] });
  });

  it('resolves a CTE output column to its parameter', () => {
    const s = first('WITH c AS (SELECT $2::bigint AS tok, $3 AS key) UPDATE resource_state SET value = $1 FROM c WHERE resource_key = c.key AND fence_token < c.tok');
    expect(s.kind).toBe('update');
    expect(conds(s)).toEqual(['resource_key = [3]', 'fence_token < [2]']);
    expect(s.conditions[1].value.text).toBe('c.tok');
  });

  it('resolves CTE column aliases and unqualified CTE columns', () => {
    const s = first('WITH cur(tok) AS (VALUES ($2::bigint)) UPDATE t SET v = $1 FROM cur WHERE fence_token < tok');
    expect(conds(s)).toEqual(['fence_token < [2]']);
  });

  it('counts predicates of a CTE joined by the write', () => {
    const s = first(
      'WITH cur AS (SELECT id FROM resource_state WHERE resource_key = $1 AND fence_token < $2 FOR UPDATE) UPDATE resource_state r SET value = $3, fence_token = $2 FROM cur WHERE r.id = cur.id',
    );
    expect(conds(s)).toContain('fence_token < [2]');
  });

  it('counts predicates of a FROM subquery, keeping its stored columns as columns', () => {
    const s = first('UPDATE t SET v = $1 FROM (SELECT id, fence_token FROM t WHERE k = $2) cur WHERE t.id = cur.id AND cur.fence_token < $3');
    expect(conds(s)).toEqual(['k = [2]', 'id = []', 'fence_token < [3]']);
  });

  it('reads comparisons inside EXISTS subqueries', () => {
    const s = first('UPDATE jobs SET status = $1 WHERE id = $2 AND EXISTS (SELECT 1 FROM leases l WHERE l.resource = $2 AND l.token = $3)');
    expect(conds(s)).toEqual(['id = [2]', 'resource = [2]', 'token = [3]']);
  });

  it('reads a subquery on the value side', () => {
    const s = first('UPDATE t SET v = $1 WHERE fence_token < (SELECT max(token) FROM grants WHERE key = $2)');
    const c = s.conditions.find((x) => x.column === 'fence_token')!;
    expect(c.value.functions).toEqual(['max']);
    expect(c.value.columns).toEqual(['token', 'key']);
    expect(c.value.params).toEqual([2]);
    expect(c.value.text).toBe('(SELECT max(token) FROM grants WHERE key = $2)');
  });

  it('lists CASE WHEN comparisons of assigned values as guards, not as the condition', () => {
    const s = first(
      'INSERT INTO resource_state AS r (k, v, fence_token) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = CASE WHEN r.fence_token < EXCLUDED.fence_token THEN EXCLUDED.v ELSE r.v END, fence_token = GREATEST(r.fence_token, EXCLUDED.fence_token)',
    );
    expect(conds(s)).toEqual([]);
    expect(s.assignmentGuards.map((c) => `${c.column} ${c.op} [${c.value.params}]`)).toEqual(['fence_token < [3]']);
    expect(s.assignments[1].value.functions).toEqual(['greatest']);
    expect(s.assignments[1].value.params).toEqual([3]);
    expect(first('UPDATE t SET v = $1 WHERE k = $2').assignmentGuards).toEqual([]);
  });

  it('reads multi-column assignments', () => {
    expect(assigned(first('UPDATE t SET (v, fence_token) = ($1, $2) WHERE k = $3'))).toEqual({ v: [1], fence_token: [2] });
  });

  it('shows a durable counter through the assignment value', () => {
    const s = first('UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token');
    expect(s.assignments[0].column).toBe('token');
    expect(s.assignments[0].value.columns).toEqual(['token']);
    expect(s.assignments[0].value.text).toBe('token + 1');
    expect(s.returning).toEqual(['token']);
  });

  it('shows a clock-derived token through the functions of the value', () => {
    const s = first('UPDATE resource_state SET fence_token = extract(epoch from now()) * 1000, updated_at = clock_timestamp(), seen = CURRENT_TIMESTAMP WHERE k = $1');
    expect(s.assignments[0].value.functions.sort()).toEqual(['extract', 'now']);
    expect(s.assignments[0].value.text).toBe('extract(epoch from now()) * 1000');
    expect(s.assignments[1].value.functions).toEqual(['clock_timestamp']);
    expect(s.assignments[2].value.functions).toEqual(['current_timestamp']);
    expect(s.functionCalls.sort()).toEqual(['clock_timestamp', 'current_timestamp', 'extract', 'now']);
  });

  it('reads a bulk update over unnest()', () => {
    const s = first('UPDATE t SET v = u.v FROM unnest($1::text[], $2::int[]) AS u(k, v) WHERE t.k = u.k AND t.fence_token < $3');
    expect(conds(s)).toEqual(['k = [1,2]', 'fence_token < [3]']);
  });
});

describe('DELETE', () => {
  it('reads the condition of a DELETE', () => {
    const s = first('DELETE FROM locks WHERE name = $1 AND fence_token <= $2 RETURNING name');
    expect(s.kind).toBe('delete');
    expect(conds(s)).toEqual(['name = [1]', 'fence_token <= [2]']);
    expect(s.returning).toEqual(['name']);
  });

  it('reads DELETE ... USING', () => {
    const s = first('DELETE FROM jobs j USING leases l WHERE j.lease_id = l.id AND l.token < $1');
    expect(s.alias).toBe('j');
    expect(conds(s)).toEqual(['lease_id = []', 'token < [1]']);
  });
});

describe('INSERT', () => {
  it('maps inserted columns to values', () => {
    const s = first('INSERT INTO audit (resource_key, fence_token, at) VALUES ($1, $2, now()), ($3, $4, now())');
    expect(s.kind).toBe('insert');
    expect(s.upsert).toBe(false);
    expect(assigned(s)).toEqual({ resource_key: [1, 3], fence_token: [2, 4], at: [] });
    expect(s.edit).toEqual({});
  });

  it('resolves EXCLUDED in an upsert to the inserted parameters', () => {
    const s = first(
      'INSERT INTO resource_state AS t (resource_key, value, fence_token) VALUES ($1, $2, $3) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = EXCLUDED.fence_token WHERE t.fence_token < EXCLUDED.fence_token',
    );
    expect(s.upsert).toBe(true);
    expect(conds(s)).toEqual(['fence_token < [3]']);
    expect(assigned(s)).toEqual({ value: [2], fence_token: [3] });
    expect(s.insertedValues!.map((a) => a.column)).toEqual(['resource_key', 'value', 'fence_token']);
    expect(s.conditions[0].value.text).toBe('EXCLUDED.fence_token');
  });

  it('normalizes EXCLUDED on the left of the comparison', () => {
    const s = first('INSERT INTO t (k, fence_token) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET fence_token = excluded.fence_token WHERE excluded.fence_token > t.fence_token');
    expect(conds(s)).toEqual(['fence_token < [2]']);
  });

  it('reads ON CONFLICT DO NOTHING as a plain insert', () => {
    const s = first('INSERT INTO leases (name, token) VALUES ($1, $2) ON CONFLICT DO NOTHING');
    expect(s.upsert).toBe(false);
    expect(assigned(s)).toEqual({ name: [1], token: [2] });
  });

  it('reads INSERT ... SELECT and the guard of a conditional insert', () => {
    const s = first(
      'INSERT INTO resource_state (resource_key, fence_token) SELECT $1, $2::bigint WHERE NOT EXISTS (SELECT 1 FROM resource_state WHERE resource_key = $1 AND fence_token >= $2)',
    );
    expect(assigned(s)).toEqual({ resource_key: [1], fence_token: [2] });
    expect(conds(s)).toEqual(['resource_key <> [1]', 'fence_token < [2]']);
  });
});

describe('MERGE', () => {
  it('reads MERGE conditions and actions', () => {
    const s = first(
      'MERGE INTO resource_state t USING (SELECT $1 AS key, $2 AS value, $3::bigint AS tok) s ON t.resource_key = s.key WHEN MATCHED AND t.fence_token < s.tok THEN UPDATE SET value = s.value, fence_token = s.tok WHEN NOT MATCHED THEN INSERT (resource_key, value, fence_token) VALUES (s.key, s.value, s.tok)',
    );
    expect(s.kind).toBe('merge');
    expect(s.table).toBe('resource_state');
    expect(conds(s)).toEqual(['resource_key = [1]', 'fence_token < [3]']);
    expect(s.assignments.map((a) => `${a.column}<-${a.value.params}`)).toEqual([
      'value<-2',
      'fence_token<-3',
      'resource_key<-1',
      'value<-2',
      'fence_token<-3',
    ]);
  });
});

describe('SELECT', () => {
  it('reads FOR UPDATE, the selected columns and the table', () => {
    const s = first('SELECT fence_token, value AS v, count(*) FROM resource_state WHERE resource_key = $1 FOR UPDATE');
    expect(s.kind).toBe('select');
    expect(s.forUpdate).toBe(true);
    expect(s.table).toBe('resource_state');
    expect(s.selectedColumns).toEqual(['fence_token', 'v', 'count']);
    expect(conds(s)).toEqual(['resource_key = [1]']);
  });

  it('reads the other row-lock strengths', () => {
    expect(first('SELECT 1 FROM t WHERE k = $1 FOR NO KEY UPDATE SKIP LOCKED').forUpdate).toBe(true);
    expect(first('SELECT 1 FROM t WHERE k = $1 FOR SHARE').forUpdate).toBe(true);
    expect(first('SELECT 1 FROM t WHERE k = $1').forUpdate).toBe(false);
  });

  it('names the first table of a join', () => {
    expect(first('SELECT * FROM leases l JOIN holders h ON h.id = l.holder WHERE l.token > $1').table).toBe('leases');
  });

  it('lists advisory-lock functions', () => {
    expect(first('SELECT pg_advisory_lock($1)').functionCalls).toEqual(['pg_advisory_lock']);
    expect(first("SELECT pg_try_advisory_lock(hashtext($1)) AS locked").functionCalls.sort()).toEqual(['hashtext', 'pg_try_advisory_lock']);
    expect(first('SELECT pg_advisory_xact_lock(42)').functionCalls).toEqual(['pg_advisory_xact_lock']);
    expect(first('SELECT pg_catalog.pg_advisory_unlock($1, $2)').functionCalls).toEqual(['pg_advisory_unlock']);
  });

  it('reads a clock-derived token', () => {
    const s = first('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS token');
    expect(s.selectedColumns).toEqual(['token']);
    expect(s.functionCalls.sort()).toEqual(['clock_timestamp', 'extract']);
  });

  it('reads a UNION without losing the lock clause of the arms', () => {
    const s = first('SELECT token FROM a WHERE k = $1 UNION ALL SELECT token FROM b WHERE k = $2');
    expect(conds(s)).toEqual(['k = [1]', 'k = [2]']);
  });
});

describe('CTEs and several statements', () => {
  it('describes a data-modifying CTE as a statement of its own', () => {
    const sql = 'WITH bumped AS (UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token) SELECT token FROM bumped';
    const a = analyze(sql);
    expect(a.statements.map((s) => s.kind)).toEqual(['select', 'update']);
    const inner = a.statements[1];
    expect(inner.table).toBe('fence_authority');
    expect(conds(inner)).toEqual(['resource_key = [1]']);
    expect(sql.slice(inner.range.start, inner.range.end)).toBe('UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token');
    expect(a.statements[0].selectedColumns).toEqual(['token']);
  });

  it('resolves a RETURNING column of one CTE used by the main write', () => {
    const a = analyze(
      'WITH t AS (UPDATE fence_authority SET token = token + 1 WHERE resource_key = $1 RETURNING token) UPDATE resource_state SET value = $2, fence_token = t.token FROM t WHERE resource_key = $1',
    );
    expect(a.statements[0].assignments[1].value.columns).toEqual(['token']);
    expect(a.statements[0].assignments[1].value.text).toBe('t.token');
  });

  it('reads WITH ... UPDATE with a materialized CTE', () => {
    const s = first('WITH cur AS MATERIALIZED (SELECT $2::bigint AS tok) UPDATE t SET v = $1 FROM cur WHERE fence_token < cur.tok');
    expect(conds(s)).toEqual(['fence_token < [2]']);
  });

  it('survives a recursive CTE', () => {
    const s = first('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < $1) SELECT n FROM r');
    expect(s.kind).toBe('select');
  });

  it('splits several statements in one string', () => {
    const sql = 'BEGIN; UPDATE t SET v = $1 WHERE k = $2;  COMMIT;';
    const a = analyze(sql);
    expect(a.statements.map((s) => s.kind)).toEqual(['other', 'update', 'other']);
    expect(a.statements.map((s) => sql.slice(s.range.start, s.range.end))).toEqual(['BEGIN', 'UPDATE t SET v = $1 WHERE k = $2', 'COMMIT']);
  });

  it('keeps offsets right after non-ASCII text', () => {
    const sql = "UPDATE t SET note = 'überfällig 🚧' WHERE k = $1";
    const s = first(sql);
    expect(s.edit.whereRange).toEqual({ start: sql.indexOf('k = $1'), end: sql.length });
    expect(s.assignments[0].value.text).toBe("'überfällig 🚧'");
  });
});

describe('bad input', () => {
  it('returns undefined for SQL that does not parse', () => {
    expect(analyzeSql('UPDATE SET WHERE')).toBeUndefined();
    expect(analyzeSql('this is not sql')).toBeUndefined();
    expect(analyzeSql("UPDATE t SET v = 'unterminated")).toBeUndefined();
  });

  it('returns undefined for empty text', () => {
    expect(analyzeSql('')).toBeUndefined();
    expect(analyzeSql('  \n ')).toBeUndefined();
    expect(analyzeSql('-- only a comment')).toBeUndefined();
  });

  it('reads a 1 MB statement without crashing', () => {
    const values = Array.from({ length: 90_000 }, (_, i) => `($${(i % 3) + 1}, ${i})`).join(', ');
    const sql = `INSERT INTO big (k, n) VALUES ${values}`;
    expect(sql.length).toBeGreaterThan(1_000_000);
    const s = first(sql);
    expect(assigned(s)).toEqual({ k: [1, 2, 3], n: [] });
  });

  it('does not analyze generated text over 4 MB', () => {
    expect(analyzeSql(`SELECT 1${' '.repeat(4_000_001)}`)).toBeUndefined();
  });

  it('returns undefined, without throwing, for nesting beyond the parser', () => {
    expect(analyzeSql(`SELECT ${'('.repeat(100_000)}1${')'.repeat(100_000)}`)).toBeUndefined();
    expect(() => analyzeSql(`SELECT ${Array.from({ length: 200_000 }, () => '1').join('+')}`)).not.toThrow();
  });

  it('answers the same analysis for the same text from its cache', () => {
    const sql = 'UPDATE cached SET v = $1 WHERE k = $2';
    expect(analyzeSql(sql)).toBe(analyzeSql(sql));
    expect(analyzeSql(sql, 'mysql')).not.toBe(analyzeSql(sql));
  });
});

describe('pg-promise named variables', () => {
  it('numbers named variables in every bracket style, reusing a repeated name', () => {
    const sql = 'UPDATE resource_state SET value = ${value}, fence_token = $(token) WHERE resource_key = $<key> AND fence_token < $[token]';
    const a = analyze(sql);
    expect(a.text).toBe('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $2');
    expect(a.paramNames).toEqual({ value: 1, token: 2, key: 3 });
    expect(conds(a.statements[0])).toEqual(['resource_key = [3]', 'fence_token < [2]']);
    expect(a.toSourceOffset(a.text.indexOf('WHERE'))).toBe(sql.indexOf('WHERE'));
  });

  it('numbers names past written $n, reads :name as an identifier, and leaves quoted text alone', () => {
    const a = analyze("UPDATE ${table:name} SET v = $1, note = '${not.a.variable}' WHERE id = ${job.id} AND body = $fn$ ${x} $fn$");
    expect(a.text).toBe('UPDATE "table" SET v = $1, note = \'${not.a.variable}\' WHERE id = $2 AND body = $fn$ ${x} $fn$');
    expect(a.paramNames).toEqual({ 'job.id': 2 });
  });
});

describe('mysql dialect', () => {
  it('numbers ? placeholders and reads backtick identifiers', () => {
    const sql = 'UPDATE `resource_state` SET `value` = ?, fence_token = ? WHERE resource_key = ? AND `fence_token` < ?';
    const a = analyze(sql, 'mysql');
    expect(a.text).toBe('UPDATE "resource_state" SET "value" = $1, fence_token = $2 WHERE resource_key = $3 AND "fence_token" < $4');
    expect(a.positionalParams).toBe(4);
    expect(conds(a.statements[0])).toEqual(['resource_key = [3]', 'fence_token < [4]']);
    expect(a.toSourceOffset(a.text.indexOf('WHERE'))).toBe(sql.indexOf('WHERE'));
    expect(a.toSourceOffset(a.text.length)).toBe(sql.length);
  });

  it('maps named placeholders to numbers, reusing a repeated name', () => {
    const a = analyze('UPDATE jobs SET state = :state, fence_token = :token WHERE id = :id AND fence_token < :token', 'mysql');
    expect(a.paramNames).toEqual({ state: 1, token: 2, id: 3 });
    expect(conds(a.statements[0])).toEqual(['id = [3]', 'fence_token < [2]']);
  });

  it('leaves ? inside strings and comments alone and reads MySQL strings', () => {
    const sql = `UPDATE t SET note = 'what?', msg = "it's \\"ok\\"" # really?\nWHERE k = ? /* ? */ AND n = 'a\\'b'`;
    const a = analyze(sql, 'mysql');
    expect(a.positionalParams).toBe(1);
    expect(conds(a.statements[0])).toEqual(['k = [1]', 'n = []']);
    expect(a.statements[0].assignments.map((x) => x.column)).toEqual(['note', 'msg']);
  });

  it('reads MySQL UPDATE/DELETE with ORDER BY ... LIMIT, keeping the text and offsets', () => {
    const sql = 'UPDATE jobs SET state = ? WHERE queue = ? AND fence_token < ? ORDER BY id LIMIT 1';
    const a = analyze(sql, 'mysql');
    expect(a.text).toBe('UPDATE jobs SET state = $1 WHERE queue = $2 AND fence_token < $3 ORDER BY id LIMIT 1');
    const s = a.statements[0];
    expect(conds(s)).toEqual(['queue = [2]', 'fence_token < [3]']);
    expect(a.text.slice(s.edit.whereRange!.start, s.edit.whereRange!.end)).toBe('queue = $2 AND fence_token < $3');
    expect(conds(first('DELETE FROM jobs WHERE done = 1 LIMIT ?;', 'mysql'))).toEqual(['done = []']);
    expect(analyzeSql('UPDATE t SET v = ? LIMIT 1; UPDATE u SET v = ? LIMIT 1', 'mysql')).toBeUndefined();
  });

  it('reads MySQL intervals (INTERVAL 15 SECOND, INTERVAL ? MINUTE) in a write, keeping the offsets', () => {
    const sql = 'UPDATE leases SET epoch = UNIX_TIMESTAMP(), expires_at = NOW() + INTERVAL 15 SECOND WHERE name = ? AND (expires_at < NOW() OR holder = ?)';
    const a = analyze(sql, 'mysql');
    const s = a.statements[0];
    expect(s.assignments.map((x) => x.column)).toEqual(['epoch', 'expires_at']);
    expect(s.assignments[0].value.functions).toEqual(['unix_timestamp']);
    expect(a.text.slice(s.edit.whereRange!.start, s.edit.whereRange!.end)).toBe('name = $1 AND (expires_at < NOW() OR holder = $2)');
    const later = first('UPDATE jobs SET run_at = DATE_ADD(NOW(), INTERVAL ? MINUTE) WHERE id = ? ORDER BY id LIMIT 1', 'mysql');
    expect(conds(later)).toEqual(['id = [2]']);
    expect(later.assignments[0].value.params).toEqual([1]);
    // An interval inside a string is text, not syntax.
    expect(analyzeSql("UPDATE t SET note = 'INTERVAL 1 DAY' WHERE k = ?", 'mysql')?.text).toBe("UPDATE t SET note = 'INTERVAL 1 DAY' WHERE k = $1");
  });

  it('returns undefined for MySQL-only syntax', () => {
    expect(analyzeSql('INSERT INTO t (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)', 'mysql')).toBeUndefined();
    expect(analyzeSql('REPLACE INTO t (k, v) VALUES (?, ?)', 'mysql')).toBeUndefined();
  });

  it('does not treat ? as a placeholder in postgres text', () => {
    expect(analyzeSql('UPDATE t SET v = ? WHERE k = ?')).toBeUndefined();
  });
});

describe('the table a compared column is stored in', () => {
  it('names it through a qualifier, or when the query reads one table; a join leaves an unqualified column open', () => {
    const s = first(
      'UPDATE devices SET secret = $1 WHERE group_id = $2 AND NOT EXISTS (SELECT 1 FROM devices d JOIN audits a ON a.device_id = d.id WHERE d.rotated_at > $3 AND a.at > $3 AND note = $4)',
    );
    expect(s.conditions.map((c) => `${c.column} ${c.op} ${c.relation ?? '?'}`)).toEqual([
      'group_id = devices',
      'device_id <> audits',
      'rotated_at <= devices',
      'at <= audits',
      'note <> ?',
    ]);
  });
});
