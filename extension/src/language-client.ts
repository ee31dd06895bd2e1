import * as vscode from 'vscode';
import {
  DiagnosticPullMode,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { openDocs } from './commands/open-rule-docs';
import { CONFIG_SECTION, SHOW_DOCUMENTATION_COMMAND, type InitializationOptions, type StatusParams } from './protocol';

/** The files the server lints; .mjs/.cjs carry the `javascript` language id, so match by name. */
export const LINTED_FILES = '**/*.{ts,tsx,js,jsx,mjs,cjs}';

export const documentSelector = [{ scheme: 'file', pattern: LINTED_FILES }];

/**
 * Skips a diagnostic pull that the user's `fencelint.run` / `fencelint.enable` setting rules out.
 * Opening a file always pulls; typing pulls only with run=onType, saving only with run=onSave.
 */
function skipPull(document: vscode.TextDocument, mode: DiagnosticPullMode): boolean {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, document);
  if (!config.get<boolean>('enable', true)) return true;
  const run = config.get<'onType' | 'onSave'>('run', 'onType');
  if (mode === DiagnosticPullMode.onType) return run !== 'onType';
  if (mode === DiagnosticPullMode.onSave) return run !== 'onSave';
  return false;
}

/**
 * @param onPull reports each diagnostic pull as it starts and ends, in the shape of the
 *   server's `fencelint/status`, so the status bar works with a server that does not send it.
 */
export function createLanguageClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  onPull: (status: StatusParams) => void,
): LanguageClient {
  // The server bundle ships beside the client bundle; see scripts/build.mjs.
  const module = context.asAbsolutePath('dist/server.mjs');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const initializationOptions: InitializationOptions = { trusted: vscode.workspace.isTrusted };
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    initializationOptions,
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    synchronize: {
      // Settings changes reach the server, which then re-reads them per document.
      configurationSection: CONFIG_SECTION,
      // Only read when fencelint.useWorkspaceConfig is on, in a trusted workspace.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/eslint.config.{js,mjs,cjs,ts,mts,cts}'),
    },
    diagnosticPullOptions: { onChange: true, onSave: true, filter: skipPull },
    middleware: {
      // The server's "Show documentation" action: open the page bundled with this version
      // (offline too) rather than asking the server to open a web page.
      async executeCommand(command, args, next) {
        const url = args[0];
        if (command === SHOW_DOCUMENTATION_COMMAND && typeof url === 'string') return openDocs(context, url, vscode.Uri.parse(url));
        return next(command, args);
      },
      async provideDiagnostics(document, previousResultId, token, next) {
        const uri = (document instanceof vscode.Uri ? document : document.uri).toString();
        const started = performance.now();
        onPull({ state: 'linting', uri });
        try {
          const report = await next(document, previousResultId, token);
          onPull({ state: 'idle', uri, durationMs: performance.now() - started });
          return report;
        } catch (error) {
          // A cancelled pull was overtaken by a newer edit; the next pull reports.
          if (!token.isCancellationRequested) onPull({ state: 'error', uri, message: String(error) });
          throw error;
        }
      },
    },
  };
  return new LanguageClient('fencelint', 'fencelint', serverOptions, clientOptions);
}
