import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Linter } from 'eslint';
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalysisSnapshot } from './file-analysis.js';
import { toDiagnostic } from './diagnostics.js';
import { buildLintConfig, LINTED_EXTENSIONS } from './lint-config.js';
import { LintConfigs, type LintConfigOptions } from './lint-configs.js';
import { skipReason, type LintEngine, type LintOutcome } from './lint-engine.js';
import { OFF_THREAD_BYTES, type OffThreadLinter } from './off-thread-lint.js';
import type { LoadedPlugins } from './plugin-loader.js';
import type { ServerLog } from './server-log.js';
import type { FencelintSettings } from './settings.js';
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

/** The config of a file the workspace's ESLint config ignores: nothing runs on it. */
const NOT_LINTED: Linter.Config[] = [];

/** `fencelint/status`: lets a client show idle / linting / error and the last lint time. */
export interface LintStatus {
  state: 'idle' | 'linting' | 'error';
  uri: string;
  durationMs?: number;
  message?: string;
}

export interface LintServiceOptions extends LintConfigOptions {
  onStatus: (status: LintStatus) => void;
  /** Lints large documents on a worker thread; without it they lint on the main thread. */
  offThread?: OffThreadLinter;
  /** A document that is not linted on purpose (too large, binary): said once per document. */
  onNotice?: (notice: string) => void;
}

/**
 * Lints documents: settings per document, the config built from them, the lint itself, and
 * containment. A failed lint yields an empty result (no stale, no false findings) and one log
 * line per distinct failure.
 */
export class LintService {
  private readonly results = new Map<string, LintResult>();
  private readonly configs: LintConfigs;
  /** Per document, the off-thread lint under way, which later requests for that version join. */
  private readonly inFlight = new Map<string, { version: number; settings: FencelintSettings; config: Linter.Config[]; promise: Promise<LintResult | undefined> }>();

  constructor(
    private readonly plugins: LoadedPlugins,
    private readonly engine: LintEngine,
    private readonly settingsStore: SettingsStore,
    private readonly workspaceConfig: WorkspaceConfigLoader,
    private readonly log: ServerLog,
    private readonly options: LintServiceOptions,
    withCollector: Parameters<typeof buildLintConfig>[3],
  ) {
    this.configs = new LintConfigs(plugins, workspaceConfig, log, options, withCollector);
  }

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
    this.options.offThread?.clearConfigs();
  }

  settingsFor(uri: string): Promise<FencelintSettings> {
    return this.settingsStore.get(uri);
  }

  /** Whether this text is linted on the worker thread. */
  private offThreadFor(text: string): OffThreadLinter | undefined {
    const offThread = this.options.offThread;
    if (!offThread?.available || text.length <= OFF_THREAD_BYTES / 4) return undefined;
    return Buffer.byteLength(text, 'utf8') > OFF_THREAD_BYTES && !skipReason(text) ? offThread : undefined;
  }

  /** Whether a result is (or will be) linted off the main thread: fix-all is not offered for it. */
  isLargeResult(result: LintResult): boolean {
    return this.offThreadFor(result.text) !== undefined;
  }

  /**
   * For requests that must answer at once (hover, code actions): the result for the current
   * version if there is one or it can be had on this thread now. A large document still being
   * linted on the worker has none yet; its lint is started if it is not under way.
   */
  async resultNow(current: () => TextDocument | undefined): Promise<LintResult | undefined> {
    const document = current();
    if (!document) return undefined;
    const cached = this.results.get(document.uri);
    if (cached && cached.version === document.version) return cached;
    if (this.offThreadFor(document.getText())) {
      void this.lint(current);
      return undefined;
    }
    return this.lint(current);
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
    const chosen = settings.enable ? await this.configs.configFor(filename, settings) : [];
    const ignored = chosen === 'ignored';
    const config = ignored ? NOT_LINTED : chosen;
    const document = current();
    if (!document) return undefined;
    const cached = this.results.get(document.uri);
    if (cached && cached.version === document.version && cached.settings === settings && cached.config === config) return cached;
    const flight = this.inFlight.get(document.uri);
    if (flight && flight.version === document.version && flight.settings === settings && flight.config === config) return flight.promise;

    const text = document.getText();
    const result: LintResult = {
      uri: document.uri, version: document.version, text, filename, settings, config, messages: [], diagnostics: [], analysis: undefined,
    };
    const offThread = ignored || !settings.enable ? undefined : this.offThreadFor(text);
    if (!offThread) {
      if (ignored || !settings.enable) return this.finish(result, ignored, undefined, 0);
      this.options.onStatus({ state: 'linting', uri: document.uri });
      const started = performance.now();
      const outcome = this.engine.lint(text, filename, config);
      return this.finish(result, false, outcome, performance.now() - started);
    }

    const promise = (async () => {
      this.options.onStatus({ state: 'linting', uri: document.uri });
      const started = performance.now();
      const answer = await offThread.lint(filename, text, settings);
      if (answer.kind === 'overtaken') return undefined;
      const outcome = answer.kind === 'unavailable' ? this.engine.lint(text, filename, config) : answer.outcome;
      return this.finish(result, outcome.status === 'ignored', outcome.status === 'ignored' ? undefined : outcome, performance.now() - started);
    })();
    const entry = { version: document.version, settings, config, promise };
    this.inFlight.set(document.uri, entry);
    const settled = await promise.finally(() => {
      if (this.inFlight.get(document.uri) === entry) this.inFlight.delete(document.uri);
    });
    // Overtaken by a newer version queued for the worker: answer with that one.
    return settled ?? this.lint(current);
  }

  /** Turns a lint's outcome into the stored result: status, log lines, diagnostics. */
  private finish(result: LintResult, ignored: boolean, outcome: LintOutcome | undefined, elapsedMs: number): LintResult {
    if (ignored) {
      this.log.once(`ignored:${result.uri}`, `fencelint: ${result.uri} is not linted: the workspace's ESLint config ignores it.`, 'info');
    } else if (outcome) {
      const durationMs = Math.round(elapsedMs * 10) / 10;
      if (outcome.status === 'failed') {
        const reason = outcome.error.split('\n')[0];
        this.options.onStatus({ state: 'error', uri: result.uri, message: `linting failed: ${reason}` });
      } else {
        this.options.onStatus({ state: 'idle', uri: result.uri, durationMs });
      }
      switch (outcome.status) {
        case 'linted':
          result.messages = outcome.messages;
          result.analysis = outcome.analysis;
          if (outcome.analysisFailure) this.log.once(`analysis:${outcome.analysisFailure}`, `fencelint: the file analysis failed (${outcome.analysisFailure}); diagnostics carry no related locations.`);
          break;
        case 'skipped':
          this.log.once(`skip:${result.uri}:${outcome.reason}`, `fencelint: skipped ${result.uri} (${outcome.reason}).`, 'info');
          this.options.onNotice?.(`fencelint: ${path.basename(result.filename)} is not linted (${outcome.reason}).`);
          break;
        case 'unparsable':
          // A syntax error while typing: the TypeScript service reports it; fencelint reports nothing.
          break;
        case 'failed': {
          const headline = outcome.error.split('\n').filter((l) => !/^\s+at /.test(l)).join(' | ');
          this.log.once(`failed:${headline}`, `fencelint: linting ${result.uri} failed; no findings are shown for it until it lints again.\n${outcome.error}`);
          break;
        }
      }
    }
    result.diagnostics = result.messages.map((m, i) => toDiagnostic(result.uri, result.version, i, m, this.plugins.docsUrls, result.analysis));
    const stored = this.results.get(result.uri);
    if (!stored || stored.version <= result.version) this.results.set(result.uri, result);
    return result;
  }

  /** Text with all autofixes (and, per setting, suggestions) applied; undefined when nothing can be fixed. */
  fixedText(result: LintResult): string | undefined {
    // Fixing a large document takes several lints: too long for a code action's answer.
    if (!result.settings.enable || result.config === NOT_LINTED || this.isLargeResult(result)) return undefined;
    return this.engine.fixAll(result.text, result.filename, result.config, result.settings.fixAll.includeSuggestions);
  }
}
