import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CheckStoppedError } from '../errors.js';

/** A compiled `WebAssembly.Module` (the ES2023 lib has no WebAssembly declarations). */
export type WasmModule = object;

export type ThreadRequest = { id: number } & (
  | { op: 'open'; dataDir: string; wasmModule?: WasmModule }
  | { op: 'query'; text: string; params: unknown[] }
  | { op: 'exec'; text: string }
  | { op: 'close' }
);
export type ThreadReply = { id: number; result: unknown } | { id: number; error: { message: string; fields: Record<string, string | number> } };
type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** A closing PGlite writes its shutdown checkpoint; past this it is stopped instead. */
const CLOSE_GRACE_MS = 5_000;

/**
 * PGlite in a worker thread of its own (`pglite-worker.ts`), so that a statement that never
 * returns blocks that thread and not the checker's: the deadline, the statement timeout and
 * SIGINT/SIGTERM still act, by stopping the thread (`Worker.terminate()` interrupts running
 * WebAssembly). Calls are answered in order; a stopped thread rejects every call with the
 * reason it was stopped.
 */
export class PgliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; timer?: NodeJS.Timeout }>();
  private nextId = 1;
  private stoppedBy: Error | undefined;
  private readonly exited: Promise<void>;

  constructor() {
    this.worker = new Worker(workerFile());
    this.worker.on('message', (reply: ThreadReply) => this.settle(reply));
    // An error thrown outside a call (PGlite aborting) ends the thread: nothing it held is usable.
    this.worker.on('error', (error) => this.stop(new CheckStoppedError(`PGlite stopped: ${error.message}`)));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.stop(new CheckStoppedError('PGlite stopped'));
        resolve();
      }),
    );
  }

  /**
   * Send one request. With `timeoutMs`, a call still running then stops the thread and rejects
   * with `onTimeout()` (PGlite has no statement_timeout of its own).
   */
  call(request: Request, timeout?: { ms: number; error(): Error }): Promise<unknown> {
    if (this.stoppedBy) return Promise.reject(this.stoppedBy);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = timeout ? setTimeout(() => void this.terminate(timeout.error()), timeout.ms) : undefined;
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ ...request, id });
    });
  }

  get stopped(): boolean {
    return this.stoppedBy !== undefined;
  }

  /** Close PGlite and end the thread; a thread still busy (or slow to close) is stopped instead. */
  async close(): Promise<void> {
    if (!this.stoppedBy && this.pending.size === 0) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
      await Promise.race([this.call({ op: 'close' }).catch(() => {}), late]);
      clearTimeout(timer);
    }
    await this.terminate(new CheckStoppedError('PGlite was closed'));
  }

  /** Stop the thread now, whatever it runs; pending calls reject with `reason`. */
  async terminate(reason: Error): Promise<void> {
    this.stop(reason);
    await this.worker.terminate();
    await this.exited;
  }

  private stop(reason: Error): void {
    this.stoppedBy ??= reason;
    for (const [id, call] of this.pending) {
      clearTimeout(call.timer);
      this.pending.delete(id);
      call.reject(this.stoppedBy);
    }
  }

  private settle(reply: ThreadReply): void {
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    clearTimeout(call.timer);
    if ('error' in reply) call.reject(Object.assign(new Error(reply.error.message), reply.error.fields));
    else call.resolve(reply.result);
  }
}

/**
 * The compiled worker beside this module; when this module runs from its TypeScript source (the
 * test suite), the built one in dist/, as a worker thread cannot load TypeScript.
 */
function workerFile(): URL {
  const here = new URL(import.meta.url);
  if (!here.pathname.endsWith('.ts')) return new URL('./pglite-worker.js', here);
  const built = new URL('../../dist/backend/pglite-worker.js', here);
  if (!existsSync(fileURLToPath(built))) throw new Error(`${fileURLToPath(built)} is missing: run npm run build first`);
  return built;
}
