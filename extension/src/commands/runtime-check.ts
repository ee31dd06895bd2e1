import * as vscode from 'vscode';
import type { RoleQuestion } from '../runtime-check/ask-roles';
import { confirmWithRuntimeCheck } from '../runtime-check/confirm-flow';
import { checkerMissingMessage, locateChecker } from '../runtime-check/locate-checker';
import { renderReportHtml, renderReportText } from '../runtime-check/render-report';
import { runChecker } from '../runtime-check/run-checker';

export const RUNTIME_CHECK_COMMAND = 'fencelint.runtimeCheck';
const RULE_ID = 'fencelint/require-fence-condition';
const TITLE = 'Confirm with runtime check';

export const RUNTIME_CHECK_SELECTOR: vscode.DocumentSelector = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'].map(
  (language) => ({ language, scheme: 'file' }),
);

function isUnfencedWrite(diagnostic: vscode.Diagnostic): boolean {
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  return diagnostic.source === 'fencelint' && code === RULE_ID;
}

/**
 * Offers the runtime check next to the rule's fixes on a write the rule reports, in a trusted
 * workspace. It is a plain command, not a quick fix: it changes nothing in the file, it only
 * runs the checker.
 */
export class RuntimeCheckActions implements vscode.CodeActionProvider {
  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    // Not offered where it would be refused: it runs code from the workspace.
    if (!vscode.workspace.isTrusted) return [];
    const diagnostic = context.diagnostics.find(isUnfencedWrite);
    if (!diagnostic) return [];
    const action = new vscode.CodeAction(TITLE);
    action.command = { command: RUNTIME_CHECK_COMMAND, title: TITLE, arguments: [document.uri, diagnostic.range.start.line] };
    action.diagnostics = [diagnostic];
    return [action];
  }
}

/**
 * Runs the workspace's own `fencelint-check` on the SQL write at `line` (0-based, default: the
 * cursor's) and shows the report with its SVG timeline. The checker and the code it loads come
 * from the workspace, so it only runs in a trusted one.
 */
export async function runtimeCheck(output: vscode.LogOutputChannel, uri?: vscode.Uri, line?: number): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('fencelint: the runtime check runs code from this workspace, so it needs a trusted workspace.');
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const document = uri ? await vscode.workspace.openTextDocument(uri) : editor?.document;
  if (!document) {
    void vscode.window.showInformationMessage('fencelint: open a file and put the cursor on a SQL write.');
    return;
  }
  const zeroBasedLine = line ?? (editor?.document === document ? editor.selection.active.line : 0);
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  if (document.uri.scheme !== 'file' || !folder) {
    void vscode.window.showInformationMessage('fencelint: the runtime check works on files inside a workspace folder.');
    return;
  }
  const binJs = locateChecker(folder.uri.fsPath);
  if (!binJs) {
    void vscode.window.showWarningMessage(checkerMissingMessage(folder.uri.fsPath));
    return;
  }
  // The checker reads the file from disk.
  if (document.isDirty && !(await document.save())) {
    void vscode.window.showWarningMessage('fencelint: save the file first; the runtime check reads it from disk.');
    return;
  }
  const location = `${vscode.workspace.asRelativePath(document.uri, false)}:${zeroBasedLine + 1}`;
  // Each run under a cancellable notification; cancelling stops the checker, which cleans up first.
  const run = (roles?: string[]) =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `fencelint: runtime check of ${location}`, cancellable: true },
      (_progress, token) => {
        const stop = new AbortController();
        token.onCancellationRequested(() => stop.abort());
        return runChecker(binJs, folder.uri.fsPath, document.uri.fsPath, zeroBasedLine + 1, { roles, signal: stop.signal });
      },
    );
  const outcome = await confirmWithRuntimeCheck(run, askRole);
  if (outcome.kind === 'cancelled') {
    void vscode.window.showInformationMessage(`fencelint: runtime check of ${location} cancelled; nothing was run with a guessed role.`);
    return;
  }
  const { result } = outcome;
  output.info(renderReportText(location, result.report));
  // One view per checked line: checking it again (after the fix) replaces the report.
  let panel = panels.get(location);
  if (panel) {
    panel.reveal(vscode.ViewColumn.Beside);
  } else {
    panel = vscode.window.createWebviewPanel('fencelint.runtimeCheck', `Fencelint runtime check: ${location}`, vscode.ViewColumn.Beside, {
      enableScripts: false,
    });
    panels.set(location, panel);
    panel.onDidDispose(() => panels.delete(location));
  }
  panel.webview.html = renderReportHtml(location, result.report, result.svg);
}

const panels = new Map<string, vscode.WebviewPanel>();

/** One quick pick per parameter the checker could not name; Escape dismisses the whole check. */
async function askRole(question: RoleQuestion): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(
    question.choices.map((choice) => ({ label: choice.role, description: choice.description })),
    { title: question.title, placeHolder: question.placeHolder, ignoreFocusOut: true, matchOnDescription: true },
  );
  return picked?.label;
}
