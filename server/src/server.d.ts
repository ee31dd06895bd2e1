import { type Connection } from 'vscode-languageserver/node';
export declare const SERVER_NAME = "fencelint-language-server";
/** Server -> client notification with a `LintStatus` (see lint-service.ts and the README). */
export declare const STATUS_NOTIFICATION = "fencelint/status";
export declare const SERVER_VERSION = "0.1.0";
/** What a client may send as `initializationOptions`. */
export interface InitializationOptions {
    /** The workspace is trusted: only then may `fencelint.useWorkspaceConfig` load the workspace's ESLint config. */
    trusted?: boolean;
    /** Settings for clients that neither answer `workspace/configuration` nor push them. */
    settings?: unknown;
}
/**
 * Wires the LSP connection: documents, settings, diagnostics (pull when the client supports
 * it, else push), code actions, hover and commands. The plugin loads once, before the first
 * lint; a plugin that fails to load leaves the server answering with empty reports.
 */
export declare function startServer(connection: Connection): void;
