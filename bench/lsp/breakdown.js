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

/**
 * Where an edit's time goes with slices (the server's path): the outline (oxc and the names
 * that tie statements), then the lint of the edited group's slice, split into its parse, ESLint
 * without rules, and the rules. Digit edits as run.js makes them; CPU medians.
 */
export async function whereAnEditGoes(text, filename, points, rounds = 30) {
  const { IncrementalLinter, planSlices, sliceText } = await import('eslint-plugin-fencelint/incremental');
  const linter = new Linter({ configType: 'flat', cwd: '/' });
  const config = (rules) => [
    { files: ['**/*.ts'], languageOptions: { parser: fastParser, parserOptions: { ecmaFeatures: { jsx: true }, jsDocParsingMode: 'none' } }, linterOptions: { reportUnusedDisableDirectives: 'off' } },
    ...(rules ? [fencelint.configs.recommended] : []),
  ];
  const withRules = config(true);
  const incremental = new IncrementalLinter(linter);
  incremental.verify(text, withRules, filename, 'bench');
  const samples = { edit: [], outline: [], sliceParse: [], sliceNoRules: [], sliceWithRules: [] };
  const members = [];
  let current = text;
  for (let n = 0; n < rounds; n++) {
    const at = points[(n * 5) % points.length];
    current = `${current.slice(0, at)}${(n % 9) + 1}${current.slice(at + 1)}`;
    let start = cpuMs();
    const plan = planSlices(current, filename, 'bench');
    samples.outline.push(cpuMs() - start);
    const group = plan.groups.find((g) => g.members.some((m) => m.range[0] <= at && at < m.range[1]));
    members.push(group.members.length);
    const slice = sliceText(current, plan, group);
    start = cpuMs();
    fastParser.parseForESLint(slice, { filePath: filename, sourceType: 'module', ecmaVersion: 'latest', ecmaFeatures: { jsx: true } });
    samples.sliceParse.push(cpuMs() - start);
    start = cpuMs();
    linter.verify(slice, config(false), { filename });
    samples.sliceNoRules.push(cpuMs() - start);
    start = cpuMs();
    linter.verify(slice, withRules, { filename });
    samples.sliceWithRules.push(cpuMs() - start);
    start = cpuMs();
    const result = incremental.verify(current, withRules, filename, 'bench');
    samples.edit.push(cpuMs() - start);
    if (result.linted !== 1) throw new Error(`a digit edit linted ${result.linted} slices`);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const out = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  out.membersMedian = median(members);
  out.membersMax = Math.max(...members);
  const plan = planSlices(text, filename, 'bench');
  out.groups = plan.groups.length;
  out.units = plan.groups.reduce((sum, g) => sum + g.members.length, 0);
  console.log(`\nan edit with slices (this process, CPU ms, median of ${rounds} digit edits; ${out.units} units in ${out.groups} groups, the edited group ${out.membersMedian} units at the median, ${out.membersMax} at most):`);
  const rows = {
    'the whole edit (outline, one slice linted, the rest reused)': out.edit,
    'outline: oxc parse and the names that tie statements': out.outline,
    "the edited group's slice: fast parser": out.sliceParse,
    "the edited group's slice: Linter, no rules": out.sliceNoRules,
    "the edited group's slice: Linter, fencelint recommended": out.sliceWithRules,
  };
  for (const [name, ms] of Object.entries(rows)) console.log(`  ${name.padEnd(62)} ${ms.toFixed(1).padStart(7)}`);
  return out;
}
