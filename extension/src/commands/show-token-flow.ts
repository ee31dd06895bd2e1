import * as vscode from 'vscode';
import { HoverRequest, type LanguageClient } from 'vscode-languageclient/node';

/**
 * Shows where the token of the lock acquire under the cursor goes. The server answers
 * this as a hover on the acquire call (each write the token reaches, fenced or not);
 * the command asks fencelint's server alone, so an empty answer is reported as such
 * instead of showing other extensions' hovers.
 */
export async function showTokenFlow(client: LanguageClient | undefined): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('fencelint: open a file and put the cursor on a lock acquire call.');
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showWarningMessage('fencelint: the language server is not running. Run "Fencelint: Restart server".');
    return;
  }
  const hover = await client.sendRequest(HoverRequest.type, {
    textDocument: { uri: editor.document.uri.toString() },
    position: client.code2ProtocolConverter.asPosition(editor.selection.active),
  });
  if (!hover) {
    void vscode.window.showInformationMessage(
      'fencelint: no lock acquire under the cursor. Put it on a call such as redlock.acquire(...) or client.lock(name).acquire().',
    );
    return;
  }
  await vscode.commands.executeCommand('editor.action.showHover');
}
