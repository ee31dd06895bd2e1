// A property of the server as a whole: after any sequence of incremental edits, the report for
// the document equals a fresh lint of its text at that version (ESLint's Linter in this
// process, @typescript-eslint/parser, fencelint's recommended rules). Random edit sequences on
// the editor benchmark's 2,000-line service file: digit swaps inside lock scopes, new writes,
// deletions that break the syntax and restorations that heal it. Whatever the server caches
// across edits (SQL analyses, configs, results) must never show through.
import { fileURLToPath } from 'node:url';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import fencelint from 'eslint-plugin-fencelint';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
// @ts-expect-error -- plain JavaScript module of the editor benchmark.
import { editPoints, generateServiceFile } from '../../bench/lsp/generate-file.js';
import { fileUri, TestClient } from './lsp-client.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

/** A small seeded generator (mulberry32), so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function positionAt(text: string, offset: number): { line: number; character: number } {
  let line = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, character: offset - start };
}

const WRITE = "\n    await pool.query('UPDATE accounts SET balance = 0 WHERE id = $1', [id]);";
const SNIPPETS = [' ', '\n', '0', '(', '}', ';', 'await ', WRITE];

/** One random edit of `text`: [start, end, replacement]. */
function randomEdit(text: string, original: string, next: () => number): [number, number, string] {
  const pick = next();
  const points = editPoints(text) as number[];
  if (pick < 0.45 && points.length > 0) {
    const at = points[Math.floor(next() * points.length)];
    return [at, at + 1, String(Math.floor(next() * 10))];
  }
  const at = Math.floor(next() * text.length);
  if (pick < 0.6) return [at, at, SNIPPETS[Math.floor(next() * SNIPPETS.length)]];
  if (pick < 0.7) return [at, Math.min(text.length, at + 1 + Math.floor(next() * 20)), ''];
  // Heal: put back the original text of a stretch of lines around the place.
  const line = positionAt(text, at).line;
  const lines = text.split('\n');
  const originalLines = original.split('\n');
  if (lines.length !== originalLines.length) return [0, text.length, original];
  const from = Math.max(0, line - 3);
  const to = Math.min(lines.length, line + 3);
  const start = lines.slice(0, from).join('\n').length + (from > 0 ? 1 : 0);
  const end = lines.slice(0, to).join('\n').length;
  return [start, end, originalLines.slice(from, to).join('\n')];
}

const linter = new Linter({ configType: 'flat', cwd: '/' });
const config: Linter.Config[] = [
  { files: ['**/*.ts'], languageOptions: { parser: tsParser as Linter.Parser, parserOptions: { ecmaFeatures: { jsx: true } } }, linterOptions: { reportUnusedDisableDirectives: 'off' } },
  fencelint.configs.recommended as Linter.Config,
];

/** What a fresh lint reports, in the server's terms (LSP positions count from 0). */
function freshReport(text: string, filename: string): string[] {
  return linter
    .verify(text, config, { filename })
    .filter((m) => m.ruleId?.startsWith('fencelint/'))
    .map((m) => `${m.ruleId} ${m.line - 1}:${m.column - 1}-${(m.endLine ?? m.line) - 1}:${(m.endColumn ?? m.column) - 1} ${m.message}`)
    .sort();
}

function serverReport(diagnostics: Diagnostic[]): string[] {
  return diagnostics
    .map((d) => `${String(d.code)} ${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.message}`)
    .sort();
}

describe('after any sequence of edits the report equals a fresh lint of the text', () => {
  const original = generateServiceFile(2000) as string;
  const seeds = [13, 2024, 77, 5];
  const checked = { withFindings: 0, broken: 0 };

  for (const seed of seeds) {
    it(`random edit sequence, seed ${seed}`, async () => {
      const client = await TestClient.start({ transport: 'stdio', pull: true });
      clients.push(client);
      const uri = fileUri(`edit-sequences/seed-${seed}/accounts.ts`);
      const filename = fileURLToPath(uri);
      const next = random(seed);
      let text = original;
      await client.open(uri, text);
      for (let step = 0; step < 24; step++) {
        // Now and then the user undoes everything (the whole text back at once).
        if (next() < 0.08) {
          await client.edit(uri, [{ range: { start: { line: 0, character: 0 }, end: positionAt(text, text.length) }, text: original }]);
          text = original;
        }
        const [start, end, replacement] = randomEdit(text, original, next);
        await client.edit(uri, [{ range: { start: positionAt(text, start), end: positionAt(text, end) }, text: replacement }]);
        text = text.slice(0, start) + replacement + text.slice(end);
        // Pull now and then, and always at the end: intermediate versions are linted or skipped as the server likes.
        if (step % 6 !== 5) continue;
        const expected = freshReport(text, filename);
        expect(serverReport(await client.diagnostics(uri)), `seed ${seed}, step ${step}`).toEqual(expected);
        if (expected.length > 0) checked.withFindings++;
        else checked.broken++;
      }
    }, 240_000);
  }

  it('checked texts with findings and texts without (broken mid-edit)', () => {
    expect(checked.withFindings).toBeGreaterThan(0);
    expect(checked.broken).toBeGreaterThan(0);
    expect(checked.withFindings + checked.broken).toBe(seeds.length * 4);
  });
});
