import type { ESLint, Linter, Rule } from 'eslint';
/** The part of `eslint-plugin-fencelint/core` the server uses; absent until the core exports it. */
export type GetFileAnalysis = (context: Rule.RuleContext) => unknown;
/** `findCheckThenWrites(analysis, sourceCode)` of the core: writes guarded by a separate check. */
export type FindCheckThenWrites = (analysis: unknown, sourceCode: unknown) => unknown;
export interface ExtraPlugin {
    namespace: string;
    plugin: ESLint.Plugin;
    source: string;
}
export interface LoadedPlugins {
    fencelint: ESLint.Plugin;
    /** Rule entries of the plugin's `recommended` config, keyed by full rule id. */
    recommendedRules: Record<string, Linter.RuleEntry>;
    /** Full rule id (`fencelint/<name>`) -> docs URL from the rule's `meta.docs.url`. */
    docsUrls: Map<string, string>;
    getFileAnalysis: GetFileAnalysis | undefined;
    findCheckThenWrites: FindCheckThenWrites | undefined;
    extra: ExtraPlugin[];
}
/**
 * Environment variable naming extra ESLint plugins (absolute paths to ES modules that
 * default-export a plugin with `meta.namespace`), separated by the platform's path delimiter.
 * Every rule of such a plugin is turned on as an error. It exists so the server's containment
 * of a throwing rule can be tested against a real throwing rule; it is an environment variable
 * and not a setting so that no workspace can make the server load code.
 */
export declare const EXTRA_PLUGINS_ENV = "FENCELINT_LS_EXTRA_PLUGINS";
/**
 * Loads the plugin with a dynamic import: its module awaits the SQL parser's WebAssembly at the
 * top level, so it cannot be required synchronously.
 */
export declare function loadPlugins(env?: NodeJS.ProcessEnv): Promise<LoadedPlugins>;
