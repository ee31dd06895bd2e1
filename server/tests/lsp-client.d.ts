import { type ChildProcess } from 'node:child_process';
import { type Diagnostic, type ProtocolConnection, type PublishDiagnosticsParams, type TextEdit } from 'vscode-languageserver-protocol/node';
export declare const SERVER_BUNDLE: string;
export interface ClientOptions {
    transport: 'stdio' | 'node-ipc' | 'socket';
    /** The server to start; the bundle in server/dist/bundle by default. */
    serverPath?: string;
    /** Declare LSP 3.17 pull diagnostics; without it the server pushes. */
    pull: boolean;
    /** What `workspace/configuration` answers for section `fencelint`. */
    settings?: Record<string, unknown>;
    env?: Record<string, string>;
    initializationOptions?: Record<string, unknown>;
    cwd?: string;
}
/** A real LSP client driving the bundled server over stdio or node IPC. */
export declare class TestClient {
    readonly process: ChildProcess;
    private readonly options;
    readonly connection: ProtocolConnection;
    readonly logs: string[];
    readonly shownDocuments: string[];
    settings: Record<string, unknown>;
    refreshes: number;
    private readonly pushed;
    private readonly waiters;
    private readonly versions;
    private constructor();
    static start(options: ClientOptions): Promise<TestClient>;
    capabilities: Awaited<ReturnType<ProtocolConnection['sendRequest']>> | undefined;
    private notify;
    /** Waits until `check` returns a value, re-checking on every message from the server. */
    waitFor<T>(check: () => T | undefined, what: string, timeoutMs?: number): Promise<T>;
    /** The newest pushed report for `uri` whose version is at least `version`. */
    pushedFor(uri: string, version: number): PublishDiagnosticsParams | undefined;
    pushedReports(uri: string): PublishDiagnosticsParams[];
    /** Diagnostics of the document's current version: pulled, or waited for when pushed. */
    diagnostics(uri: string): Promise<Diagnostic[]>;
    open(uri: string, text: string, languageId?: string): Promise<void>;
    replace(uri: string, text: string): Promise<number>;
    changeSettings(settings: Record<string, unknown>): Promise<void>;
    stop(): Promise<void>;
}
/** Applies LSP text edits (non-overlapping, any order) to a text. */
export declare function applyTextEdits(text: string, edits: TextEdit[]): string;
export declare function fileUri(name: string): string;
