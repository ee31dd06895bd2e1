import type { Linter } from 'eslint';
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalysisSnapshot } from './file-analysis.js';
import { buildLintConfig } from './lint-config.js';
import type { LintEngine } from './lint-engine.js';
import type { LoadedPlugins } from './plugin-loader.js';
import type { ServerLog } from './server-log.js';
import { type FencelintSettings } from './settings.js';
import type { SettingsStore } from './settings-store.js';
import type { WorkspaceConfigLoader } from './workspace-config.js';
/** One lint of one document version, kept for code actions, hover and unchanged pulls. */
export interface LintResult {
    uri: string;
    version: number;
    text: string;
    filename: string;
    settings: FencelintSettings;
    config: Linter.Config[];
    messages: Linter.LintMessage[];
    diagnostics: Diagnostic[];
    analysis: AnalysisSnapshot | undefined;
}
/**
 * The file name ESLint sees: the document's path for `file:` URIs, else a name under the
 * filesystem root whose extension follows the language id (untitled documents).
 */
export declare function lintFilename(document: Pick<TextDocument, 'uri' | 'languageId'>): string | undefined;
/** `fencelint/status`: lets a client show idle / linting / error and the last lint time. */
export interface LintStatus {
    state: 'idle' | 'linting' | 'error';
    uri: string;
    durationMs?: number;
    message?: string;
}
export interface LintServiceOptions {
    trusted: boolean;
    workspaceFolders: () => string[];
    onStatus: (status: LintStatus) => void;
}
/**
 * Lints documents: settings per document, the config built from them, the lint itself, and
 * containment. A failed lint yields an empty result (no stale, no false findings) and one log
 * line per distinct failure.
 */
export declare class LintService {
    private readonly plugins;
    private readonly engine;
    private readonly settingsStore;
    private readonly workspaceConfig;
    private readonly log;
    private readonly options;
    private readonly withCollector;
    private readonly results;
    private readonly configs;
    constructor(plugins: LoadedPlugins, engine: LintEngine, settingsStore: SettingsStore, workspaceConfig: WorkspaceConfigLoader, log: ServerLog, options: LintServiceOptions, withCollector: Parameters<typeof buildLintConfig>[3]);
    cached(uri: string): LintResult | undefined;
    forget(uri: string): void;
    /** Settings or configs changed: every result and every built config is out of date. */
    invalidate(): void;
    settingsFor(uri: string): Promise<FencelintSettings>;
    private folderOf;
    private configFor;
    /**
     * Lints the document as it is now and returns the result, or the cached one when this
     * version was linted already. `current` is read after every await, so the version linted is
     * always the newest the server knows; a lint never runs for a version that was overtaken.
     */
    lint(current: () => TextDocument | undefined): Promise<LintResult | undefined>;
    /** Text with all autofixes (and, per setting, suggestions) applied; undefined when nothing can be fixed. */
    fixedText(result: LintResult): string | undefined;
}
