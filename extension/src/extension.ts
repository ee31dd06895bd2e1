import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { createLanguageClient } from './language-client';
import { StatusNotification } from './protocol';
import { FencelintStatusBar } from './status-bar';
import { WorkspaceLinter } from './commands/lint-workspace';
import { showTokenFlow } from './commands/show-token-flow';
import { openRuleDocumentation } from './commands/open-rule-docs';
import { RUNTIME_CHECK_SELECTOR, RuntimeCheckActions, runtimeCheck } from './commands/runtime-check';

let client: LanguageClient | undefined;
/** Listeners on the current client; a restart drops them with the client. */
let clientListeners: vscode.Disposable[] = [];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('fencelint', { log: true });
  const status = new FencelintStatusBar('fencelint.showOutput');
  const workspaceLinter = new WorkspaceLinter(() => client);
  context.subscriptions.push(output, status, workspaceLinter);

  const start = async (): Promise<void> => {
    client = createLanguageClient(context, output, (params) => status.fromPull(params));
    clientListeners = [
      client.onDidChangeState(({ newState }) => {
        if (newState === State.Running) status.serverStarted();
        if (newState === State.Stopped) status.serverStopped('the language server stopped');
      }),
      client.onNotification(StatusNotification, (params) => status.fromServer(params)),
    ];
    status.serverStarting();
    try {
      await client.start();
      output.info(`fencelint language server started (workspace trusted: ${vscode.workspace.isTrusted}).`);
    } catch (error) {
      status.serverFailed('the language server failed to start');
      output.error(`fencelint language server failed to start: ${String(error)}`);
    }
  };

  const restart = async (): Promise<void> => {
    const previous = client;
    client = undefined;
    for (const listener of clientListeners) listener.dispose();
    if (previous) {
      try {
        await previous.dispose(2000);
      } catch (error) {
        output.warn(`Stopping the language server: ${String(error)}`);
      }
    }
    await start();
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('fencelint.lintWorkspace', () => workspaceLinter.run()),
    vscode.commands.registerCommand('fencelint.showTokenFlow', () => showTokenFlow(client)),
    vscode.commands.registerCommand('fencelint.restartServer', restart),
    vscode.commands.registerCommand('fencelint.openRuleDocumentation', () => openRuleDocumentation(context)),
    vscode.commands.registerCommand('fencelint.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('fencelint.runtimeCheck', (uri?: vscode.Uri, line?: number) => runtimeCheck(output, uri, line)),
    vscode.languages.registerCodeActionsProvider(RUNTIME_CHECK_SELECTOR, new RuntimeCheckActions()),
    // The server reads `trusted` once, at initialize: granting trust needs a fresh server.
    vscode.workspace.onDidGrantWorkspaceTrust(restart),
  );

  await start();
}

export async function deactivate(): Promise<void> {
  for (const listener of clientListeners) listener.dispose();
  await client?.dispose(2000);
  client = undefined;
}
