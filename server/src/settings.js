/**
 * The server's settings, read per document through `workspace/configuration` (section
 * `fencelint`), the way vscode-eslint reads its own: never one global value, because two
 * folders of one workspace may configure fencelint differently.
 */
export const DEFAULT_SETTINGS = Object.freeze({
    enable: true,
    run: 'onType',
    rules: {},
    tokenColumn: null,
    models: {},
    useWorkspaceConfig: false,
    fixAll: { includeSuggestions: false },
});
const SEVERITY_NAMES = {
    off: 'off', '0': 'off', none: 'off',
    warn: 'warn', warning: 'warn', '1': 'warn',
    error: 'error', '2': 'error',
};
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/**
 * Turns whatever the client sent into settings. A value of the wrong type falls back to its
 * default and is named in `problems`, so the user sees why a setting had no effect.
 */
export function normalizeSettings(raw) {
    const problems = [];
    const settings = { ...DEFAULT_SETTINGS, rules: {}, models: {}, fixAll: { ...DEFAULT_SETTINGS.fixAll } };
    if (raw === undefined || raw === null)
        return { settings, problems };
    if (!isRecord(raw)) {
        problems.push('fencelint: settings must be an object; using the defaults');
        return { settings, problems };
    }
    if (raw.enable !== undefined) {
        if (typeof raw.enable === 'boolean')
            settings.enable = raw.enable;
        else
            problems.push('fencelint.enable must be true or false');
    }
    if (raw.run !== undefined) {
        if (raw.run === 'onType' || raw.run === 'onSave')
            settings.run = raw.run;
        else
            problems.push('fencelint.run must be "onType" or "onSave"');
    }
    if (raw.rules !== undefined) {
        if (isRecord(raw.rules)) {
            for (const [name, value] of Object.entries(raw.rules)) {
                const severity = SEVERITY_NAMES[String(Array.isArray(value) ? value[0] : value).toLowerCase()];
                if (severity)
                    settings.rules[name.replace(/^fencelint\//, '')] = severity;
                else
                    problems.push(`fencelint.rules.${name} must be "off", "warn" or "error"`);
            }
        }
        else {
            problems.push('fencelint.rules must be an object of rule name to severity');
        }
    }
    if (raw.tokenColumn !== undefined && raw.tokenColumn !== null && raw.tokenColumn !== '') {
        if (typeof raw.tokenColumn === 'string')
            settings.tokenColumn = raw.tokenColumn;
        else
            problems.push('fencelint.tokenColumn must be a column name');
    }
    if (raw.models !== undefined && raw.models !== null) {
        if (isRecord(raw.models))
            settings.models = raw.models;
        else
            problems.push('fencelint.models must be an object (the shape of ESLint settings.fencelint)');
    }
    if (raw.useWorkspaceConfig !== undefined) {
        if (typeof raw.useWorkspaceConfig === 'boolean')
            settings.useWorkspaceConfig = raw.useWorkspaceConfig;
        else
            problems.push('fencelint.useWorkspaceConfig must be true or false');
    }
    if (raw.fixAll !== undefined) {
        if (isRecord(raw.fixAll) && (raw.fixAll.includeSuggestions === undefined || typeof raw.fixAll.includeSuggestions === 'boolean')) {
            settings.fixAll.includeSuggestions = raw.fixAll.includeSuggestions === true;
        }
        else {
            problems.push('fencelint.fixAll.includeSuggestions must be true or false');
        }
    }
    return { settings, problems };
}
/** A stable key for settings, so lint configs built from equal settings are shared. */
export function settingsKey(settings) {
    return JSON.stringify(settings);
}
//# sourceMappingURL=settings.js.map