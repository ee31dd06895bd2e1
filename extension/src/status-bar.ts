import * as vscode from 'vscode';
import type { LintState, StatusParams } from './protocol';

const ICONS: Record<LintState | 'starting' | 'stopped', string> = {
  starting: '$(loading~spin)',
  idle: '$(check)',
  linting: '$(sync~spin)',
  error: '$(error)',
  stopped: '$(circle-slash)',
};

/**
 * One status bar item: what the server is doing now and how long the last lint took.
 * A click opens the output channel, where the server logs what went wrong.
 */
export class FencelintStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private lastLint: { file: string; durationMs: number; at: Date } | undefined;
  /** Once the server sends `fencelint/status` it is the only source: it also sees push-mode lints and contained errors. */
  private serverReportsStatus = false;

  constructor(showOutputCommand: string) {
    this.item = vscode.window.createStatusBarItem('fencelint.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'fencelint';
    this.item.command = showOutputCommand;
    this.serverStarting();
    this.item.show();
  }

  /** Applies a `fencelint/status` notification from the server. */
  fromServer(params: StatusParams): void {
    this.serverReportsStatus = true;
    this.update(params);
  }

  /** Applies the client's own view of a diagnostic pull, unless the server reports status itself. */
  fromPull(params: StatusParams): void {
    if (!this.serverReportsStatus) this.update(params);
  }

  private update(params: StatusParams): void {
    const file = vscode.Uri.parse(params.uri).path.split('/').pop() ?? params.uri;
    if (params.state === 'idle' && params.durationMs !== undefined) {
      this.lastLint = { file, durationMs: params.durationMs, at: new Date() };
    }
    const detail =
      params.state === 'linting' ? `linting ${file}` :
      params.state === 'error' ? `error in ${file}: ${params.message ?? 'see the output channel'}` :
      'idle';
    this.show(params.state, detail);
  }

  serverStarting(): void {
    this.show('starting', 'starting the language server');
  }

  serverStarted(): void {
    this.show('idle', 'idle');
  }

  serverStopped(reason: string): void {
    this.show('stopped', reason);
  }

  serverFailed(reason: string): void {
    this.show('error', reason);
  }

  private show(state: keyof typeof ICONS, detail: string): void {
    this.item.text = `${ICONS[state]} fencelint`;
    this.item.backgroundColor = state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    const last = this.lastLint
      ? `last lint: ${this.lastLint.file} in ${Math.round(this.lastLint.durationMs)} ms at ${this.lastLint.at.toLocaleTimeString()}`
      : 'no lint yet';
    this.item.tooltip = `fencelint: ${detail}\n${last}\nClick to show the fencelint output.`;
    this.item.accessibilityInformation = { label: `fencelint ${state}, ${last}` };
  }

  dispose(): void {
    this.item.dispose();
  }
}
