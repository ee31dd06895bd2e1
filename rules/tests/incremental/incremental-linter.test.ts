// Re-linting by slices must give what a fresh lint of the whole text gives, after any sequence
// of edits: random edit sequences (seeded, so a failure replays) on the editor benchmark's
// 2,000-line service, digit swaps, typed and deleted text, new lines, broken syntax and undo.
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as typescriptParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import * as fastParser from '../../src/fast-parser/index.js';
import { IncrementalLinter } from '../../src/incremental/index.js';
import { planSlices } from '../../src/incremental/slices.js';
// @ts-expect-error -- plain JavaScript without types
import { editPoints, generateServiceFile } from '../../../bench/lsp/generate-file.js';

const filename = path.join(tmpdir(), 'fencelint-incremental', 'service.ts');
const linter = new Linter({ configType: 'flat', cwd: '/' });
const configFor = (parser: unknown): Linter.Config[] => [
  { files: ['**/*.ts'], languageOptions: { parser: parser as Linter.Parser, parserOptions: { ecmaFeatures: { jsx: true } } } },
  plugin.configs.recommended as Linter.Config,
];

/** Everything a user sees of a message, in a fixed order. */
function canonical(messages: Linter.LintMessage[]): string[] {
  return messages
    .map((m) => JSON.stringify([m.line, m.column, m.endLine, m.endColumn, m.ruleId, m.severity, m.fatal ?? false, m.message, m.messageId, m.fix, m.suggestions]))
    .sort();
}

/** mulberry32: a small seeded generator, so every sequence can be replayed from its seed. */
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

const TYPED = ['x', ' ', ';', '{', '}', '(', ')', '\n', '"', '`', 'lock', 'await ', 'const t = 1;', 'if (a) {', '// note', '/*', 'fence_token', '.'];

interface Edit {
  kind: string;
  apply(text: string): string;
}

/** One random edit: mostly inside functions, sometimes anywhere, sometimes syntax-breaking. */
function randomEdit(text: string, next: () => number, history: string[]): Edit {
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const at = Math.floor(next() * text.length);
  const roll = next();
  if (roll < 0.3) {
    const points = editPoints(text) as number[];
    const point = points.length > 0 ? pick(points) : at;
    return { kind: 'digit', apply: (t) => `${t.slice(0, point)}${Math.floor(next() * 10)}${t.slice(point + 1)}` };
  }
  if (roll < 0.5) {
    const typed = pick(TYPED);
    return { kind: `type ${JSON.stringify(typed)}`, apply: (t) => t.slice(0, at) + typed + t.slice(at) };
  }
  if (roll < 0.62) {
    const length = 1 + Math.floor(next() * 40);
    return { kind: `delete ${length}`, apply: (t) => t.slice(0, at) + t.slice(at + length) };
  }
  if (roll < 0.72) {
    const line = text.lastIndexOf('\n', at) + 1;
    return { kind: 'new line', apply: (t) => `${t.slice(0, line)}\n${t.slice(line)}` };
  }
  if (roll < 0.8) {
    // A fence condition typed into one UPDATE, or one taken out.
    const where = text.indexOf(' WHERE id = $2', at);
    if (where !== -1) return { kind: 'fence', apply: (t) => `${t.slice(0, where)} WHERE fence_token < $3 AND id = $2${t.slice(where + ' WHERE id = $2'.length)}` };
    const fenced = text.indexOf(' AND fence_token < $2');
    if (fenced !== -1) return { kind: 'unfence', apply: (t) => t.slice(0, fenced) + t.slice(fenced + ' AND fence_token < $2'.length) };
  }
  if (roll < 0.9 && history.length > 1) {
    const back = history[history.length - 2];
    return { kind: 'undo', apply: () => back };
  }
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const lineEnd = text.indexOf('\n', at);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd + 1);
  return { kind: 'duplicate line', apply: (t) => t.slice(0, lineStart) + line + t.slice(lineStart) };
}

function runSequence(seed: number, steps: number, parser: unknown) {
  const config = configFor(parser);
  const incremental = new IncrementalLinter(linter);
  const next = random(seed);
  let text = generateServiceFile(2000) as string;
  const history = [text];
  let reused = 0;
  for (let step = 0; step <= steps; step++) {
    if (step > 0) {
      const edit = randomEdit(text, next, history);
      text = edit.apply(text);
      history.push(text);
    }
    const result = incremental.verify(text, config, filename, 'test');
    const fresh = linter.verify(text, config, { filename });
    expect(canonical(result.messages), `seed ${seed}, step ${step}`).toEqual(canonical(fresh));
    reused += result.reused;
  }
  return { reused };
}

describe('incremental linting equals a fresh lint of the final text', () => {
  it('splits the benchmark service into groups, most of them single functions', () => {
    const plan = planSlices(generateServiceFile(2000) as string, filename, 'test');
    expect(plan).toBeDefined();
    const sizes = plan!.groups.map((g) => g.members.length);
    expect(sizes.length).toBeGreaterThan(20);
    expect(sizes.filter((n) => n === 1).length).toBeGreaterThan(sizes.length / 2);
  });

  it('re-lints only the edited function\'s group on a digit swap', () => {
    const config = configFor(fastParser);
    const incremental = new IncrementalLinter(linter);
    const text = generateServiceFile(2000) as string;
    const first = incremental.verify(text, config, filename, 'test');
    expect(first.mode).toBe('slices');
    const point = (editPoints(text) as number[])[3];
    const edited = `${text.slice(0, point)}7${text.slice(point + 1)}`;
    const second = incremental.verify(edited, config, filename, 'test');
    expect(second.linted).toBe(1);
    expect(second.reused).toBe(first.linted - 1);
    expect(canonical(second.messages)).toEqual(canonical(linter.verify(edited, config, { filename })));
    // Another context key (configuration, imported modules changed) reuses nothing.
    expect(incremental.verify(edited, config, filename, 'other').reused).toBe(0);
  });

  it('lints a cold text whole, then warms its slices so that the next edit re-lints one group', () => {
    const config = configFor(fastParser);
    const incremental = new IncrementalLinter(linter, { coldShare: 0.5 });
    const text = generateServiceFile(2000) as string;
    const whole = canonical(linter.verify(text, config, { filename }));
    const cold = incremental.verify(text, config, filename, 'test');
    expect(cold.mode).toBe('cold');
    expect(cold.linted).toBe(1);
    expect(canonical(cold.messages)).toEqual(whole);
    const groups = planSlices(text, filename, 'test')!.groups.length;
    let steps = 0;
    for (let remaining = groups; remaining > 0; steps++) remaining = incremental.warm(text, config, filename, 'test', 8);
    expect(steps).toBe(Math.ceil(groups / 8));
    const warm = incremental.verify(text, config, filename, 'test');
    expect(warm).toMatchObject({ mode: 'slices', linted: 0, reused: groups });
    expect(canonical(warm.messages)).toEqual(whole);
    const point = (editPoints(text) as number[])[3];
    const edited = `${text.slice(0, point)}7${text.slice(point + 1)}`;
    const next = incremental.verify(edited, config, filename, 'test');
    expect(next).toMatchObject({ mode: 'slices', linted: 1, reused: groups - 1 });
    expect(canonical(next.messages)).toEqual(canonical(linter.verify(edited, config, { filename })));
  });

  for (const seed of [1, 2, 3]) {
    it(`random edits with the fast parser (seed ${seed})`, () => {
      const { reused } = runSequence(seed, 24, fastParser);
      expect(reused).toBeGreaterThan(0);
    });
  }

  it('random edits with @typescript-eslint/parser (seed 7)', () => {
    const { reused } = runSequence(7, 10, typescriptParser);
    expect(reused).toBeGreaterThan(0);
  });

  it('gives every fixture file the findings of a whole-file lint', () => {
    const root = path.resolve(import.meta.dirname, '../../../fixtures');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !f.includes('node_modules'));
    expect(files.length).toBeGreaterThan(50);
    const config = configFor(fastParser);
    let split = 0;
    for (const file of files) {
      const full = path.join(root, file);
      const text = readFileSync(full, 'utf8');
      const result = new IncrementalLinter(linter).verify(text, config, full, 'test');
      if (result.mode === 'slices') split++;
      expect(canonical(result.messages), file).toEqual(canonical(linter.verify(text, config, { filename: full })));
    }
    expect(split).toBeGreaterThan(20);
  });

  it('text that does not parse is linted whole: the same parse error, no stale findings', () => {
    const config = configFor(fastParser);
    const incremental = new IncrementalLinter(linter);
    const text = generateServiceFile(2000) as string;
    incremental.verify(text, config, filename, 'test');
    const broken = text.replace('export async function saveBalance1(', 'export async function saveBalance1((');
    const result = incremental.verify(broken, config, filename, 'test');
    expect(result.mode).toBe('whole');
    expect(result.messages.filter((m) => m.fatal)).toHaveLength(1);
    expect(canonical(result.messages)).toEqual(canonical(linter.verify(broken, config, { filename })));
  });
});
