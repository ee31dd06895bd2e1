// Where one lint of the bench file spends its time, measured in this process on the same text:
// each step alone and ESLint's Linter with and without fencelint's rules, for the fast parser
// and for @typescript-eslint/parser. CPU time (user + system) of this process, medians.
import { Linter } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import { analyze } from '@typescript-eslint/scope-manager';
import { parseSync } from 'oxc-parser';
import fencelint from 'eslint-plugin-fencelint';
import fastParser from 'eslint-plugin-fencelint/fast-parser';

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

function medianOf(run, rounds) {
  for (let i = 0; i < 5; i++) run();
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const start = cpuMs();
    run();
    samples.push(cpuMs() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

export async function whereTheTimeGoes(text, filename, rounds = 15) {
  const linter = new Linter({ configType: 'flat', cwd: '/' });
  const options = { filePath: filename, sourceType: 'module', ecmaVersion: 'latest', ecmaFeatures: { jsx: true }, jsDocParsingMode: 'none' };
  const config = (parser, rules) => [
    { files: ['**/*.ts'], languageOptions: { parser, parserOptions: { ecmaFeatures: { jsx: true }, jsDocParsingMode: 'none' } }, linterOptions: { reportUnusedDisableDirectives: 'off' } },
    ...(rules ? [fencelint.configs.recommended] : []),
  ];
  const fastAst = fastParser.parseForESLint(text, options).ast;
  const steps = {
    'oxc parse (Rust, then JSON to objects)': () => parseSync(filename, text, { lang: 'ts', astType: 'ts', range: true, preserveParens: false, showSemanticErrors: true }).program,
    'fast parser (oxc + loc, tokens, scopes)': () => fastParser.parseForESLint(text, options),
    'scope analysis alone': () => analyze(fastAst, { sourceType: 'module' }),
    'Linter, fast parser, no rules': () => linter.verify(text, config(fastParser, false), { filename }),
    'Linter, fast parser, fencelint recommended': () => linter.verify(text, config(fastParser, true), { filename }),
    '@typescript-eslint/parser': () => tsParser.parseForESLint(text, options),
    'Linter, @typescript-eslint/parser, no rules': () => linter.verify(text, config(tsParser, false), { filename }),
    'Linter, @typescript-eslint/parser, fencelint recommended': () => linter.verify(text, config(tsParser, true), { filename }),
  };
  const result = {};
  for (const [name, run] of Object.entries(steps)) result[name] = medianOf(run, rounds);
  console.log(`\nwhere one lint's time goes (this process, CPU ms, median of ${rounds}):`);
  for (const [name, ms] of Object.entries(result)) console.log(`  ${name.padEnd(58)} ${ms.toFixed(1).padStart(7)}`);
  const rules = result['Linter, fast parser, fencelint recommended'] - result['Linter, fast parser, no rules'];
  const eslint = result['Linter, fast parser, no rules'] - result['fast parser (oxc + loc, tokens, scopes)'];
  console.log(`  => with the fast parser: parse ${result['fast parser (oxc + loc, tokens, scopes)'].toFixed(1)}, ESLint's own traversal and bookkeeping ${eslint.toFixed(1)}, fencelint's rules ${rules.toFixed(1)} ms`);
  return result;
}
