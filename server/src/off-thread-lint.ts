import { Worker } from 'node:worker_threads';
import { LINT_WORKER_ROLE, type FromWorker, type LintWorkerData, type ToWorker, type WorkerOutcome } from './lint-worker.js';
import type { ProjectGraph } from './plugin-loader.js';
import type { Log } from './server-log.js';
import type { FencelintSettings } from './settings.js';

/**
 * Documents larger than this are linted on a worker thread. A lint takes about 1 s per
 * 250 KB, and on the main thread it would hold up every hover, code action and diagnostic
 * pull of every document for that long; smaller files lint within the time of a keystroke.
 */
export const OFF_THREAD_BYTES = 256 * 1024;

/** A worker lint that runs longer than this is stopped (the worker restarts for the next one). */
export const OFF_THREAD_DEADLINE_MS = 60_000;

export type OffThreadAnswer =
  | { kind: 'done'; outcome: WorkerOutcome }
  /** A newer version of the same document was queued before this one started. */
  | { kind: 'overtaken' }
  /** The worker cannot run here: lint on the main thread instead. */
  | { kind: 'unavailable' };

interface Request {
  id: number;
  filename: string;
  text: string;
  settings: FencelintSettings;
  resolve: (answer: OffThreadAnswer) => void;
}

/**
 * The main thread's side of the large-document worker. One lint runs at a time; per document
 * only the newest waiting request is kept. The worker starts on the first large document and
 * holds its own module graph, kept in step through `shareGraph`.
 */
export class OffThreadLinter {
  private worker: Worker | undefined;
  private unavailable = false;
  private running: (Request & { timer: NodeJS.Timeout }) | undefined;
  private readonly waiting = new Map<string, Request>();
  private nextId = 1;
  /** Unsaved texts of open modules, replayed to a worker when it starts. */
  private readonly texts = new Map<string, string>();
  /** Per file the worker linted, the project files its summaries came from. */
  private readonly dependencies = new Map<string, string[]>();

  constructor(
    private readonly entry: string,
    private readonly data: Omit<LintWorkerData, 'role'>,
    private readonly log: Log,
    private readonly onProblem: (message: string) => void,
  ) {}

  get available(): boolean {
    return !this.unavailable;
  }

  lint(filename: string, text: string, settings: FencelintSettings): Promise<OffThreadAnswer> {
    if (this.unavailable) return Promise.resolve({ kind: 'unavailable' });
    return new Promise((resolve) => {
      const previous = this.waiting.get(filename);
      previous?.resolve({ kind: 'overtaken' });
      this.waiting.set(filename, { id: this.nextId++, filename, text, settings, resolve });
      this.pump();
    });
  }

  /** Settings or the workspace's ESLint config changed. */
  clearConfigs(): void {
    this.send({ type: 'clear-configs' });
  }

  /** The graph the project sync uses: the main thread's, plus what the worker's lints rested on. */
  shareGraph(main: ProjectGraph): ProjectGraph {
    return {
      dependenciesOf: (file) => [...new Set([...main.dependenciesOf(file), ...(this.dependencies.get(file) ?? [])])],
      invalidate: (file) => {
        main.invalidate(file);
        this.send({ type: 'invalidate', file });
      },
      setFileText: (file, text) => {
        main.setFileText(file, text);
        if (text === undefined) this.texts.delete(file);
        else this.texts.set(file, text);
        this.send({ type: 'file-text', file, text });
      },
      clear: () => {
        main.clear();
        this.send({ type: 'clear-graph' });
      },
    };
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private start(): Worker {
    const data: LintWorkerData = { role: LINT_WORKER_ROLE, ...this.data };
    const worker = new Worker(this.entry, { workerData: data });
    // The server process ends with its connection, whatever the worker is doing.
    worker.unref();
    worker.on('message', (message: FromWorker) => this.received(worker, message));
    worker.on('error', (error) => this.stopped(worker, error.message));
    worker.on('exit', (code) => this.stopped(worker, `exited with code ${code}`));
    for (const [file, text] of this.texts) worker.postMessage({ type: 'file-text', file, text } satisfies ToWorker);
    this.log.info('fencelint: large documents are linted on a worker thread.');
    return worker;
  }

  private pump(): void {
    if (this.running || this.unavailable) return;
    const next = this.waiting.values().next();
    if (next.done) return;
    const request = next.value;
    this.waiting.delete(request.filename);
    this.worker ??= this.start();
    const worker = this.worker;
    const timer = setTimeout(() => {
      // A lint that does not end would block every later one: stop this worker, start afresh.
      this.log.once(`off-thread-deadline:${request.filename}`, `fencelint: linting ${request.filename} took longer than ${OFF_THREAD_DEADLINE_MS / 1000} s and was stopped.`);
      this.finish({ kind: 'done', outcome: { status: 'failed', error: `the lint took longer than ${OFF_THREAD_DEADLINE_MS / 1000} s` } });
      this.worker = undefined;
      void worker.terminate();
      this.pump();
    }, OFF_THREAD_DEADLINE_MS);
    timer.unref();
    this.running = { ...request, timer };
    worker.postMessage({ type: 'lint', id: request.id, filename: request.filename, text: request.text, settings: request.settings } satisfies ToWorker);
  }

  private finish(answer: OffThreadAnswer): void {
    const running = this.running;
    if (!running) return;
    clearTimeout(running.timer);
    this.running = undefined;
    running.resolve(answer);
  }

  private received(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case 'result':
        if (this.running?.id !== message.id) return;
        this.dependencies.set(this.running.filename, message.dependencies);
        this.finish({ kind: 'done', outcome: message.outcome });
        this.pump();
        break;
      case 'log':
        if (message.key === undefined) {
          if (message.level === 'error') this.log.error(message.message);
          else this.log.info(message.message);
        } else {
          this.log.once(message.key, message.message, message.level);
        }
        break;
      case 'problem':
        this.onProblem(message.message);
        break;
      case 'unavailable':
        this.stopped(worker, message.error);
        break;
    }
  }

  /** The worker failed to start or died: every waiting lint runs on the main thread from now on. */
  private stopped(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.unavailable = true;
    this.log.once('off-thread-unavailable', `fencelint: the worker thread for large documents stopped (${reason}); they are linted on the main thread.`);
    this.finish({ kind: 'unavailable' });
    for (const request of this.waiting.values()) request.resolve({ kind: 'unavailable' });
    this.waiting.clear();
  }
}
