/**
 * `settings.fencelint` is checked against its schema: a wrong key or type gives one clear
 * warning per lint run and the rest of the settings still apply; nothing crashes. The docs page
 * names every field the schema has.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
import { onSettingsProblems, SETTINGS_SCHEMA, validateSettings } from '../src/core/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

const customLockWrite = `import { LeaseClient } from '@acme/leases';
import { Pool } from 'pg';
const pool = new Pool();
const leases = new LeaseClient();
export async function save(key: string, value: string) {
  const lease = await leases.grab(key);
  try { await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]); } finally { await lease.drop(); }
}
`;

const acmeLock = { id: 'acme-leases', packages: ['@acme/leases'], authorityExports: ['LeaseClient'], acquire: ['grab'], release: ['drop'] };

async function lint(settings: unknown, code = customLockWrite) {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tsParser as never } },
      { ...plugin.configs.recommended, settings: { fencelint: settings } },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, 'rules/tests/settings-case.ts') });
  return result.messages;
}

describe('settings.fencelint schema', () => {
  it('valid settings have no problem', () => {
    expect(validateSettings(undefined)).toEqual([]);
    expect(validateSettings({})).toEqual([]);
    expect(validateSettings({ tokenColumn: 'epoch', project: false, locks: [acmeLock, { id: 'x', acquireWithCallback: [{ method: 'using' }] }] })).toEqual([]);
  });

  it('names a misspelt key with the one meant, and a wrong type with the type wanted', () => {
    expect(validateSettings({ tokenColum: 'epoch' })).toEqual(['`tokenColum` is not a setting (did you mean `tokenColumn`?)']);
    expect(validateSettings({ locks: [{ id: 'a', aquire: ['grab'] }] })).toEqual(['`locks[0].aquire` is not a setting (did you mean `acquire`?)']);
    expect(validateSettings({ locks: [{ id: 'a', acquire: 'grab' }] })).toEqual(['`locks[0].acquire` must be an array of strings, not a string', 'the entry `locks[0]` (`a`) is not used']);
    expect(validateSettings({ locks: { id: 'a' } })).toEqual(['`locks` must be an array of objects, not an object']);
    expect(validateSettings({ locks: [{ acquire: ['grab'] }] })).toEqual(['`locks[0]` needs `id`', 'the entry `locks[0]` is not used']);
    expect(validateSettings({ project: 'no', tokenColumn: '' })).toEqual(['`tokenColumn` must not be empty', '`project` must be a boolean, not a string']);
    expect(validateSettings({ whatever: 1 })).toEqual(['`whatever` is not a setting']);
  });

  it('never throws, whatever the value', () => {
    const cyclic: Record<string, unknown> = { id: 'c' };
    cyclic.self = cyclic;
    for (const value of [null, 0, 'fence_token', [], [1], { locks: [null, 3, cyclic] }, { locks: [{ id: 'x', acquireWithCallback: [{ method: 1 }] }] }]) {
      expect(() => validateSettings(value)).not.toThrow();
    }
    expect(validateSettings({ locks: [null] })).toEqual(['`locks[0]` must be an object, not null', 'the entry `locks[0]` is not used']);
  });

  it('every field is documented on the settings page', () => {
    const page = readFileSync(path.join(repo, 'rules/docs/settings.md'), 'utf8');
    const { locks, sinks, tokenSources } = SETTINGS_SCHEMA.properties;
    const fields = [
      ...Object.keys(SETTINGS_SCHEMA.properties),
      ...Object.keys(locks.items.properties),
      ...Object.keys(sinks.items.properties),
      ...Object.keys(sinks.items.properties.writes.items.properties),
      ...Object.keys(tokenSources.items.properties),
    ];
    for (const field of fields) expect(page, field).toContain(`\`${field}\``);
  });
});

describe('settings.fencelint in a lint run', () => {
  const seen: string[] = [];
  afterEach(() => {
    seen.length = 0;
    onSettingsProblems(undefined);
  });

  it('a declared lock library is used: the write under it is reported', async () => {
    const messages = await lint({ locks: [acmeLock] });
    expect(messages.map((m) => m.ruleId)).toContain('fencelint/require-fence-condition');
    expect(await lint({})).toEqual([]);
  });

  it('a wrong entry is reported once and the valid parts still apply', async () => {
    onSettingsProblems((message) => seen.push(message));
    const settings = { tokenColum: 'epoch', locks: [acmeLock, { id: 'broken', acquire: 'grab' }] };
    const first = await lint(settings);
    await lint(settings);
    await lint(structuredClone(settings));
    expect(first.map((m) => m.ruleId)).toContain('fencelint/require-fence-condition');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^fencelint: ignored part of settings\.fencelint: `tokenColum` is not a setting \(did you mean `tokenColumn`\?\); `locks\[1\]\.acquire` must be an array of strings, not a string; the entry `locks\[1\]` \(`broken`\) is not used\./);
  });

  it('settings that are not an object are reported, and the rules still run', async () => {
    onSettingsProblems((message) => seen.push(message));
    await lint('fence_token');
    expect(seen).toEqual([expect.stringContaining('settings.fencelint must be an object')]);
  });
});

describe('settings.fencelint through the eslint command', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fencelint-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one warning for the whole run, however many files', async () => {
    const pluginUrl = new URL('../dist/index.js', import.meta.url).href;
    writeFileSync(
      path.join(dir, 'eslint.config.mjs'),
      `import fencelint from ${JSON.stringify(pluginUrl)};
export default [{ ...fencelint.configs.recommended, settings: { fencelint: { tokenColum: 'epoch' } } }];
`,
    );
    for (const name of ['a.js', 'b.js', 'c.js']) writeFileSync(path.join(dir, name), 'export const x = 1;\n');
    const eslintBin = path.join(repo, 'node_modules/eslint/bin/eslint.js');
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [eslintBin, '.'], { cwd: dir });
    expect(stdout).toBe('');
    const warnings = stderr.split('\n').filter((line) => line.includes('FencelintSettingsWarning'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('`tokenColum` is not a setting (did you mean `tokenColumn`?)');
  });
});
