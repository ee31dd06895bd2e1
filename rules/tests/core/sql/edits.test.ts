import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeSql, applySqlEdits, loadSqlParser, planFenceEdit, type FenceEditOptions } from '../../../src/core/sql/index.js';

beforeAll(async () => {
  await loadSqlParser();
});

/** The SQL after the suggested edits for its first statement. */
function fenced(sql: string, opts: Partial<FenceEditOptions> = {}, dialect: 'postgres' | 'mysql' = 'postgres'): string {
  const analysis = analyzeSql(sql, dialect)!;
  expect(analysis, sql).toBeDefined();
  const edits = planFenceEdit(analysis, analysis.statements[0], { column: 'fence_token', tokenPlaceholder: '$9', compare: true, store: true, ...opts });
  return applySqlEdits(analysis, edits)!;
}

describe('planFenceEdit', () => {
  it('extends a one-line UPDATE', () => {
    expect(fenced('UPDATE resource_state SET value = $1 WHERE resource_key = $2', { tokenPlaceholder: '$3' })).toBe(
      'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3',
    );
  });

  it('writes the article statement from its unfenced form', () => {
    const sql = 'UPDATE resource_state\nSET value = $1\nWHERE resource_key = $3;';
    expect(fenced(sql, { tokenPlaceholder: '$2' })).toBe('UPDATE resource_state\nSET value = $1, fence_token = $2\nWHERE resource_key = $3\n  AND fence_token < $2;');
  });

  it('follows multi-line, indented conjuncts and list items', () => {
    const sql = [
      '      UPDATE jobs',
      '         SET status = $1,',
      '             finished_at = now()',
      '       WHERE id = $2',
      '         AND owner = $3',
      '      RETURNING id',
    ].join('\n');
    expect(fenced(sql, { tokenPlaceholder: '$4' })).toBe(
      [
        '      UPDATE jobs',
        '         SET status = $1,',
        '             finished_at = now(),',
        '             fence_token = $4',
        '       WHERE id = $2',
        '         AND owner = $3',
        '         AND fence_token < $4',
        '      RETURNING id',
      ].join('\n'),
    );
  });

  it('adds a WHERE when there is none, before RETURNING', () => {
    expect(fenced('UPDATE counters SET n = n + 1 RETURNING n', { tokenPlaceholder: '$1' })).toBe(
      'UPDATE counters SET n = n + 1, fence_token = $1 WHERE fence_token < $1 RETURNING n',
    );
  });

  it('adds a WHERE on its own line when clauses have their own lines', () => {
    expect(fenced('UPDATE resource_state\n   SET value = $1\n RETURNING id', { tokenPlaceholder: '$2', store: false })).toBe(
      'UPDATE resource_state\n   SET value = $1\n   WHERE fence_token < $2\n RETURNING id',
    );
  });

  it('fences an upsert after its DO UPDATE SET list, qualifying the stored column', () => {
    const sql = 'INSERT INTO resource_state (resource_key, value) VALUES ($1, $2) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value RETURNING value';
    expect(fenced(sql, { tokenPlaceholder: '$3' })).toBe(
      'INSERT INTO resource_state (resource_key, value) VALUES ($1, $2) ON CONFLICT (resource_key) DO UPDATE SET value = EXCLUDED.value, fence_token = $3 WHERE resource_state.fence_token < $3 RETURNING value',
    );
  });

  it('extends the WHERE of an upsert, using its alias', () => {
    const sql = 'INSERT INTO resource_state AS r (k, v) VALUES ($1, $2) ON CONFLICT (k) WHERE active DO UPDATE SET v = EXCLUDED.v WHERE r.v IS DISTINCT FROM EXCLUDED.v';
    expect(fenced(sql, { tokenPlaceholder: '$3', store: false })).toBe(
      'INSERT INTO resource_state AS r (k, v) VALUES ($1, $2) ON CONFLICT (k) WHERE active DO UPDATE SET v = EXCLUDED.v WHERE r.v IS DISTINCT FROM EXCLUDED.v AND r.fence_token < $3',
    );
  });

  it('wraps a top-level OR before adding the condition', () => {
    expect(fenced('UPDATE t SET v = $1 WHERE a = $2 OR b = $3', { tokenPlaceholder: '$4', store: false })).toBe(
      'UPDATE t SET v = $1 WHERE (a = $2 OR b = $3) AND fence_token < $4',
    );
    expect(fenced('UPDATE t SET v = $1 WHERE (a = $2 OR b = $3)', { tokenPlaceholder: '$4', store: false })).toBe(
      'UPDATE t SET v = $1 WHERE (a = $2 OR b = $3) AND fence_token < $4',
    );
  });

  it('keeps lower-case keywords lower-case', () => {
    expect(fenced('update resource_state set value = $1 where resource_key = $2', { tokenPlaceholder: '$3' })).toBe(
      'update resource_state set value = $1, fence_token = $3 where resource_key = $2 and fence_token < $3',
    );
    expect(fenced('update t set v = $1', { tokenPlaceholder: '$2', store: false })).toBe('update t set v = $1 where fence_token < $2');
  });

  it('fences a DELETE (nothing to store)', () => {
    expect(fenced('DELETE FROM locks WHERE name = $1', { tokenPlaceholder: '$2' })).toBe('DELETE FROM locks WHERE name = $1 AND fence_token < $2');
  });

  it('qualifies the column when the write joins other relations', () => {
    expect(fenced('UPDATE jobs j SET state = $1 FROM leases l WHERE l.id = j.lease_id', { tokenPlaceholder: '$2', store: false })).toBe(
      'UPDATE jobs j SET state = $1 FROM leases l WHERE l.id = j.lease_id AND j.fence_token < $2',
    );
  });

  it('does not store a token that is already stored, and keeps a trailing comment after the edit', () => {
    expect(fenced('UPDATE t SET v = $1, fence_token = $2 WHERE k = $3 -- keep', { tokenPlaceholder: '$2' })).toBe(
      'UPDATE t SET v = $1, fence_token = $2 WHERE k = $3 AND fence_token < $2 -- keep',
    );
  });

  it('places edits right after non-ASCII text', () => {
    expect(fenced("UPDATE t SET note = 'déjà vu' WHERE k = $1", { tokenPlaceholder: '$2' })).toBe(
      "UPDATE t SET note = 'déjà vu', fence_token = $2 WHERE k = $1 AND fence_token < $2",
    );
  });

  it('edits the write inside a CTE', () => {
    const sql = 'WITH done AS (UPDATE jobs SET state = $1 WHERE id = $2 RETURNING id) SELECT count(*) FROM done';
    const analysis = analyzeSql(sql)!;
    const edits = planFenceEdit(analysis, analysis.statements[1], { column: 'fence_token', tokenPlaceholder: '$3', compare: true, store: true });
    expect(applySqlEdits(analysis, edits)).toBe(
      'WITH done AS (UPDATE jobs SET state = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3 RETURNING id) SELECT count(*) FROM done',
    );
  });

  it('plans nothing for statements without a place for the condition', () => {
    for (const sql of ['INSERT INTO t (k) VALUES ($1)', 'SELECT 1', 'UPDATE t SET v = 1 WHERE CURRENT OF c']) {
      const analysis = analyzeSql(sql)!;
      expect(planFenceEdit(analysis, analysis.statements[0], { column: 'fence_token', tokenPlaceholder: '$9', compare: true, store: false })).toEqual([]);
    }
  });

  it('edits mysql text in place and tells where the new ? values go', () => {
    const sql = 'UPDATE `resource_state` SET `value` = ? WHERE `resource_key` = ?';
    const analysis = analyzeSql(sql, 'mysql')!;
    const edits = planFenceEdit(analysis, analysis.statements[0], { column: 'fence_token', tokenPlaceholder: '?', compare: true, store: true });
    expect(applySqlEdits(analysis, edits)).toBe('UPDATE `resource_state` SET `value` = ?, fence_token = ? WHERE `resource_key` = ? AND fence_token < ?');
    expect(edits.map((e) => e.valueIndexes)).toEqual([[1], [3]]);
    const values = ['v', 'key'];
    for (const e of edits) for (const i of e.valueIndexes!) values.splice(i, 0, 'TOKEN');
    expect(values).toEqual(['v', 'TOKEN', 'key', 'TOKEN']);
  });

  it('puts the mysql condition before ORDER BY ... LIMIT', () => {
    expect(fenced('UPDATE jobs SET state = ? WHERE queue = ? ORDER BY id LIMIT 1', { tokenPlaceholder: '?' }, 'mysql')).toBe(
      'UPDATE jobs SET state = ?, fence_token = ? WHERE queue = ? AND fence_token < ? ORDER BY id LIMIT 1',
    );
  });

  it('edits pg-promise text in place with a named variable', () => {
    expect(fenced('UPDATE jobs SET state = ${state} WHERE id = ${id}', { tokenPlaceholder: '${token}' })).toBe(
      'UPDATE jobs SET state = ${state}, fence_token = ${token} WHERE id = ${id} AND fence_token < ${token}',
    );
  });

  it('gives one edit with two placeholders when SET and WHERE meet', () => {
    const analysis = analyzeSql('UPDATE t SET v = ?', 'mysql')!;
    const edits = planFenceEdit(analysis, analysis.statements[0], { column: 'fence_token', tokenPlaceholder: '?', compare: true, store: true });
    expect(edits).toEqual([{ offset: 'UPDATE t SET v = $1'.length, deleteCount: 0, insert: ', fence_token = ? WHERE fence_token < ?', valueIndexes: [1, 2] }]);
  });
});
