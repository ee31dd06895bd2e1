// Syntax the fast parser rejects, or where oxc and typescript-estree part ways, and text that
// is broken mid-edit: the file falls back to @typescript-eslint/parser with one log line (or,
// when both reject it, ESLint reports the same parse error), never a crash and never a
// finding the default parser would not give.
import * as typescriptParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import * as fastParser from '../../src/fast-parser/index.js';
import { compareParses } from './compare-parsers.js';

const logged: fastParser.Fallback[] = [];
fastParser.setFallbackReporter((fallback) => logged.push(fallback));
afterAll(() => fastParser.setFallbackReporter(() => {}));
beforeEach(() => {
  logged.length = 0;
});

const linter = new Linter({ configType: 'flat', cwd: '/' });
let counter = 0;

function lint(parser: unknown, text: string, filename: string) {
  const config: Linter.Config[] = [
    { files: ['**/*.{ts,tsx,js,cjs}'], languageOptions: { parser: parser as Linter.Parser, parserOptions: { ecmaFeatures: { jsx: true } } } },
    plugin.configs.recommended as Linter.Config,
  ];
  return linter.verify(text, config, { filename }).map(({ ruleId, fatal, line, column, message, suggestions }) => ({ ruleId, fatal, line, column, message, suggestions }));
}

/** Lints with both parsers; each case gets its own file name, so the log's one-per-file rule is visible. */
function both(text: string, extension = 'ts') {
  const filename = `/workspace/case-${++counter}.${extension}`;
  const fast = lint(fastParser, text, filename);
  return { filename, fast, reference: lint(typescriptParser, text, filename) };
}

const UNFENCED = `
import Redlock from 'redlock';
import { Pool } from 'pg';
const redlock = new Redlock([]);
const pool = new Pool();
export async function save(id: string, value: string) {
  const lock = await redlock.acquire(['k:' + id], 5000);
  await pool.query('UPDATE items SET value = $1 WHERE id = $2', [value, id]);
  await lock.release();
}
`;

describe('syntax the two parsers agree on takes the fast path', () => {
  it('decorators: same tree, tokens and scopes, no fallback', () => {
    const text = `@Injectable()\nexport class Service { @Input() name = 1; handle(@Inject(TOKEN) x: number) { return x; } @memo accessor cached = 2; }\n${UNFENCED}`;
    const options = { filePath: '/workspace/decorated.ts', sourceType: 'module' };
    const differences = compareParses(fastParser.parseForESLint(text, options) as never, typescriptParser.parseForESLint(text, options as never) as never);
    expect(differences).toEqual([]);
    expect(logged).toEqual([]);
    const { fast, reference } = both(text);
    expect(fast).toEqual(reference);
    expect(fast.map((m) => m.ruleId)).toContain('fencelint/require-fence-condition');
  });

  it('`import defer`: same tree, no fallback', () => {
    const text = `import defer * as heavy from './heavy.js';\nexport const run = () => heavy.start();\n`;
    const options = { filePath: '/workspace/deferred.ts', sourceType: 'module' };
    expect(compareParses(fastParser.parseForESLint(text, options) as never, typescriptParser.parseForESLint(text, options as never) as never)).toEqual([]);
    expect(logged).toEqual([]);
  });
});

describe('syntax where they part ways falls back, with one log line', () => {
  const cases: Record<string, { text: string; extension?: string; reason: RegExp }> = {
    'a redeclared name (oxc reports it, typescript-estree leaves it to the type checker)': { text: `let x = 1;\nlet x = 2;\n${UNFENCED}`, reason: /already been declared/ },
    '`with` in a module (oxc applies strict mode; typescript-estree leaves it to the type checker)': { text: 'with (Math) { max(1, 2); }\n', extension: 'js', reason: /with/ },
    'JSX text with character references': { text: 'export const a = <p>fish &amp; chips</p>;\n', extension: 'tsx', reason: /character references/ },
  };
  for (const [name, { text, extension, reason }] of Object.entries(cases)) {
    it(name, () => {
      const { filename, fast, reference } = both(text, extension);
      expect(fast).toEqual(reference);
      expect(fast.some((m) => m.fatal)).toBe(false);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ filePath: filename });
      expect(logged[0].reason).toMatch(reason);
    });
  }

  it('logs a file once per reason, however often it is linted', () => {
    const text = `let x = 1;\nlet x = 2;\n`;
    for (let i = 0; i < 5; i++) lint(fastParser, text, '/workspace/linted-often.ts');
    expect(logged).toHaveLength(1);
  });

  it('typed linting (`project`) always takes @typescript-eslint/parser', () => {
    expect(() => fastParser.parseForESLint('const a = 1;', { filePath: '/workspace/typed.ts', project: './tsconfig.json', tsconfigRootDir: '/nonexistent' })).toThrow();
    expect(logged).toHaveLength(1);
    expect(logged[0].reason).toMatch(/typed linting/);
  });
});

describe('text both parsers reject gives the same parse error and no findings', () => {
  const cases: Record<string, { text: string; extension?: string; logs?: number }> = {
    'JSX in a .ts file': { text: 'export const a = <div>hello</div>;\n' },
    'broken code mid-edit inside a lock scope': { text: UNFENCED.replace("await pool.query('UPDATE", "await pool.query(`UPDATE").replace('WHERE id = $2', 'WHERE id = ${') },
    'an unclosed function': { text: `${UNFENCED}\nexport function half(a: number {\n  return a /\n` },
    // oxc accepts these, typescript-estree does not: the fast path sees them and steps aside (one log line).
    '`import source`': { text: "import source wasm from './module.wasm';\n", logs: 1 },
    'a computed enum member': { text: "enum E { ['a'] = 1 }\n", logs: 1 },
    'a legacy octal literal in a module': { text: 'export const mode = 0755;\n', extension: 'js' },
  };
  for (const [name, { text, extension, logs = 0 }] of Object.entries(cases)) {
    it(name, () => {
      const { fast, reference } = both(text, extension);
      expect(reference).toHaveLength(1);
      expect(reference[0].fatal).toBe(true);
      expect(fast).toEqual(reference);
      // A syntax error both parsers see is no news: no log line.
      expect(logged).toHaveLength(logs);
    });
  }
});

describe('edits in sequence', () => {
  it('broken, fixed and broken again: each text gets its own answer, nothing stale or doubled', () => {
    const good = UNFENCED;
    const broken = UNFENCED.replace('await lock.release();', 'await lock.release(;');
    const answers = [good, broken, good, broken, good].map((text) => lint(fastParser, text, '/workspace/editing.ts'));
    const expectedGood = lint(typescriptParser, good, '/workspace/editing.ts');
    expect(expectedGood.filter((m) => m.ruleId === 'fencelint/require-fence-condition')).toHaveLength(1);
    expect(answers[0]).toEqual(expectedGood);
    expect(answers[2]).toEqual(expectedGood);
    expect(answers[4]).toEqual(expectedGood);
    expect(answers[1]).toEqual(lint(typescriptParser, broken, '/workspace/editing.ts'));
    expect(answers[1].every((m) => m.fatal)).toBe(true);
    expect(answers[3]).toEqual(answers[1]);
  });
});
