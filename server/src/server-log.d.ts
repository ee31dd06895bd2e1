import type { Connection } from 'vscode-languageserver/node';
/**
 * Log lines go to the client's output channel (`window/logMessage`). A failure that repeats on
 * every keystroke (a throwing rule, a broken config) is logged once per distinct key, so the
 * channel stays readable.
 */
export declare class ServerLog {
    private readonly connection;
    private readonly seen;
    constructor(connection: Connection);
    info(message: string): void;
    error(message: string): void;
    /** Logs `message` the first time `key` is seen; returns whether it logged. */
    once(key: string, message: string, level?: 'info' | 'error'): boolean;
}
