import type { Connection } from 'vscode-languageserver/node';
import { type FencelintSettings } from './settings.js';
import type { ServerLog } from './server-log.js';
/**
 * Settings per document: fetched once through `workspace/configuration` with the document as
 * scope, cached until the client says the configuration changed or the document closes.
 *
 * Clients without `workspace/configuration` (some editors) get the settings they pushed with
 * `workspace/didChangeConfiguration` or sent as `initializationOptions.settings`.
 */
export declare class SettingsStore {
    private readonly connection;
    private readonly log;
    private readonly clientPullsConfiguration;
    private readonly perDocument;
    private pushed;
    constructor(connection: Connection, log: ServerLog, clientPullsConfiguration: boolean, initialSettings: unknown);
    get(uri: string): Promise<FencelintSettings>;
    /** `workspace/didChangeConfiguration`: forget every cached value. */
    invalidate(pushedSettings?: unknown): void;
    forget(uri: string): void;
    private fetch;
}
