/**
 * The server's settings, read per document through `workspace/configuration` (section
 * `fencelint`), the way vscode-eslint reads its own: never one global value, because two
 * folders of one workspace may configure fencelint differently.
 */
export type RunMode = 'onType' | 'onSave';
export type RuleSeverity = 'off' | 'warn' | 'error';
export interface FencelintSettings {
    /** Lint at all. */
    enable: boolean;
    /** Lint while typing, or only when the document is saved. */
    run: RunMode;
    /** Severity per rule, keyed by rule name with or without the `fencelint/` prefix. */
    rules: Record<string, RuleSeverity>;
    /** Column that holds the accepted token at the resource, passed to the rules. */
    tokenColumn: string | null;
    /** User lock and sink models: the same shape as ESLint's `settings.fencelint`. */
    models: Record<string, unknown>;
    /** Read fencelint's options from the workspace's own ESLint flat config (trusted workspaces only). */
    useWorkspaceConfig: boolean;
    /** What `source.fixAll.fencelint` applies besides autofixes. */
    fixAll: {
        includeSuggestions: boolean;
    };
}
export declare const DEFAULT_SETTINGS: Readonly<FencelintSettings>;
/**
 * Turns whatever the client sent into settings. A value of the wrong type falls back to its
 * default and is named in `problems`, so the user sees why a setting had no effect.
 */
export declare function normalizeSettings(raw: unknown): {
    settings: FencelintSettings;
    problems: string[];
};
/** A stable key for settings, so lint configs built from equal settings are shared. */
export declare function settingsKey(settings: FencelintSettings): string;
