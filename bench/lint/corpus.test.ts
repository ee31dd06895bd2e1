// The benchmark's corpus is what its README says: enough code written elsewhere, JavaScript
// and TypeScript, and every file reaches both configs (none silently ignored). Timings are
// the benchmark's business, never a test's.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import fencelint from 'eslint-plugin-fencelint';
import { describe, expect, it } from 'vitest';
import { baseConfig, collectCorpus, MIN_LINES, withFencelint } from './corpus.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entries = collectCorpus();
const files = entries.flatMap((entry) => entry.files);

describe('lint benchmark corpus', () => {
  it(`holds at least ${MIN_LINES} lines written elsewhere, in JavaScript and TypeScript`, () => {
    expect(entries.missing).toEqual([]);
    const elsewhere = entries.filter((entry) => entry.name !== 'fixtures');
    const lines = elsewhere.reduce((sum, entry) => sum + entry.lines, 0);
    const tsLines = elsewhere.reduce((sum, entry) => sum + entry.tsLines, 0);
    expect(lines).toBeGreaterThanOrEqual(MIN_LINES);
    expect(tsLines).toBeGreaterThan(20_000);
    expect(lines - tsLines).toBeGreaterThan(20_000);
    expect(entries.find((entry) => entry.name === 'fixtures')?.files.length).toBeGreaterThanOrEqual(12);
  });

  it('gives every file the same parser in both configs and the rules only with fencelint', async () => {
    const base = baseConfig(entries);
    const baseline = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: base });
    const withRules = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withFencelint(base, fencelint) });
    const recommended = Object.keys(fencelint.configs.recommended.rules ?? {});
    const problems: string[] = [];
    for (const file of files) {
      if (await baseline.isPathIgnored(file)) problems.push(`ignored: ${file}`);
      const plain = await baseline.calculateConfigForFile(file);
      const full = await withRules.calculateConfigForFile(file);
      if (!plain || !full) {
        problems.push(`no config: ${file}`);
        continue;
      }
      if (Object.keys(plain.rules ?? {}).length > 0) problems.push(`baseline has rules: ${file}`);
      if (!recommended.every((id) => id in (full.rules ?? {}))) problems.push(`rules missing: ${file}`);
      if (plain.languageOptions?.sourceType !== full.languageOptions?.sourceType) problems.push(`sourceType differs: ${file}`);
    }
    expect(problems).toEqual([]);
  });
});
