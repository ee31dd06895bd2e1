import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ConfigurationRequest,
  createProtocolConnection,
  DiagnosticRefreshRequest,
  InitializeRequest,
  InitializedNotification,
  IPCMessageReader,
  IPCMessageWriter,
  LogMessageNotification,
  ShowMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowDocumentRequest,
  SocketMessageReader,
  SocketMessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextEdit,
} from 'vscode-languageserver-protocol/node';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_BUNDLE = path.resolve(here, '..', 'dist', 'bundle', 'server.mjs');

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
export class TestClient {
  readonly connection: ProtocolConnection;
  readonly logs: string[] = [];
  readonly shownDocuments: string[] = [];
  /** `window/showMessage` notifications: what the editor would pop up. */
  readonly shownMessages: Array<{ type: number; message: string }> = [];
  settings: Record<string, unknown>;
  refreshes = 0;
  /** `client/registerCapability` registrations the server asked for. */
  readonly registrations: Array<{ method: string; registerOptions?: unknown }> = [];
  private readonly pushed = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiters: (() => void)[] = [];
  private readonly versions = new Map<string, number>();

  private constructor(readonly process: ChildProcess, connection: ProtocolConnection, private readonly options: ClientOptions) {
    this.connection = connection;
    this.settings = options.settings ?? {};
    connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => (item.section === 'fencelint' ? this.settings : null)));
    connection.onRequest(RegistrationRequest.type, (params) => {
      this.registrations.push(...params.registrations);
      this.notify();
    });
    connection.onRequest(DiagnosticRefreshRequest.type, () => {
      this.refreshes++;
      this.notify();
    });
    connection.onRequest(ShowDocumentRequest.type, (params) => {
      this.shownDocuments.push(params.uri);
      return { success: true };
    });
    connection.onNotification(ShowMessageNotification.type, (params) => {
      this.shownMessages.push(params);
      this.notify();
    });
    connection.onNotification(LogMessageNotification.type, (params) => {
      this.logs.push(params.message);
      this.notify();
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      const list = this.pushed.get(params.uri) ?? [];
      list.push(params);
      this.pushed.set(params.uri, list);
      this.notify();
    });
    connection.listen();
  }

  static async start(options: ClientOptions): Promise<TestClient> {
    const server = options.serverPath ?? SERVER_BUNDLE;
    if (!existsSync(server)) throw new Error(`${server} is missing: run \`npm run build -w rules && npm run build -w server\` first`);
    const env = { ...process.env, ...options.env };
    let child: ChildProcess;
    let connection: ProtocolConnection;
    if (options.transport === 'stdio') {
      child = spawn(process.execPath, [server, '--stdio'], { env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    } else if (options.transport === 'node-ipc') {
      child = fork(server, ['--node-ipc'], { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      connection = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    } else {
      // With --socket=PORT the server connects to a port the client listens on.
      const listener = createServer();
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as { port: number }).port;
      const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
      child = spawn(process.execPath, [server, `--socket=${port}`], { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      const socket = await accepted;
      listener.close();
      connection = createProtocolConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    }
    child.stderr?.on('data', () => {});
    const client = new TestClient(child, connection, options);
    const capabilities: ClientCapabilities = {
      workspace: {
        configuration: true,
        didChangeConfiguration: { dynamicRegistration: true },
        didChangeWatchedFiles: { dynamicRegistration: true },
        diagnostics: { refreshSupport: options.pull },
      },
      textDocument: {
        synchronization: { didSave: true, dynamicRegistration: false },
        publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true, dataSupport: true, versionSupport: true },
        codeAction: { dataSupport: true, isPreferredSupport: true, codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        ...(options.pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
      },
      window: { showDocument: { support: true } },
    };
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: null,
      capabilities,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification(InitializedNotification.type, {});
    client.capabilities = init.capabilities;
    return client;
  }

  capabilities: Awaited<ReturnType<ProtocolConnection['sendRequest']>> | undefined;

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits until `check` returns a value, re-checking on every message from the server. */
  async waitFor<T>(check: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; server log:\n${this.logs.join('\n')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The newest pushed report for `uri` whose version is at least `version`. */
  pushedFor(uri: string, version: number): PublishDiagnosticsParams | undefined {
    const list = this.pushed.get(uri) ?? [];
    const last = list[list.length - 1];
    return last && (last.version ?? 0) >= version ? last : undefined;
  }

  pushedReports(uri: string): PublishDiagnosticsParams[] {
    return [...(this.pushed.get(uri) ?? [])];
  }

  /** Diagnostics of the document's current version: pulled, or waited for when pushed. */
  async diagnostics(uri: string): Promise<Diagnostic[]> {
    const version = this.versions.get(uri) ?? 0;
    if (this.options.pull) {
      const report = await this.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } });
      return (report as { items: Diagnostic[] }).items;
    }
    return (await this.waitFor(() => this.pushedFor(uri, version), `diagnostics for ${uri} v${version}`)).diagnostics;
  }

  async open(uri: string, text: string, languageId = 'typescript'): Promise<void> {
    this.versions.set(uri, 1);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  async replace(uri: string, text: string): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return version;
  }

  /** Sends incremental changes (LSP ranges, applied in order) as the next version. */
  async edit(uri: string, changes: Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }>): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  /**
   * Sends incremental edits as consecutive versions in one write to the server's standard input,
   * the way a client flushes a burst (a macro replay, a held key): the server finds them all
   * queued at once. stdio transport only.
   */
  burst(uri: string, edits: Array<Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }>>): number {
    const stdin = this.process.stdin;
    if (!stdin) throw new Error('burst() needs the stdio transport');
    let version = this.versions.get(uri) ?? 1;
    const frames = edits.map((contentChanges) => {
      version += 1;
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didChange', params: { textDocument: { uri, version }, contentChanges } }), 'utf8');
      return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
    });
    this.versions.set(uri, version);
    stdin.write(Buffer.concat(frames));
    return version;
  }

  async save(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
  }

  async close(uri: string): Promise<void> {
    this.versions.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** `workspace/didChangeWatchedFiles` (type 1 created, 2 changed, 3 deleted). */
  async filesChanged(changes: Array<{ uri: string; type: 1 | 2 | 3 }>): Promise<void> {
    await this.connection.sendNotification('workspace/didChangeWatchedFiles', { changes });
  }

  async changeSettings(settings: Record<string, unknown>): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: { fencelint: settings } });
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.connection.sendNotification('exit');
    } catch {
      // The server may already be gone; it is killed below either way.
    }
    this.connection.dispose();
    if (this.process.exitCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.process.kill();
          resolve();
        }, 2000);
        this.process.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** Applies LSP text edits (non-overlapping, any order) to a text. */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: { line: number; character: number }) => (lineStarts[p.line] ?? text.length) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let result = text;
  for (const edit of sorted) result = result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end));
  return result;
}

export function fileUri(name: string): string {
  return pathToFileURL(path.join(here, 'fixtures', name)).href;
}
