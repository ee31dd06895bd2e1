/**
 * What the client and the fencelint language server agree on beyond plain LSP.
 * The server lives in server/; this file only names the messages so the client
 * depends on nothing but the protocol (see extension/README.md, "Protocol").
 */
import { NotificationType } from 'vscode-languageclient/node';

export type LintState = 'idle' | 'linting' | 'error';

/** Sent by the server when a lint starts, ends, or fails. */
export interface StatusParams {
  state: LintState;
  /** The document the lint ran on. */
  uri: string;
  /** Wall time of the finished lint; present when state is 'idle' after a lint. */
  durationMs?: number;
  /** A one-line reason; present when state is 'error'. */
  message?: string;
}

export const StatusNotification = new NotificationType<StatusParams>('fencelint/status');

/** Options the server reads once, at initialize. */
export interface InitializationOptions {
  /** vscode.workspace.isTrusted: when false the server uses the bundled defaults only. */
  trusted: boolean;
}

export const CONFIG_SECTION = 'fencelint';
/** The server's command behind a diagnostic's "Show documentation" action (server/src/code-actions.ts). */
export const SHOW_DOCUMENTATION_COMMAND = 'fencelint.server.showDocumentation';

export const RULE_DOCS_INDEX = 'https://github.com/fencelint/fencelint/tree/main/rules/docs/rules';
