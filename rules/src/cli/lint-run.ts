/**
 * One lint run of the `fencelint` command, on ESLint's own Node API: the project's ESLint
 * config when it has one (so `files`, `ignores`, parsers and rule options are the user's), else
 * the bundled `recommended` with the TypeScript parser. Only fencelint's rules run either way:
 * the command reports late-write hazards, not the project's other lint findings.
 */
import path from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint, type Linter } from 'eslint';
import plugin from '../index.js';
import { RECOMMENDED_FILES } from '../configs.js';
import { onSettingsProblems } from '../core/settings.js';
import { flowCollector, type FileFlows } from './flows.js';

export interface LintRunOptions {
  cwd: string;
  patterns: string[];
  /** Rule names (with or without `fencelint/`) to run; all of fencelint's when empty. */
  rules: string[];
  /** Collect each finding's code flow (for SARIF). */
  flows: boolean;
}

export interface LintRun {
  eslint: ESLint;
  results: ESLint.LintResult[];
  /** The project's config file, or undefined when the bundled `recommended` was used. */
  configFile: string | undefined;
  flows: Map<string, FileFlows>;
  /** Problems in `settings.fencelint`, one line each. */
  settingsProblems: string[];
  /** Said once, when the run could not do what was asked (no fencelint rule is on, ...). */
  notices: string[];
}

export const BUNDLED_CONFIG: Linter.Config[] = [
  { name: 'fencelint-cli/typescript', files: [...RECOMMENDED_FILES], languageOptions: { parser: tsParser as Linter.Parser } },
  plugin.configs.recommended as Linter.Config,
];

function ruleIdOf(name: string): string {
  return name.startsWith('fencelint/') ? name : `fencelint/${name}`;
}

export class UsageError extends Error {}

/** Whether the config turns a fencelint rule on for any of the first files linted (a sample: configs repeat). */
async function anyFencelintRuleOn(eslint: ESLint, results: ESLint.LintResult[]): Promise<boolean> {
  for (const result of results.slice(0, 50)) {
    const config = (await eslint.calculateConfigForFile(result.filePath)) as Linter.Config | undefined;
    const on = Object.entries(config?.rules ?? {}).some(([id, entry]) => id.startsWith('fencelint/') && !['0', 'off'].includes(String(Array.isArray(entry) ? entry[0] : entry)));
    if (on) return true;
  }
  return false;
}

export async function lintRun(options: LintRunOptions): Promise<LintRun> {
  const wanted = new Set(options.rules.map(ruleIdOf));
  for (const id of wanted) {
    if (!(id.slice('fencelint/'.length) in plugin.rules)) throw new UsageError(`unknown rule ${id}; the rules are ${Object.keys(plugin.rules).join(', ')}`);
  }
  const collector = options.flows ? flowCollector() : undefined;
  const extra: Linter.Config[] = collector
    ? [{ name: 'fencelint-cli/flows', plugins: { 'fencelint-cli': collector.plugin }, rules: { [collector.ruleId]: 'warn' } }]
    : [];
  const ruleFilter = ({ ruleId }: { ruleId: string }) =>
    ruleId === collector?.ruleId || (ruleId.startsWith('fencelint/') && (wanted.size === 0 || wanted.has(ruleId)));

  const configFile = await new ESLint({ cwd: options.cwd }).findConfigFile();
  const eslint = configFile
    ? new ESLint({ cwd: options.cwd, overrideConfig: extra, ruleFilter, errorOnUnmatchedPattern: true })
    : new ESLint({ cwd: options.cwd, overrideConfigFile: true, overrideConfig: [...BUNDLED_CONFIG, ...extra], ruleFilter, errorOnUnmatchedPattern: true });

  const settingsProblems: string[] = [];
  onSettingsProblems((_message, problems) => settingsProblems.push(...problems));
  let results: ESLint.LintResult[];
  try {
    results = await eslint.lintFiles(options.patterns.length > 0 ? options.patterns : ['.']);
  } finally {
    onSettingsProblems(undefined);
  }
  if (collector) {
    for (const result of results) result.messages = result.messages.filter((m) => m.ruleId !== collector.ruleId);
    for (const result of results) {
      result.warningCount = result.messages.filter((m) => m.severity === 1).length;
      result.errorCount = result.messages.filter((m) => m.severity === 2).length;
    }
  }

  const notices: string[] = [];
  if (configFile && results.length > 0 && !(await anyFencelintRuleOn(eslint, results))) {
    const linted = results.find((r) => r.filePath !== configFile) ?? results[0];
    notices.push(`${path.relative(options.cwd, configFile) || configFile} turns on no fencelint rule for ${path.relative(options.cwd, linted.filePath)}${results.length > 1 ? ' and the other files' : ''}: add fencelint.configs.recommended to it`);
  }
  return { eslint, results, configFile, flows: collector?.flows ?? new Map(), settingsProblems: [...new Set(settingsProblems)], notices };
}
