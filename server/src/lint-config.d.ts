import type { Linter } from 'eslint';
import type { FencelintSettings } from './settings.js';
import type { LoadedPlugins } from './plugin-loader.js';
import { AnalysisCollector } from './file-analysis.js';
/** Extensions the server lints; `@typescript-eslint/parser` parses all of them. */
export declare const LINTED_EXTENSIONS: readonly [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
/** fencelint's part of a workspace's own ESLint config (rule entries and `settings.fencelint`). */
export interface WorkspaceFencelintOptions {
    rules: Record<string, Linter.RuleEntry>;
    settings: Record<string, unknown> | undefined;
}
/**
 * The flat config for one document: the parser, the plugin's `recommended` rules, then
 * fencelint's options from the workspace's ESLint config (when opted in), then the editor
 * settings, which win. Only fencelint's rules and settings are ever taken from the workspace.
 */
export declare function buildLintConfig(plugins: LoadedPlugins, settings: FencelintSettings, workspace: WorkspaceFencelintOptions | undefined, collector: AnalysisCollector | undefined): Linter.Config[];
