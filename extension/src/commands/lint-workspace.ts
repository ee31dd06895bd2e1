import * as vscode from 'vscode';
import { DocumentDiagnosticReportKind, DocumentDiagnosticRequest, type LanguageClient } from 'vscode-languageclient/node';
import { LINTED_FILES } from '../language-client';

/** Enough for a service repository; a larger tree belongs to `eslint` in CI. */
const MAX_FILES = 2000;

/**
 * Lints every matching file in the workspace by asking the server for each file's
 * diagnostics (LSP pull). Results for files that are not shown in an editor go into a
 * collection of their own; once a file is shown, the live diagnostics take over.
 */
export class WorkspaceLinter implements vscode.Disposable {
  private readonly results = vscode.languages.createDiagnosticCollection('fencelint-workspace');
  private readonly disposables: vscode.Disposable[] = [this.results];

  constructor(private readonly getClient: () => LanguageClient | undefined) {
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) this.results.delete(editor.document.uri);
      }),
    );
  }

  async run(): Promise<void> {
    const client = this.getClient();
    if (!client?.isRunning()) {
      void vscode.window.showWarningMessage('fencelint: the language server is not running. Run "Fencelint: Restart server".');
      return;
    }
    const files = await vscode.workspace.findFiles(LINTED_FILES, '**/{node_modules,dist,build,out,.git}/**', MAX_FILES);
    const visible = new Set(vscode.window.visibleTextEditors.map((editor) => editor.document.uri.toString()));
    let findings = 0;
    let failed = 0;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'fencelint: linting the workspace', cancellable: true },
      async (progress, token) => {
        this.results.clear();
        for (const [index, uri] of files.entries()) {
          if (token.isCancellationRequested) break;
          progress.report({ message: vscode.workspace.asRelativePath(uri), increment: 100 / files.length });
          try {
            // Opening the document (without showing it) syncs it to the server.
            await vscode.workspace.openTextDocument(uri);
            const report = await client.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: uri.toString() } }, token);
            if (report.kind !== DocumentDiagnosticReportKind.Full) continue;
            findings += report.items.length;
            if (!visible.has(uri.toString())) {
              this.results.set(uri, await client.protocol2CodeConverter.asDiagnostics(report.items));
            }
          } catch (error) {
            failed += 1;
            client.outputChannel.appendLine(`Lint workspace: ${uri.fsPath} (${index + 1}/${files.length}) failed: ${String(error)}`);
          }
        }
      },
    );
    const summary = `fencelint: ${files.length} file(s) linted, ${findings} finding(s)` + (failed ? `, ${failed} failed (see output)` : '');
    if (findings > 0) {
      const choice = await vscode.window.showInformationMessage(summary, 'Show Problems');
      if (choice) await vscode.commands.executeCommand('workbench.actions.view.problems');
    } else {
      void vscode.window.showInformationMessage(summary);
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
