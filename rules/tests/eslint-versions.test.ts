/** The plugin runs unchanged on ESLint 9 and ESLint 10, through each version's own ESLint class. */
import tsParser from '@typescript-eslint/parser';
import { ESLint as ESLint9 } from 'eslint';
import { ESLint as ESLint10 } from 'eslint-v10';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const fixture = (path: string) => fileURLToPath(new URL(`../../fixtures/services/${path}`, import.meta.url));

type EslintClass = new (options: Record<string, unknown>) => { lintText(code: string, options: { filePath: string }): Promise<Array<{ messages: Array<{ ruleId: string | null; line: number }> }>> };

async function findings(ESLint: EslintClass, file: string) {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tsParser } },
      { ...(plugin.configs.recommended as object), files: ['**/*.ts'] },
    ],
  });
  const [result] = await eslint.lintText(readFileSync(file, 'utf8'), { filePath: file });
  return result.messages.map((m) => `${m.line} ${m.ruleId}`);
}

describe.each([
  ['ESLint 9', ESLint9 as unknown as EslintClass],
  ['ESLint 10', ESLint10 as unknown as EslintClass],
])('%s', (_name, ESLint) => {
  it('reports the buggy service where it should', async () => {
    const messages = await findings(ESLint, fixture('inventory-redlock-pg/buggy.ts'));
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.endsWith('fencelint/require-fence-condition'))).toBe(true);
  });

  it('finds nothing in the fixed service', async () => {
    expect(await findings(ESLint, fixture('inventory-redlock-pg/fixed.ts'))).toEqual([]);
  });

  it('agrees with the other major version', async () => {
    const other = ESLint === (ESLint9 as unknown as EslintClass) ? ESLint10 : ESLint9;
    const file = fixture('quota-etcd3-postgresjs/buggy.ts');
    expect(await findings(ESLint, file)).toEqual(await findings(other as unknown as EslintClass, file));
  });
});
