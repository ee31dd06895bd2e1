import { loadSqlParser } from './core/sql/index.js';
import { recommendedRules } from './configs.js';
import { rules } from './rules/index.js';

// Rules run synchronously, but the PostgreSQL parser is WebAssembly that loads
// asynchronously: load it once here, before ESLint asks any rule to run.
await loadSqlParser();

const pkg = { name: 'eslint-plugin-fencelint', version: '0.1.0' };

const plugin = {
  meta: { name: pkg.name, version: pkg.version, namespace: 'fencelint' },
  rules,
  configs: {} as Record<'recommended' | 'all', { name: string; plugins: Record<string, unknown>; rules: Record<string, unknown> }>,
};

plugin.configs.recommended = {
  name: 'fencelint/recommended',
  plugins: { fencelint: plugin },
  rules: { ...recommendedRules },
};
plugin.configs.all = {
  name: 'fencelint/all',
  plugins: { fencelint: plugin },
  rules: Object.fromEntries(Object.keys(rules).map((name) => [`fencelint/${name}`, 'error'])),
};

export { rules };
export default plugin;
