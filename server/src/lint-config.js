import tsParser from '@typescript-eslint/parser';
import { COLLECTOR_NAMESPACE, COLLECTOR_RULE } from './file-analysis.js';
/** Extensions the server lints; `@typescript-eslint/parser` parses all of them. */
export const LINTED_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
function severityOf(entry) {
    return Array.isArray(entry) ? entry[0] : entry;
}
function optionsOf(entry) {
    return Array.isArray(entry) ? entry.slice(1) : [];
}
/** Whether the rule's first option is an object that declares `tokenColumn`. */
function takesTokenColumn(rule) {
    const schema = rule?.meta?.schema;
    const first = Array.isArray(schema) ? schema[0] : undefined;
    const properties = first?.properties;
    return !!properties && 'tokenColumn' in properties;
}
/**
 * The flat config for one document: the parser, the plugin's `recommended` rules, then
 * fencelint's options from the workspace's ESLint config (when opted in), then the editor
 * settings, which win. Only fencelint's rules and settings are ever taken from the workspace.
 */
export function buildLintConfig(plugins, settings, workspace, collector) {
    const rules = new Map(Object.entries(plugins.recommendedRules));
    for (const [id, entry] of Object.entries(workspace?.rules ?? {}))
        rules.set(id, entry);
    for (const [name, severity] of Object.entries(settings.rules)) {
        const id = `fencelint/${name}`;
        const previous = rules.get(id);
        rules.set(id, previous === undefined ? severity : [severity, ...optionsOf(previous)]);
    }
    if (settings.tokenColumn) {
        for (const [id, entry] of rules) {
            const rule = plugins.fencelint.rules?.[id.replace(/^fencelint\//, '')];
            if (!takesTokenColumn(rule) || severityOf(entry) === 'off' || severityOf(entry) === 0)
                continue;
            const [first, ...rest] = optionsOf(entry);
            rules.set(id, [severityOf(entry), { ...first, tokenColumn: settings.tokenColumn }, ...rest]);
        }
    }
    const workspaceShared = workspace?.settings ?? {};
    const sharedSettings = { ...workspaceShared, ...settings.models };
    if (settings.tokenColumn)
        sharedSettings.tokenColumn = settings.tokenColumn;
    const config = [
        {
            name: 'fencelint-language-server/files',
            files: LINTED_EXTENSIONS.map((ext) => `**/*${ext}`),
            languageOptions: {
                parser: tsParser,
                ecmaVersion: 'latest',
                sourceType: 'module',
                parserOptions: { ecmaFeatures: { jsx: true } },
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
//# sourceMappingURL=lint-config.js.map