import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticReportKind,
  LSPErrorCodes,
  MessageType,
  ShowMessageNotification,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type CodeAction,
  type Connection,
  type Diagnostic,
  type Position,
  type Range,
  type DocumentDiagnosticReport,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { fixAllAction, FIX_ALL_KIND, quickFixes, SHOW_DOCUMENTATION_COMMAND } from './code-actions.js';
import { AnalysisCollector } from './file-analysis.js';
import { acquireHover } from './hover.js';
import { LintEngine } from './lint-engine.js';
import { LintScheduler } from './lint-scheduler.js';
import { LintService, lintFilename, type LintResult } from './lint-service.js';
import { OffThreadLinter } from './off-thread-lint.js';
import { loadBundledParser, type ParserChoice } from './parser-choice.js';
import { loadPlugins, type LoadedPlugins } from './plugin-loader.js';
import { ProjectSync, WATCHED_GLOBS } from './project-sync.js';
import { ProjectChanges } from './project-changes.js';

/** `FENCELINT_LS_SLICES=off`: lint every edit whole (the benchmark compares the two). */
const SLICES_ENV = 'FENCELINT_LS_SLICES';
import { ServerLog } from './server-log.js';
import { SettingsStore } from './settings-store.js';
import { WorkspaceConfigLoader } from './workspace-config.js';

export const SERVER_NAME = 'fencelint-language-server';
/** Server -> client notification with a `LintStatus` (see lint-service.ts and the README). */
export const STATUS_NOTIFICATION = 'fencelint/status';
export const SERVER_VERSION = '0.1.0';

function diagnosticsIn(diagnostics: Diagnostic[], range: Range): Diagnostic[] {
  const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return diagnostics.filter((d) => before(d.range.start, range.end) && before(range.start, d.range.end));
}

/** What a client may send as `initializationOptions`. */
export interface InitializationOptions {
  /** The workspace is trusted: only then may `fencelint.useWorkspaceConfig` load the workspace's ESLint config. */
  trusted?: boolean;
  /** Settings for clients that neither answer `workspace/configuration` nor push them. */
  settings?: unknown;
}

function settingsFromPush(settings: unknown): unknown {
  const record = settings as { fencelint?: unknown } | null | undefined;
  return record && typeof record === 'object' && 'fencelint' in record ? record.fencelint : undefined;
}

/**
 * Wires the LSP connection: documents, settings, diagnostics (pull when the client supports
 * it, else push), code actions, hover and commands. The plugin loads once, before the first
 * lint; a plugin that fails to load leaves the server answering with empty reports.
 */
export interface ServerOptions {
  /** The module a worker thread starts from to lint large documents (the server's entry file). */
  workerEntry?: string;
}

export function startServer(connection: Connection, serverOptions: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  const log = new ServerLog(connection);
  let service: LintService | undefined;
  let plugins: LoadedPlugins | undefined;
  let bundledParser: ParserChoice | undefined;
  let scheduler: LintScheduler | undefined;
  let pullDiagnostics = false;
  let canRefreshPull = false;
  let canWatchFiles = false;
  let sync: ProjectSync | undefined;
  let workspaceFolders: string[] = [];
  let offThread: OffThreadLinter | undefined;

  /** A setting that was ignored: one log line and one warning in the editor, per distinct text. */
  const warnOnce = (message: string) => {
    const text = message.startsWith('fencelint: ') ? message : `fencelint: ${message}`;
    if (log.once(`ignored:${text}`, text)) void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: text });
  };

  /** A document left unlinted on purpose: one information message per distinct text. */
  const noticeOnce = (message: string) => {
    if (log.once(`notice:${message}`, message, 'info')) void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message });
  };

  const ready = (async () => {
    try {
      plugins = await loadPlugins();
      // A wrong `fencelint.models` (or workspace `settings.fencelint`) is said once, in the
      // editor, instead of on the server's stderr.
      plugins.onSettingsProblems?.((message) => warnOnce(message));
      bundledParser = await loadBundledParser(log);
    } catch (error) {
      log.error(`fencelint: could not load the lint plugins; no file will be linted.\n${error instanceof Error ? error.stack : String(error)}`);
    }
  })();

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const capabilities = params.capabilities;
    const options = (params.initializationOptions ?? {}) as InitializationOptions;
    pullDiagnostics = !!capabilities.textDocument?.diagnostic;
    canRefreshPull = !!capabilities.workspace?.diagnostics?.refreshSupport;
    canWatchFiles = !!capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    const clientPullsConfiguration = !!capabilities.workspace?.configuration;
    workspaceFolders = (params.workspaceFolders ?? [])
      .map((f) => f.uri)
      .concat(params.workspaceFolders ? [] : params.rootUri ? [params.rootUri] : [])
      .filter((uri) => uri.startsWith('file:'))
      .map((uri) => fileURLToPath(uri));

    const projectChanges = new ProjectChanges();
    const settingsStore = new SettingsStore(connection, log, clientPullsConfiguration, options.settings);
    const initService = async () => {
      await ready;
      if (!plugins) return undefined;
      if (serverOptions.workerEntry) {
        offThread = new OffThreadLinter(serverOptions.workerEntry, { trusted: options.trusted === true, workspaceFolders }, log, warnOnce);
      }
      const collector = plugins.getFileAnalysis ? new AnalysisCollector(plugins.getFileAnalysis, plugins.findCheckThenWrites) : undefined;
      return new LintService(plugins, new LintEngine(collector, projectChanges, process.env[SLICES_ENV] !== 'off'), settingsStore, new WorkspaceConfigLoader(log), log, {
        trusted: options.trusted === true,
        workspaceFolders: () => workspaceFolders,
        onStatus: (status) => void connection.sendNotification(STATUS_NOTIFICATION, status),
        bundledParser,
        onProblem: warnOnce,
        offThread,
        onNotice: noticeOnce,
      }, collector);
    };
    const serviceReady = initService().then((s) => {
      service = s;
      // Findings that rest on other modules' summaries follow those modules' edits and saves.
      if (s && plugins?.projectGraph) {
        sync = new ProjectSync(projectChanges.watch(offThread ? offThread.shareGraph(plugins.projectGraph) : plugins.projectGraph), {
          documents: () => documents.all(),
          filenameOf: (document) => lintFilename(document),
          forget: (uri) => s.forget(uri),
          refresh: (uris) => refreshDocuments(uris),
          lintsOnType: async (uri) => (await s.settingsFor(uri)).run === 'onType',
        });
        for (const document of documents.all()) sync.opened(document);
      }
      return s;
    });
    scheduler = new LintScheduler(documents, async (uri) => {
      await serviceReady;
      if (!service) return { uri, version: documents.get(uri)?.version ?? 0, diagnostics: [] };
      const result = await service.lint(() => documents.get(uri));
      return result && { uri, version: result.version, diagnostics: result.diagnostics };
    }, (report) => void connection.sendDiagnostics(report));
    serviceUntilReady = serviceReady;
    settingsStoreRef = settingsStore;

    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        // A file's findings can rest on the summaries of the modules it imports.
        diagnosticProvider: pullDiagnostics ? { identifier: 'fencelint', interFileDependencies: true, workspaceDiagnostics: false } : undefined,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND], resolveProvider: false },
        executeCommandProvider: { commands: [SHOW_DOCUMENTATION_COMMAND] },
        hoverProvider: true,
      },
      serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    };
  });

  let serviceUntilReady: Promise<LintService | undefined> = Promise.resolve(undefined);
  let settingsStoreRef: SettingsStore | undefined;

  connection.onInitialized(() => {
    void connection.client.register(DidChangeConfigurationNotification.type, { section: 'fencelint' }).catch(() => {
      // Clients without dynamic registration still send didChangeConfiguration unasked.
    });
    if (canWatchFiles) {
      // Modules and the files that steer import resolution, changed outside the editor (git checkout, codegen).
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: WATCHED_GLOBS.map((globPattern) => ({ globPattern })) })
        .catch(() => {
          // Without watchers, only edits and saves in the editor refresh dependents.
        });
    }
    log.info(`${SERVER_NAME} ${SERVER_VERSION}: diagnostics by ${pullDiagnostics ? 'pull' : 'push'}.`);
  });

  const relintAll = () => {
    if (pullDiagnostics) {
      if (canRefreshPull) void connection.languages.diagnostics.refresh();
      return;
    }
    for (const document of documents.all()) scheduler?.schedule(document.uri);
  };

  /** Shows fresh findings for these documents: a refresh request to pull clients (it covers all), a new push otherwise. */
  function refreshDocuments(uris: string[]): void {
    if (pullDiagnostics) {
      if (canRefreshPull) void connection.languages.diagnostics.refresh();
      return;
    }
    for (const uri of uris) scheduler?.schedule(uri);
  }

  connection.onDidChangeConfiguration((change) => {
    settingsStoreRef?.invalidate(settingsFromPush(change.settings));
    service?.invalidate();
    relintAll();
  });

  connection.onDidChangeWatchedFiles((params) => {
    // Modules and tsconfig/package.json files: the project sync refreshes what depends on them.
    const { otherChanged } = sync ? sync.filesChanged(params.changes) : { otherChanged: true };
    if (!otherChanged) return;
    // eslint.config.* changed on disk: the workspace's fencelint options may differ now.
    service?.invalidate();
    relintAll();
  });

  documents.onDidOpen((event) => {
    sync?.opened(event.document);
    if (!pullDiagnostics) scheduler?.schedule(event.document.uri);
  });

  documents.onDidChangeContent(async (event) => {
    sync?.changed(event.document);
    if (pullDiagnostics) return;
    scheduler?.changed(event.document.uri);
    const s = await serviceUntilReady;
    const settings = await s?.settingsFor(event.document.uri);
    if (settings?.run === 'onType') scheduler?.schedule(event.document.uri);
  });

  /** Per document, the version last saved: with `run: onSave`, the version a report must reach. */
  const savedVersions = new Map<string, number>();

  documents.onDidSave(async (event) => {
    const uri = event.document.uri;
    savedVersions.set(uri, event.document.version);
    sync?.saved(event.document);
    const s = await serviceUntilReady;
    const settings = await s?.settingsFor(uri);
    if (settings?.run !== 'onSave') return;
    if (pullDiagnostics) {
      // The client pulls after a save; clients that pull only on change learn of it here.
      if (canRefreshPull) void connection.languages.diagnostics.refresh();
    } else {
      scheduler?.schedule(uri);
    }
  });

  documents.onDidClose((event) => {
    sync?.closed(event.document);
    service?.forget(event.document.uri);
    savedVersions.delete(event.document.uri);
    settingsStoreRef?.forget(event.document.uri);
    scheduler?.forget(event.document.uri);
    if (!pullDiagnostics) void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  });

  connection.languages.diagnostics.on(async (params, token): Promise<DocumentDiagnosticReport> => {
    const uri = params.textDocument.uri;
    await scheduler?.settled(uri);
    // A newer edit made the client cancel this pull: it will pull again for the newer version.
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'overtaken by a newer edit');
    const s = await serviceUntilReady;
    if (!s || !documents.get(uri)) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const settings = await s.settingsFor(uri);
    const previous = s.cached(uri);
    // onSave: between saves, keep answering with the lint of the last save (or of the open).
    const keep = settings.run === 'onSave' && previous && previous.version >= (savedVersions.get(uri) ?? 0);
    const result = keep ? previous : await s.lint(() => documents.get(uri));
    if (!result) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const resultId = `${result.version}:${result.messages.length}:${result.diagnostics.map((d) => d.range.start.line).join(',')}`;
    if (params.previousResultId === resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
    return { kind: DocumentDiagnosticReportKind.Full, resultId, items: result.diagnostics };
  });

  /** For requests that answer at once: no waiting on a large document's lint (see LintService.resultNow). */
  const resultNow = async (uri: string): Promise<LintResult | undefined> => {
    const s = await serviceUntilReady;
    return s?.resultNow(() => documents.get(uri));
  };

  connection.onCodeAction(async (params) => {
    const result = await resultNow(params.textDocument.uri);
    if (!result || !service || !plugins) return [];
    const only = params.context.only;
    const actions: CodeAction[] = [];
    const wantsFixAll = only?.some((kind) => FIX_ALL_KIND.startsWith(kind) && kind !== '') ?? false;
    if (!only || only.includes(CodeActionKind.QuickFix)) {
      // Clients that send no diagnostics in the context get the fixes for the requested range.
      const diagnostics = params.context.diagnostics.length > 0 ? params.context.diagnostics : diagnosticsIn(result.diagnostics, params.range);
      actions.push(...quickFixes(result, diagnostics, plugins.docsUrls));
    }
    if (wantsFixAll) {
      const action = fixAllAction(result, service.fixedText(result));
      if (action) actions.push(action);
    }
    return actions;
  });

  connection.onExecuteCommand(async (params) => {
    if (params.command !== SHOW_DOCUMENTATION_COMMAND) return null;
    const url = params.arguments?.[0];
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return null;
    const shown = await connection.window.showDocument({ uri: url, external: true });
    return shown.success;
  });

  connection.onHover(async (params) => {
    const result = await resultNow(params.textDocument.uri);
    return acquireHover(result?.analysis, params.position);
  });

  connection.onExit(() => offThread?.dispose());

  documents.listen(connection);
  connection.listen();
}
