import { Linter, type Rule } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import type { TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { applySqlEdits, loadSqlParser, planFenceEdit, readSqlSource, type SqlDialect, type SqlSource } from '../../../src/core/sql/index.js';

beforeAll(async () => {
  await loadSqlParser();
});

interface Read {
  source: SqlSource | undefined;
  node: TSESTree.Node;
  text: string;
}

/**
 * Lints `code` with a rule that reads the SQL of every `query(...)` first argument and every
 * tagged template, the way the fencelint rules do.
 */
function readAll(code: string, dialect: SqlDialect = 'postgres'): Read[] {
  const found: Read[] = [];
  const capture: Rule.RuleModule = {
    create(context) {
      const sourceCode = context.sourceCode as unknown as SourceCode;
      const read = (node: TSESTree.Node): void => {
        found.push({ source: readSqlSource(node, sourceCode, dialect), node, text: sourceCode.text });
      };
      return {
        CallExpression(node) {
          const call = node as unknown as TSESTree.CallExpression;
          const callee = call.callee;
          if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && ['query', 'execute'].includes(callee.property.name)) {
            read(call.arguments[0]);
          }
        },
        TaggedTemplateExpression(node) {
          const tagged = node as unknown as TSESTree.TaggedTemplateExpression;
          // Only outermost templates: nested fragments are part of their parent.
          if ((tagged.parent as TSESTree.Node).type !== 'TemplateLiteral') read(tagged);
        },
      };
    },
  };
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
      plugins: { t: { rules: { capture } } },
      rules: { 't/capture': 'error' },
    },
  ], 'service.ts');
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return found;
}

function only(code: string, dialect: SqlDialect = 'postgres'): SqlSource {
  const reads = readAll(code, dialect);
  expect(reads).toHaveLength(1);
  expect(reads[0].source).toBeDefined();
  return reads[0].source!;
}

/** Applies the fence suggestion to the file text through toSourceIndex. */
function fixFile(code: string, source: SqlSource, tokenPlaceholder: string): string {
  const stmt = source.analysis.statements[0];
  const newline = code.includes('\r\n') ? '\r\n' : '\n';
  const edits = planFenceEdit(source.analysis, stmt, { column: 'fence_token', tokenPlaceholder, compare: true, store: true, newline });
  expect(edits.length).toBeGreaterThan(0);
  let out = code;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) {
    const at = source.toSourceIndex(e.offset);
    expect(at, `offset ${e.offset}`).toBeDefined();
    out = out.slice(0, at) + e.insert + out.slice(at! + e.deleteCount);
  }
  return out;
}

const text = (n: TSESTree.Node | undefined, code: string): string | undefined => (n ? code.slice(n.range[0], n.range[1]) : undefined);

describe('readSqlSource', () => {
  it('reads a string literal and maps offsets back into it', () => {
    const code = `await client.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);`;
    const s = only(code);
    expect(s.kind).toBe('literal');
    expect(s.analysis.statements[0].kind).toBe('update');
    const where = s.analysis.text.indexOf('WHERE');
    expect(s.toSourceIndex(where)).toBe(code.indexOf('WHERE'));
    expect(s.paramNode(1)).toBeUndefined();
    expect(fixFile(code, s, '$3')).toBe(
      `await client.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key]);`,
    );
  });

  it('maps offsets past escapes in a string literal', () => {
    const code = `db.query("UPDATE t SET note = 'it''s \\"done\\"' WHERE k = $1", [k]);`;
    const s = only(code);
    expect(s.analysis.text).toBe(`UPDATE t SET note = 'it''s "done"' WHERE k = $1`);
    expect(fixFile(code, s, '$2')).toBe(`db.query("UPDATE t SET note = 'it''s \\"done\\"', fence_token = $2 WHERE k = $1 AND fence_token < $2", [k]);`);
  });

  it('reads a multi-line template literal and keeps its layout in the fix', () => {
    const code = [
      'await pool.query(`',
      '  UPDATE resource_state',
      '     SET value = $1',
      '   WHERE resource_key = $2',
      '`, [value, key]);',
    ].join('\n');
    const s = only(code);
    expect(s.kind).toBe('template');
    expect(fixFile(code, s, '$3')).toBe(
      [
        'await pool.query(`',
        '  UPDATE resource_state',
        '     SET value = $1, fence_token = $3',
        '   WHERE resource_key = $2',
        '     AND fence_token < $3',
        '`, [value, key]);',
      ].join('\n'),
    );
  });

  it('maps offsets in a template of a file with CRLF line endings', () => {
    const code = 'await pool.query(`\r\nUPDATE resource_state\r\nSET value = $1\r\nWHERE resource_key = $2\r\n`, [v, k]);\r\n';
    const s = only(code);
    expect(s.analysis.text).toBe('\nUPDATE resource_state\nSET value = $1\nWHERE resource_key = $2\n');
    expect(s.toSourceIndex(s.analysis.text.indexOf('WHERE'))).toBe(code.indexOf('WHERE'));
    expect(fixFile(code, s, '$3')).toBe(
      'await pool.query(`\r\nUPDATE resource_state\r\nSET value = $1, fence_token = $3\r\nWHERE resource_key = $2\r\n  AND fence_token < $3\r\n`, [v, k]);\r\n',
    );
  });

  it('inlines constant interpolations and makes other interpolations parameters', () => {
    const code = [
      "const TABLE = 'resource_state';",
      'await pool.query(`UPDATE ${TABLE} SET value = $1 WHERE resource_key = $2 AND fence_token < ${lease.fenceToken}`, [v, k]);',
    ].join('\n');
    const s = only(code);
    expect(s.analysis.text).toBe('UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3');
    expect(text(s.paramNode(3), code)).toBe('lease.fenceToken');
    expect(s.dynamicParams).toEqual([3]);
    expect(s.analysis.statements[0].conditions.map((c) => `${c.column}${c.op}${c.value.params}`)).toEqual(['resource_key=2', 'fence_token<3']);
    // Inside the inlined constant there is nothing to point at; its edges map to `${` and after `}`.
    const at = s.analysis.text.indexOf('resource_state');
    expect(s.toSourceIndex(at + 3)).toBeUndefined();
    expect(s.toSourceIndex(at)).toBe(code.indexOf('${TABLE}'));
  });

  it('reads a choice between constant table names as its first, and a choice with a value as a value', () => {
    const code = [
      "const table = branded ? 'titles' : `thumbnails`;",
      'await pool.query(`UPDATE ${table} SET locked = 1 WHERE video_id = $1`, [id]);',
      "const column = branded ? 'title' : userColumn;",
      'await pool.query(`UPDATE items SET ${column} = 1 WHERE id = $1`, [id]);',
    ].join('\n');
    const [first, second] = readAll(code).filter((r) => r.source);
    expect(first.source!.analysis.text).toBe('UPDATE titles SET locked = 1 WHERE video_id = $1');
    expect(second.source!.dynamicParams.length).toBe(1);
  });

  it('binds each interpolation of a postgres.js tagged template to a parameter', () => {
    const code = 'await sql`UPDATE resource_state SET value = ${value}, fence_token = ${lease.fenceToken} WHERE resource_key = ${key} AND fence_token < ${lease.fenceToken}`;';
    const s = only(code);
    expect(s.kind).toBe('tagged-template');
    expect(s.analysis.text).toBe('UPDATE resource_state SET value = $1, fence_token = $2 WHERE resource_key = $3 AND fence_token < $4');
    expect([1, 2, 3, 4].map((n) => text(s.paramNode(n), code))).toEqual(['value', 'lease.fenceToken', 'key', 'lease.fenceToken']);
    expect(s.dynamicParams).toEqual([]);
  });

  it('fixes a tagged template with a JS interpolation as the placeholder', () => {
    const code = 'await sql`\n  UPDATE resource_state\n  SET value = ${value}\n  WHERE resource_key = ${key}\n`;';
    const s = only(code);
    expect(fixFile(code, s, '${lease.fenceToken}')).toBe(
      'await sql`\n  UPDATE resource_state\n  SET value = ${value}, fence_token = ${lease.fenceToken}\n  WHERE resource_key = ${key}\n    AND fence_token < ${lease.fenceToken}\n`;',
    );
  });

  it('inlines nested sql fragments, written inline or through a const', () => {
    const code = [
      'const stale = sql`fence_token < ${token}`;',
      'await sql`UPDATE jobs SET state = ${state} ${sql`WHERE id = ${id}`} AND ${stale}`;',
    ].join('\n');
    const reads = readAll(code).filter((r) => r.source);
    const s = reads.find((r) => r.source!.analysis.statements[0].kind === 'update')!.source!;
    expect(s.analysis.text).toBe('UPDATE jobs SET state = $1 WHERE id = $2 AND fence_token < $3');
    expect([1, 2, 3].map((n) => text(s.paramNode(n), code))).toEqual(['state', 'id', 'token']);
  });

  it('inlines Prisma.sql fragments in $executeRaw and marks Prisma.join dynamic', () => {
    const code = [
      'await prisma.$executeRaw`UPDATE "ResourceState" SET "value" = ${value}',
      '  WHERE "resourceKey" IN (${Prisma.join(keys)}) ${Prisma.sql`AND "fenceToken" < ${lease.fenceToken}`}`;',
    ].join('\n');
    const s = only(code);
    expect(s.analysis.text).toBe('UPDATE "ResourceState" SET "value" = $1\n  WHERE "resourceKey" IN ($2) AND "fenceToken" < $3');
    expect(s.dynamicParams).toEqual([2]);
    expect(s.analysis.statements[0].conditions.map((c) => `${c.column} ${c.op} ${c.value.params}`)).toEqual(['resourcekey IN 2', 'fencetoken < 3']);
    expect(text(s.paramNode(3), code)).toBe('lease.fenceToken');
  });

  it('makes helper calls parameters and marks them dynamic', () => {
    const code = 'await sql`SELECT ${sql(columns)} FROM jobs WHERE id = ${id} FOR UPDATE`;';
    const s = only(code);
    expect(s.analysis.statements[0].forUpdate).toBe(true);
    expect(s.dynamicParams).toEqual([1]);
    expect(text(s.paramNode(2), code)).toBe('id');
  });

  it('reads helpers where a parameter cannot stand as relations, assignments and column lists', () => {
    const code = 'await sql`update ${sql(table)} set ${sql(row, "state")} where id = ${id}`;';
    const s = only(code);
    expect(s.analysis.text).toBe('update "__dynamic_1" set "__dynamic_2" = $2 where id = $3');
    expect(s.dynamicParams).toEqual([1, 2]);
    expect(s.analysis.statements[0].conditions.map((c) => `${c.column}${c.op}${c.value.params}`)).toEqual(['id=3']);
    expect(text(s.paramNode(2), code)).toBe('sql(row, "state")');

    const insert = only('await sql`INSERT INTO jobs ${sql(job, "id", "state")} RETURNING id`;');
    expect(insert.analysis.statements[0].kind).toBe('insert');
    expect(insert.dynamicParams).toEqual([1]);
  });

  it('reads a computed relation name in a plain template', () => {
    const s = only('await client.query(`UPDATE ${tableFor(kind)} SET v = $1 WHERE k = $2`, [v, k]);');
    expect(s.analysis.statements[0].table).toBe('__dynamic_3');
    expect(s.dynamicParams).toEqual([3]);
  });

  it('gives nothing when a helper is the whole statement', () => {
    const reads = readAll('await sql`${sql.unsafe(text)}`;');
    expect(reads).toHaveLength(1);
    expect(reads[0].source).toBeUndefined();
  });

  it('reads a concatenation of string parts and maps each part', () => {
    const code = "await client.query('UPDATE resource_state SET value = $1 ' +\n  'WHERE resource_key = $2', [v, k]);";
    const s = only(code);
    expect(s.kind).toBe('concat');
    expect(s.analysis.text).toBe('UPDATE resource_state SET value = $1 WHERE resource_key = $2');
    expect(fixFile(code, s, '$3')).toBe(
      "await client.query('UPDATE resource_state SET value = $1, fence_token = $3 ' +\n  'WHERE resource_key = $2 AND fence_token < $3', [v, k]);",
    );
  });

  it('follows const identifiers a few hops', () => {
    const code = [
      'const UPDATE_STATE = `UPDATE resource_state SET value = $1 WHERE resource_key = $2 AND fence_token < $3`;',
      'const q = UPDATE_STATE;',
      'await client.query(q, [v, k, t]);',
    ].join('\n');
    const s = only(code);
    expect(s.analysis.statements[0].conditions.map((c) => c.column)).toEqual(['resource_key', 'fence_token']);
    expect(s.toSourceIndex(0)).toBe(code.indexOf('UPDATE resource_state'));
  });

  it('gives nothing for dynamic text', () => {
    const code = [
      'let q = "UPDATE t SET v = $1";',
      'await client.query(q, [v]);',
      'await client.query(buildQuery(), [v]);',
      'await client.query(prefix + " WHERE k = $1", [v]);',
      'await client.query(42);',
      'await client.query("not sql at all");',
    ].join('\n');
    expect(readAll(code).map((r) => r.source)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('reads mysql text with ? placeholders and maps edits into the file', () => {
    const code = 'await conn.execute("UPDATE `resource_state` SET `value` = ? WHERE `resource_key` = ?", [v, k]);';
    const s = only(code, 'mysql');
    expect(s.analysis.text).toBe('UPDATE "resource_state" SET "value" = $1 WHERE "resource_key" = $2');
    expect(fixFile(code, s, '?')).toBe(
      'await conn.execute("UPDATE `resource_state` SET `value` = ?, fence_token = ? WHERE `resource_key` = ? AND fence_token < ?", [v, k]);',
    );
    const edits = planFenceEdit(s.analysis, s.analysis.statements[0], { column: 'fence_token', tokenPlaceholder: '?', compare: true, store: true });
    expect(applySqlEdits(s.analysis, edits)).toBe('UPDATE `resource_state` SET `value` = ?, fence_token = ? WHERE `resource_key` = ? AND fence_token < ?');
  });
});
