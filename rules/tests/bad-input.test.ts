/**
 * Bad input through ESLint's own `ESLint` class: syntax errors, SQL that does not parse,
 * a 5 MB generated file and unknown lock libraries must give no crash and no false report.
 */
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

function createEslint(): ESLint {
  return new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.{ts,js}'], languageOptions: { parser: tsParser as never } },
      { ...(plugin.configs.recommended as object), files: ['**/*.{ts,js}'] },
    ],
  });
}

async function lint(code: string, filePath = 'src/service.ts') {
  const [result] = await createEslint().lintText(code, { filePath });
  return result;
}

const lockedWrite = (sql: string) => `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try { await pool.query(${JSON.stringify(sql)}, [value, key]); } finally { await lock.release(); }
}
`;

describe('bad input', () => {
  it('a syntax error is a parse message, not a crash or a finding', async () => {
    const result = await lint(`${lockedWrite('UPDATE t SET v = $1 WHERE k = $2')}\nexport function broken( {`);
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0].fatal).toBe(true);
    expect(result.messages[0].ruleId).toBeNull();
  });

  it.each([
    ['a typo in the keyword', 'UPDAT resource_state SET value = $1 WHERE resource_key = $2'],
    ['a truncated statement', 'UPDATE resource_state SET value = $1 WHERE'],
    ['not SQL at all', 'please update the thing'],
    ['an empty string', ''],
    ['a MySQL-only upsert', 'INSERT INTO t (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)'],
  ])('SQL that does not parse (%s) gets no report', async (_name, sql) => {
    const result = await lint(lockedWrite(sql));
    expect(result.messages).toEqual([]);
  });

  it('the same file with parseable SQL is reported, so the cases above are meaningful', async () => {
    const result = await lint(lockedWrite('UPDATE resource_state SET value = $1 WHERE resource_key = $2'));
    expect(result.messages.map((m) => m.ruleId)).toEqual(['fencelint/require-fence-condition']);
  });

  it('an unknown lock library with no lock shape gets no report', async () => {
    const result = await lint(`import { Gate } from 'turnstile-gate';
import { Pool } from 'pg';
const pool = new Pool();
const gate = new Gate();
export async function save(key: string, value: string) {
  const pass = await gate.open(key);
  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  await gate.close(pass);
}`);
    expect(result.messages).toEqual([]);
  });

  it('a 5 MB generated file is linted without a crash or a false report', async () => {
    const unit = (i: number) => `export async function handler${i}(pool: any, id: string, lockKey: string) {
  const ttlMs = Date.now() % 1000 + ${i};
  const rows = await pool.query('SELECT value FROM resource_state WHERE resource_key = $1', [id]);
  await pool.query('INSERT INTO audit_log (resource_key, note) VALUES ($1, $2)', [id, 'read ${i}']);
  return { rows, ttlMs, lockKey };
}
`;
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 5 * 1024 * 1024; i++) {
      const text = unit(i);
      parts.push(text);
      size += text.length;
    }
    const result = await lint(parts.join(''), 'src/generated.ts');
    expect(size).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    expect(result.messages).toEqual([]);
  }, 180_000);

  it('binary content is a parse message, not a crash', async () => {
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe, 0x7b]).toString('latin1');
    const result = await lint(binary, 'src/image.ts');
    expect(result.messages.every((m) => m.fatal === true && m.ruleId === null)).toBe(true);
  });

  it('wrong settings are ignored rather than crashing the run', async () => {
    const eslint = new ESLint({
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, settings: { fencelint: { locks: [null, 42, { id: 7 }, { id: 'ok', acquire: 'notAList' }], tokenColumn: 5 } } },
        { ...(plugin.configs.recommended as object), files: ['**/*.ts'] },
      ],
    });
    const [result] = await eslint.lintText(lockedWrite('UPDATE resource_state SET value = $1 WHERE resource_key = $2'), { filePath: 'src/a.ts' });
    expect(result.messages.map((m) => m.ruleId)).toEqual(['fencelint/require-fence-condition']);
  });
});
