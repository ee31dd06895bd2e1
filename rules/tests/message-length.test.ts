/**
 * Every message a user reads fits one line: at most about 120 characters, checked on real
 * findings (the fixtures' buggy services and the long-named samples in message-samples/),
 * so the data filled into each message is the data real code produces.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const MAX = 120;
const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:ts|mts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

const samples = [
  ...sourceFiles(join(here, 'message-samples')),
  ...sourceFiles(join(root, 'fixtures/services')).filter((f) => /buggy\./.test(f)),
  ...sourceFiles(join(root, 'fixtures/projects')).filter((f) => /\/buggy\//.test(f)),
];

async function lintSamples(): Promise<Array<{ file: string; message: Linter.LintMessage }>> {
  const allRules = Object.fromEntries(Object.keys(plugin.rules).map((name) => [`fencelint/${name}`, 'error' as const]));
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.{ts,mts,js,mjs,cjs}'], languageOptions: { parser: tsParser }, plugins: { fencelint: plugin as never }, rules: allRules }],
    ignore: false,
  });
  const results = await eslint.lintFiles(samples);
  return results.flatMap((r) => r.messages.map((message) => ({ file: r.filePath, message })));
}

describe('message length', async () => {
  const found = await lintSamples();

  it('lints the samples without a parse error', () => {
    expect(found.filter((f) => f.message.fatal).map((f) => `${f.file}: ${f.message.message}`)).toEqual([]);
  });

  for (const [name, rule] of Object.entries(plugin.rules)) {
    const ruleId = `fencelint/${name}`;
    for (const messageId of Object.keys(rule.meta.messages ?? {})) {
      it(`${name}/${messageId} fits in ${MAX} characters with real data`, () => {
        const texts = found
          .filter((f) => f.message.ruleId === ruleId)
          .flatMap((f) => [
            ...(f.message.messageId === messageId ? [f.message.message] : []),
            ...(f.message.suggestions ?? []).filter((s) => s.messageId === messageId).map((s) => s.desc),
          ]);
        expect(texts.length, `no sample reports ${ruleId} with ${messageId}: add one to rules/tests/message-samples/`).toBeGreaterThan(0);
        for (const text of texts) {
          expect(text.length, text).toBeLessThanOrEqual(MAX);
          expect(text, 'one line').not.toMatch(/\n/);
          // Nothing left unfilled, and no placeholder data (`undefined`, empty code spans).
          expect(text).not.toMatch(/\{\{|undefined|``/);
        }
      });
    }
  }

  it('a message never names the line it is reported on', () => {
    const selfReferences = found.filter((f) => new RegExp(`\\(line ${f.message.line}\\)|on line ${f.message.line}\\b`).test(f.message.message));
    expect(selfReferences.map((f) => `${f.file}:${f.message.line} ${f.message.message}`)).toEqual([]);
  });

  it('quotes source text as written', () => {
    const messages = found.map((f) => f.message.message);
    expect(messages).toContain('This DELETE under `(redlock as any).acquire` (line 31) compares no fence token, and none is in scope to compare.');
    // Too long to quote whole: cut, with an ellipsis.
    expect(messages.find((m) => m.includes('distributedLock'))).toMatch(/under `\(this\.distributedLockCo…` \(line 18\)/);
  });
});
