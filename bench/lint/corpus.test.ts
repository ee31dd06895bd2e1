// The benchmark's corpora are what its README says: enough code written elsewhere, JavaScript
// and TypeScript, and every file reaches both configs (none silently ignored); the generated
// project is large enough and holds exactly the findings it is marked with. Timings are the
// benchmark's business, never a test's.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import fencelint from 'eslint-plugin-fencelint';
import { describe, expect, it } from 'vitest';
import { relative } from 'node:path';
import { baseConfig, collectCorpus, MIN_LINES, projectBaseConfig, withFencelint, withTsRecommended } from './corpus.js';
import { MIN_PROJECT_FILES, MIN_PROJECT_LINES, projectCorpusFiles, writeProjectCorpus } from './project-corpus.js';

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

  it("gives typescript-eslint's recommended the corpus's parser settings, and fencelint's rules only to the second config", async () => {
    const base = baseConfig(entries);
    const ts = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withTsRecommended(base) });
    const both = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withFencelint(withTsRecommended(base), fencelint) });
    const problems: string[] = [];
    for (const file of files.filter((_, i) => i % 10 === 0)) {
      const plain = await ts.calculateConfigForFile(file);
      const full = await both.calculateConfigForFile(file);
      const entry = entries.find((e) => file.startsWith(resolve(root, e.dir)));
      if (plain?.languageOptions?.sourceType !== entry?.sourceType) problems.push(`sourceType: ${file}`);
      if (!('@typescript-eslint/no-explicit-any' in (plain?.rules ?? {}))) problems.push(`no recommended rules: ${file}`);
      if (Object.keys(plain?.rules ?? {}).some((id) => id.startsWith('fencelint/'))) problems.push(`fencelint in the baseline: ${file}`);
      if (!('fencelint/require-fence-condition' in (full?.rules ?? {}))) problems.push(`fencelint missing: ${file}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('generated project corpus', () => {
  const project = writeProjectCorpus();

  it(`has at least ${MIN_PROJECT_FILES} files and ${MIN_PROJECT_LINES} lines, the same on every run, with marked unfenced writes`, () => {
    expect(project.files.length).toBeGreaterThanOrEqual(MIN_PROJECT_FILES);
    expect(project.lines).toBeGreaterThanOrEqual(MIN_PROJECT_LINES);
    expect(projectCorpusFiles()).toEqual(projectCorpusFiles());
    expect(project.expected.length).toBeGreaterThan(20);
  });

  it('reports exactly the marked writes of one domain and the shared modules, linted through the module graph', async () => {
    const slice = project.files.filter((file) => /[\\/]src[\\/](?:billing|shared)[\\/]/.test(file));
    const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withFencelint(projectBaseConfig(project.relativeDir), fencelint) });
    const results = await eslint.lintFiles(slice);
    const found = results
      .flatMap((r) => r.messages.map((m) => `${relative(project.dir, r.filePath).split('\\').join('/')}:${m.line} ${m.ruleId ?? 'fatal'}`))
      .sort();
    const expected = project.expected.filter((e) => /^src\/(?:billing|shared)\//.test(e));
    expect(expected.length).toBeGreaterThan(0);
    expect(found).toEqual(expected);
  });
});
