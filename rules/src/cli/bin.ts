#!/usr/bin/env node
/**
 * The `fencelint` command: `fencelint check [paths]` prints the findings (stylish, JSON or
 * SARIF) and `fencelint fix --suggestions` applies the rules' suggestions, which ESLint's own
 * `--fix` never does. Exit status as ESLint's: 0 clean, 1 findings, 2 a usage or run error.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import plugin from '../index.js';
import { planSuggestions, unifiedDiff, writeEdits } from './apply-suggestions.js';
import { lintRun, UsageError, type LintRun } from './lint-run.js';
import { toSarif } from './sarif.js';

const USAGE = `Usage:
  fencelint check [paths...] [--format stylish|json|sarif] [--output FILE] [--rule NAME]...
  fencelint fix --suggestions [paths...] [--rule NAME]... [--dry-run]

Runs fencelint's rules with the project's ESLint config (eslint.config.*), or with the
bundled recommended config when the project has none. Paths default to the current folder.

  --format, -f     stylish (default), json, or sarif (SARIF 2.1.0 with code flows)
  --output, -o     write the report to FILE instead of stdout
  --rule, -r       run only this rule (repeatable), e.g. --rule require-fence-condition
  --suggestions    apply the first suggestion of each finding (fix)
  --dry-run        show the diff of the suggestions without writing (fix)
  --help, -h       this text
  --version, -v    the plugin's version`;

const FORMATS = ['stylish', 'json', 'sarif'] as const;

function say(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

function tellProblems(run: LintRun): void {
  if (run.settingsProblems.length > 0) say(process.stderr, `fencelint: ignored part of settings.fencelint:\n${run.settingsProblems.map((p) => `  - ${p}`).join('\n')}`);
  for (const notice of run.notices) say(process.stderr, `fencelint: ${notice}`);
}

async function check(patterns: string[], values: { format: string; output?: string; rule: string[] }, cwd: string): Promise<number> {
  if (!(FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`unknown format ${values.format}; use one of ${FORMATS.join(', ')}`);
  const run = await lintRun({ cwd, patterns, rules: values.rule, flows: values.format === 'sarif' });
  let report: string;
  if (values.format === 'sarif') {
    report = `${JSON.stringify(toSarif(run.results, { cwd, version: plugin.meta.version, flows: run.flows, configurationProblems: run.settingsProblems }), null, 2)}\n`;
  } else {
    const formatter = await run.eslint.loadFormatter(values.format);
    report = await formatter.format(run.results);
  }
  if (values.output) writeFileSync(path.resolve(cwd, values.output), report);
  else if (report) process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
  tellProblems(run);
  const errors = run.results.some((r) => r.errorCount > 0);
  return errors ? 1 : 0;
}

async function fix(patterns: string[], values: { suggestions?: boolean; 'dry-run'?: boolean; rule: string[] }, cwd: string): Promise<number> {
  if (!values.suggestions) throw new UsageError('fix applies suggestions: pass --suggestions (autofixes are `eslint --fix`)');
  const run = await lintRun({ cwd, patterns, rules: values.rule, flows: false });
  tellProblems(run);
  const edits = planSuggestions(run.results);
  for (const edit of edits) process.stdout.write(unifiedDiff(edit, cwd));
  const applied = edits.reduce((n, e) => n + e.applied.length, 0);
  const waiting = edits.reduce((n, e) => n + e.overlapping, 0);
  const skipped = values['dry-run'] ? [] : writeEdits(edits);
  for (const file of skipped) say(process.stderr, `fencelint: ${path.relative(cwd, file)} changed while it was linted; left as it is`);
  const files = edits.length - skipped.length;
  const verb = values['dry-run'] ? 'would apply' : 'applied';
  say(process.stderr, `fencelint: ${verb} ${applied} suggestion${applied === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}${waiting ? `; ${waiting} overlapping one${waiting === 1 ? '' : 's'} left for another run` : ''}.`);
  const remaining = run.results.reduce((n, r) => n + r.messages.filter((m) => m.ruleId && !(m.suggestions?.length)).length, 0);
  if (remaining > 0) say(process.stderr, `fencelint: ${remaining} finding${remaining === 1 ? ' has' : 's have'} no suggestion (no token in scope); see \`fencelint check\`.`);
  return 0;
}

async function main(argv: string[], cwd = process.cwd()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', short: 'f', default: 'stylish' },
        output: { type: 'string', short: 'o' },
        rule: { type: 'string', short: 'r', multiple: true, default: [] },
        suggestions: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    say(process.stderr, `fencelint: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    say(process.stdout, plugin.meta.version);
    return 0;
  }
  const [command, ...patterns] = positionals;
  if (values.help || !command) {
    say(values.help ? process.stdout : process.stderr, USAGE);
    return values.help ? 0 : 2;
  }
  try {
    if (command === 'check') return await check(patterns, values as { format: string; output?: string; rule: string[] }, cwd);
    if (command === 'fix') return await fix(patterns, values as { rule: string[] }, cwd);
    throw new UsageError(`unknown command ${command}`);
  } catch (error) {
    if (error instanceof UsageError) {
      say(process.stderr, `fencelint: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    // ESLint's own errors (no files match, a config that does not load) are messages for the user.
    say(process.stderr, `fencelint: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
