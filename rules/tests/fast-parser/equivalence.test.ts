// The fast parser against @typescript-eslint/parser on every file of the fixtures, of the lint
// benchmark's library corpus and of the syntax samples here: a file either gets the same tree
// (every node and property), tokens, comments and scopes, or it takes the fallback with one log
// line; and in both cases fencelint reports exactly the same findings and suggestions.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as typescriptParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import * as fastParser from '../../src/fast-parser/index.js';
import { compareParses, type ParsedForComparison } from './compare-parsers.js';
import { collectCorpus } from '../../../bench/lint/corpus.js';

const root = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

function listFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...listFiles(full));
    else if (entry.isFile() && SOURCE.test(entry.name)) found.push(full);
  }
  return found.sort();
}

interface Group {
  name: string;
  files: string[];
  sourceType: 'module' | 'commonjs';
}

const corpus = collectCorpus() as Array<{ name: string; files: string[]; sourceType: 'module' | 'commonjs' }>;
const groups: Group[] = [
  { name: 'syntax samples', files: listFiles(fileURLToPath(new URL('./samples/', import.meta.url))), sourceType: 'module' },
  { name: 'fixtures', files: listFiles(path.join(root, 'fixtures')), sourceType: 'module' },
  ...corpus.filter((entry) => entry.name !== 'fixtures').map((entry) => ({ name: `corpus: ${entry.name}`, files: entry.files, sourceType: entry.sourceType })),
];

type Parser = { parseForESLint(code: string, options?: unknown): ParsedForComparison };

/** A parser that keeps its last result, so the tree compared is the tree the rules saw. */
function recording(parser: Parser) {
  const record = { last: undefined as ParsedForComparison | undefined, calls: 0 };
  const wrapped = {
    meta: { name: 'recording' },
    parseForESLint(code: string, options?: unknown) {
      record.calls++;
      record.last = undefined;
      record.last = parser.parseForESLint(code, options);
      return record.last;
    },
  };
  return { record, wrapped };
}

function configFor(parser: unknown, file: string, sourceType: Group['sourceType']): Linter.Config[] {
  const commonjs = sourceType === 'commonjs' || file.endsWith('.cjs');
  return [
    {
      files: ['**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'],
      languageOptions: { parser: parser as Linter.Parser, ecmaVersion: 'latest', sourceType: commonjs ? 'commonjs' : 'module', parserOptions: { ecmaFeatures: { jsx: true } } },
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    },
    plugin.configs.recommended as Linter.Config,
  ];
}

/** What a user sees of a finding: rule, place, message, and each suggestion's text and edit. */
function findings(messages: Linter.LintMessage[]) {
  return messages.map((m) => ({
    ruleId: m.ruleId, fatal: m.fatal ?? false, line: m.line, column: m.column, endLine: m.endLine, endColumn: m.endColumn, message: m.message,
    fix: m.fix, suggestions: (m.suggestions ?? []).map((s) => ({ desc: s.desc, fix: s.fix })),
  }));
}

const fallbacks: fastParser.Fallback[] = [];
beforeAll(() => fastParser.setFallbackReporter((fallback) => fallbacks.push(fallback)));
afterAll(() => fastParser.setFallbackReporter(() => {}));

const linter = new Linter({ configType: 'flat', cwd: root });
const totals = { files: 0, fallbacks: 0, findings: 0 };

describe('the fast parser gives fencelint what @typescript-eslint/parser gives it', () => {
  for (const group of groups) {
    it(`${group.name} (${group.files.length} files)`, () => {
      expect(group.files.length).toBeGreaterThan(0);
      for (const file of group.files) {
        const text = readFileSync(file, 'utf8');
        // Linter skips anything under node_modules, where the corpus lives: lint it under another name.
        const filename = file.split(`${path.sep}node_modules${path.sep}`).join(`${path.sep}corpus-packages${path.sep}`);
        const reference = recording(typescriptParser as unknown as Parser);
        const fast = recording(fastParser as unknown as Parser);
        const before = fallbacks.length;
        const expected = findings(linter.verify(text, configFor(reference.wrapped, file, group.sourceType), { filename }));
        const actual = findings(linter.verify(text, configFor(fast.wrapped, file, group.sourceType), { filename }));
        expect([reference.record.calls, fast.record.calls], `${file} was parsed`).toEqual([1, 1]);
        const fellBack = fallbacks.slice(before).filter((f) => f.filePath === filename);
        expect(fellBack.length, `${file}: at most one log line`).toBeLessThanOrEqual(1);
        expect(actual, file).toEqual(expected);
        totals.files++;
        totals.findings += expected.filter((f) => !f.fatal).length;
        if (fellBack.length > 0) {
          totals.fallbacks++;
          continue;
        }
        // Both parsed (a file both reject has no tree to compare: ESLint reported the same fatal error).
        if (!reference.record.last || !fast.record.last) {
          expect(fast.record.last, `${file}: the fast path must not accept what the reference rejects`).toBeUndefined();
          continue;
        }
        expect(compareParses(fast.record.last, reference.record.last), file).toEqual([]);
      }
    }, 240_000);
  }

  it('takes the fast path for nearly every file and finds the fixtures\' hazards through it', () => {
    expect(totals.files).toBeGreaterThan(500);
    expect(totals.fallbacks).toBeLessThanOrEqual(totals.files / 100);
    expect(totals.findings).toBeGreaterThan(20);
    for (const fallback of fallbacks) expect(fallback.reason).toMatch(/\S/);
  });
});
