import type { Linter, Rule } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import type { FencelintSettings } from './settings.js';
import type { ParserChoice } from './parser-choice.js';
import type { LoadedPlugins } from './plugin-loader.js';
import { AnalysisCollector, COLLECTOR_NAMESPACE, COLLECTOR_RULE } from './file-analysis.js';

/** Extensions the server lints; `@typescript-eslint/parser` parses all of them. */
export const LINTED_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** fencelint's part of a workspace's own ESLint config (rule entries and `settings.fencelint`), and its parser. */
export interface WorkspaceFencelintOptions {
  rules: Record<string, Linter.RuleEntry>;
  settings: Record<string, unknown> | undefined;
  /** The parser the workspace config sets for the file, if any: it replaces the bundled one. */
  parser?: ParserChoice;
}

/** JSX on, JSDoc parsing off: no rule reads JSDoc types (nothing is type-checked), and skipping it saves ~5% of a typescript-estree parse. */
const BUNDLED_PARSER_OPTIONS = { ecmaFeatures: { jsx: true }, jsDocParsingMode: 'none' };

function severityOf(entry: Linter.RuleEntry): Linter.RuleSeverity {
  return Array.isArray(entry) ? entry[0] : entry;
}

function optionsOf(entry: Linter.RuleEntry): unknown[] {
  return Array.isArray(entry) ? entry.slice(1) : [];
}

/** Whether the rule's first option is an object that declares `tokenColumn`. */
function takesTokenColumn(rule: Rule.RuleModule | undefined): boolean {
  const schema = rule?.meta?.schema;
  const first = Array.isArray(schema) ? schema[0] : undefined;
  const properties = (first as { properties?: Record<string, unknown> } | undefined)?.properties;
  return !!properties && 'tokenColumn' in properties;
}

/**
 * Rule entries that name a rule the plugin has, and one line for each that does not. ESLint
 * throws on an unknown rule, which would take every diagnostic, hover and code action of the
 * file with it; a misspelt name drops only its own entry.
 */
export function knownRuleEntries<T>(
  plugins: LoadedPlugins,
  entries: Record<string, T>,
  where: string,
): { entries: Record<string, T>; problems: string[] } {
  const names = Object.keys(plugins.fencelint.rules ?? {});
  const known: Record<string, T> = {};
  const problems: string[] = [];
  for (const [id, entry] of Object.entries(entries)) {
    const name = id.replace(/^fencelint\//, '');
    if (names.includes(name)) {
      known[id] = entry;
      continue;
    }
    const meant = plugins.closestName(name, names);
    problems.push(`${where}: fencelint has no rule \`${name}\`${meant ? ` (did you mean \`${meant}\`?)` : ''}; that entry is ignored`);
  }
  return { entries: known, problems };
}

/**
 * The flat config for one document: the parser, the plugin's `recommended` rules, then
 * fencelint's options from the workspace's ESLint config (when opted in), then the editor
 * settings, which win. Only fencelint's rules and settings are ever taken from the workspace.
 */
export function buildLintConfig(
  plugins: LoadedPlugins,
  settings: FencelintSettings,
  workspace: WorkspaceFencelintOptions | undefined,
  collector: AnalysisCollector | undefined,
  bundledParser: ParserChoice = { parser: tsParser as Linter.Parser, source: 'typescript-eslint' },
): Linter.Config[] {
  const rules = new Map<string, Linter.RuleEntry>(Object.entries(plugins.recommendedRules));
  for (const [id, entry] of Object.entries(workspace?.rules ?? {})) rules.set(id, entry);
  for (const [name, severity] of Object.entries(settings.rules)) {
    const id = `fencelint/${name}`;
    const previous = rules.get(id);
    rules.set(id, previous === undefined ? severity : [severity, ...optionsOf(previous)]);
  }
  if (settings.tokenColumn) {
    for (const [id, entry] of rules) {
      const rule = plugins.fencelint.rules?.[id.replace(/^fencelint\//, '')] as Rule.RuleModule | undefined;
      if (!takesTokenColumn(rule) || severityOf(entry) === 'off' || severityOf(entry) === 0) continue;
      const [first, ...rest] = optionsOf(entry);
      rules.set(id, [severityOf(entry), { ...(first as object | undefined), tokenColumn: settings.tokenColumn }, ...rest]);
    }
  }

  const workspaceShared = workspace?.settings ?? {};
  const sharedSettings: Record<string, unknown> = { ...workspaceShared, ...settings.models };
  if (settings.tokenColumn) sharedSettings.tokenColumn = settings.tokenColumn;

  const parser = workspace?.parser ?? bundledParser;
  const config: Linter.Config[] = [
    {
      name: 'fencelint-language-server/files',
      files: LINTED_EXTENSIONS.map((ext) => `**/*${ext}`),
      languageOptions: {
        parser: parser.parser,
        ecmaVersion: 'latest',
        sourceType: 'module',
        parserOptions: parser.source === 'workspace' ? { ...BUNDLED_PARSER_OPTIONS, ...parser.parserOptions } : BUNDLED_PARSER_OPTIONS,
      },
      // Unused directives are ESLint's business, not a fencelint finding.
      linterOptions: { reportUnusedDisableDirectives: 'off' },
    },
    {
      name: 'fencelint-language-server/fencelint',
      plugins: { fencelint: plugins.fencelint },
      rules: Object.fromEntries(rules),
      settings: { fencelint: sharedSettings },
    },
  ];
  for (const extra of plugins.extra) {
    config.push({
      name: `fencelint-language-server/extra/${extra.namespace}`,
      plugins: { [extra.namespace]: extra.plugin },
      rules: Object.fromEntries(Object.keys(extra.plugin.rules ?? {}).map((name) => [`${extra.namespace}/${name}`, 'error'])),
    });
  }
  if (collector) {
    config.push({
      name: 'fencelint-language-server/collector',
      plugins: { [COLLECTOR_NAMESPACE]: collector.plugin },
      rules: { [COLLECTOR_RULE]: 'warn' },
    });
  }
  return config;
}
