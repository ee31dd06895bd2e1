import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Linter } from 'eslint';
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalysisSnapshot } from './file-analysis.js';
import { toDiagnostic } from './diagnostics.js';
import { buildLintConfig, knownRuleEntries, LINTED_EXTENSIONS } from './lint-config.js';
import type { LintEngine } from './lint-engine.js';
import type { ParserChoice } from './parser-choice.js';
import type { LoadedPlugins } from './plugin-loader.js';
import type { ServerLog } from './server-log.js';
import { settingsKey, type FencelintSettings } from './settings.js';
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

const LANGUAGE_EXTENSIONS: Record<string, string> = {
  typescript: '.ts',
  typescriptreact: '.tsx',
  javascript: '.js',
  javascriptreact: '.jsx',
};

/**
 * The file name ESLint sees: the document's path for `file:` URIs, else a name under the
 * filesystem root whose extension follows the language id (untitled documents).
 */
export function lintFilename(document: Pick<TextDocument, 'uri' | 'languageId'>): string | undefined {
  if (document.uri.startsWith('file:')) {
    const filename = fileURLToPath(document.uri);
    return (LINTED_EXTENSIONS as readonly string[]).includes(path.extname(filename).toLowerCase()) ? filename : undefined;
  }
  const ext = LANGUAGE_EXTENSIONS[document.languageId];
  return ext ? path.join(path.parse(process.cwd()).root, `untitled${ext}`) : undefined;
}

/** Tells workspace parsers apart in the config cache (a parser object itself does not stringify). */
const parserIds = new WeakMap<object, number>();
let nextParserId = 1;
function parserKey(choice: ParserChoice): string {
  let id = parserIds.get(choice.parser);
  if (id === undefined) parserIds.set(choice.parser, (id = nextParserId++));
  return String(id);
}

/** The config of a file the workspace's ESLint config ignores: nothing runs on it. */
const NOT_LINTED: Linter.Config[] = [];

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
  /** The parser of the bundled configuration (the fast parser unless it cannot load). */
  bundledParser?: ParserChoice;
  /** A setting that was ignored (a misspelt rule name): shown once to the user. */
  onProblem?: (problem: string) => void;
}

/**
 * Lints documents: settings per document, the config built from them, the lint itself, and
 * containment. A failed lint yields an empty result (no stale, no false findings) and one log
 * line per distinct failure.
 */
export class LintService {
  private readonly results = new Map<string, LintResult>();
  private readonly configs = new Map<string, Linter.Config[]>();

  constructor(
    private readonly plugins: LoadedPlugins,
    private readonly engine: LintEngine,
    private readonly settingsStore: SettingsStore,
    private readonly workspaceConfig: WorkspaceConfigLoader,
    private readonly log: ServerLog,
    private readonly options: LintServiceOptions,
    private readonly withCollector: Parameters<typeof buildLintConfig>[3],
  ) {}

  cached(uri: string): LintResult | undefined {
    return this.results.get(uri);
  }

  forget(uri: string): void {
    this.results.delete(uri);
  }

  /** Settings or configs changed: every result and every built config is out of date. */
  invalidate(): void {
    this.results.clear();
    this.configs.clear();
    this.workspaceConfig.clear();
  }

  settingsFor(uri: string): Promise<FencelintSettings> {
    return this.settingsStore.get(uri);
  }

  private folderOf(filename: string): string {
    const folders = this.options.workspaceFolders().filter((f) => filename.startsWith(f.endsWith(path.sep) ? f : f + path.sep));
    return folders.sort((a, b) => b.length - a.length)[0] ?? path.dirname(filename);
  }

  /** The config for the file, or `'ignored'` when the workspace's own ESLint config does not lint it. */
  private async configFor(filename: string, settings: FencelintSettings): Promise<Linter.Config[] | 'ignored'> {
    let workspace;
    let key = settingsKey(settings);
    if (settings.useWorkspaceConfig) {
      if (this.options.trusted) {
        const folder = this.folderOf(filename);
        const options = await this.workspaceConfig.optionsFor(filename, folder);
        if (options === 'ignored') return 'ignored';
        workspace = options;
        const parser = workspace?.parser;
        key += `\0${folder}\0${JSON.stringify(workspace ? { ...workspace, parser: parser && { key: parserKey(parser), options: parser.parserOptions } } : null)}`;
      } else {
        this.log.once('untrusted-workspace-config', 'fencelint.useWorkspaceConfig is ignored: the workspace is not trusted. Using the bundled defaults.', 'info');
      }
    }
    let config = this.configs.get(key);
    if (!config) {
      const own = knownRuleEntries(this.plugins, settings.rules, 'fencelint.rules');
      const theirs = workspace && knownRuleEntries(this.plugins, workspace.rules, 'the workspace ESLint config');
      for (const problem of [...own.problems, ...(theirs?.problems ?? [])]) this.options.onProblem?.(problem);
      settings = { ...settings, rules: own.entries };
      if (workspace && theirs) workspace = { ...workspace, rules: theirs.entries };
      config = buildLintConfig(this.plugins, settings, workspace, this.withCollector, this.options.bundledParser);
      this.configs.set(key, config);
    }
    return config;
  }

  /**
   * Lints the document as it is now and returns the result, or the cached one when this
   * version was linted already. `current` is read after every await, so the version linted is
   * always the newest the server knows; a lint never runs for a version that was overtaken.
   */
  async lint(current: () => TextDocument | undefined): Promise<LintResult | undefined> {
    const first = current();
    if (!first) return undefined;
    const settings = await this.settingsFor(first.uri);
    const filename = lintFilename(first);
    if (!filename) return undefined;
    const chosen = settings.enable ? await this.configFor(filename, settings) : [];
    const ignored = chosen === 'ignored';
    const config = ignored ? NOT_LINTED : chosen;
    const document = current();
    if (!document) return undefined;
    const cached = this.results.get(document.uri);
    if (cached && cached.version === document.version && cached.settings === settings && cached.config === config) return cached;

    const text = document.getText();
    const result: LintResult = {
      uri: document.uri, version: document.version, text, filename, settings, config, messages: [], diagnostics: [], analysis: undefined,
    };
    if (ignored) {
      this.log.once(`ignored:${document.uri}`, `fencelint: ${document.uri} is not linted: the workspace's ESLint config ignores it.`, 'info');
    } else if (settings.enable) {
      this.options.onStatus({ state: 'linting', uri: document.uri });
      const started = performance.now();
      const outcome = this.engine.lint(text, filename, config);
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      if (outcome.status === 'failed') {
        const reason = outcome.error.split('\n')[0];
        this.options.onStatus({ state: 'error', uri: document.uri, message: `linting failed: ${reason}` });
      } else {
        this.options.onStatus({ state: 'idle', uri: document.uri, durationMs });
      }
      switch (outcome.status) {
        case 'linted':
          result.messages = outcome.messages;
          result.analysis = outcome.analysis;
          if (outcome.analysisFailure) this.log.once(`analysis:${outcome.analysisFailure}`, `fencelint: the file analysis failed (${outcome.analysisFailure}); diagnostics carry no related locations.`);
          break;
        case 'skipped':
          this.log.once(`skip:${document.uri}:${outcome.reason}`, `fencelint: skipped ${document.uri} (${outcome.reason}).`, 'info');
          break;
        case 'unparsable':
          // A syntax error while typing: the TypeScript service reports it; fencelint reports nothing.
          break;
        case 'failed': {
          const headline = outcome.error.split('\n').filter((l) => !/^\s+at /.test(l)).join(' | ');
          this.log.once(`failed:${headline}`, `fencelint: linting ${document.uri} failed; no findings are shown for it until it lints again.\n${outcome.error}`);
          break;
        }
      }
    }
    result.diagnostics = result.messages.map((m, i) => toDiagnostic(result.uri, result.version, i, m, this.plugins.docsUrls, result.analysis));
    this.results.set(document.uri, result);
    return result;
  }

  /** Text with all autofixes (and, per setting, suggestions) applied; undefined when nothing can be fixed. */
  fixedText(result: LintResult): string | undefined {
    if (!result.settings.enable || result.config === NOT_LINTED) return undefined;
    return this.engine.fixAll(result.text, result.filename, result.config, result.settings.fixAll.includeSuggestions);
  }
}
