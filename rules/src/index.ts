import type { ESLint, Linter, Rule } from 'eslint';
import { loadSqlParser } from './core/sql/index.js';
import { RECOMMENDED_FILES, recommendedRules } from './configs.js';
import { rules } from './rules/index.js';

// Rules run synchronously, but the PostgreSQL parser is WebAssembly that loads
// asynchronously: load it once here, before ESLint asks any rule to run.
await loadSqlParser();

const pkg = { name: 'eslint-plugin-fencelint', version: '0.1.0' };

export type RuleName = keyof typeof rules;

/**
 * A config object of this plugin. Its type is plain data, so it fits a flat config array,
 * `defineConfig(...)` from `eslint/config` and `tseslint.config(...)` alike.
 */
export interface FencelintConfig {
  name: string;
  /** The JavaScript and TypeScript files of a project; spread the config and set `files` to narrow it. */
  files: string[];
  plugins: { fencelint: FencelintPlugin };
  rules: Linter.RulesRecord;
}

export interface FencelintPlugin extends ESLint.Plugin {
  meta: { name: string; version: string; namespace: 'fencelint' };
  /** Every rule has its `meta` (docs URL, messages, schema), so tools can read it without a check. */
  rules: Record<RuleName, Rule.RuleModule & { meta: Rule.RuleMetaData }>;
  configs: { recommended: FencelintConfig };
}

const plugin: FencelintPlugin = {
  meta: { name: pkg.name, version: pkg.version, namespace: 'fencelint' },
  // typescript-eslint's rule type is ESLint's rule with typed options; at run time they are the same object.
  rules: rules as unknown as FencelintPlugin['rules'],
  configs: {} as FencelintPlugin['configs'],
};

plugin.configs.recommended = {
  name: 'fencelint/recommended',
  files: [...RECOMMENDED_FILES],
  plugins: { fencelint: plugin },
  rules: { ...recommendedRules },
};

export { rules };
export default plugin;
