import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withDeadline } from './deadline.js';
import type { ProviderLease, ProviderSpec } from './provider.js';

// Compiled, the holder is a .js beside this file; from the sources (the tests) it is .ts, run through tsx.
const script = new URL(import.meta.url.endsWith('.ts') ? './holder-process.ts' : './holder-process.js', import.meta.url);
const execArgv = import.meta.url.endsWith('.ts')
  ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
  : [];

/** The parent's side of a holder process: requests over IPC, and pause/resume with SIGSTOP/SIGCONT. */
export class RemoteHolder {
  private readonly child: ChildProcess;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly exited: Promise<void>;

  constructor(private readonly spec: ProviderSpec) {
    this.child = fork(fileURLToPath(script), [JSON.stringify(spec)], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    this.child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    this.child.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.value);
      else w?.reject(new Error(m.error));
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code) => {
        for (const w of this.waiting.values()) w.reject(new Error(`the holder process exited (${code ?? 'signal'}): ${stderr.trim()}`));
        this.waiting.clear();
        resolve();
      }),
    );
  }

  acquire(key: string, ttlMs: number, ownerId: string): Promise<ProviderLease | null> {
    return this.request({ op: 'acquire', key, ttlMs, ownerId }) as Promise<ProviderLease | null>;
  }

  /** true/false from the library, null when it does not say. */
  release(): Promise<boolean | null> {
    return this.request({ op: 'release' }) as Promise<boolean | null>;
  }

  extend(): Promise<boolean | null> {
    return this.request({ op: 'extend' }) as Promise<boolean | null>;
  }

  toldLost(): Promise<boolean | null> {
    return this.request({ op: 'told-lost' }) as Promise<boolean | null>;
  }

  /** A stop-the-world pause of the whole holder process. */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  async close(): Promise<void> {
    this.resume();
    await withDeadline(this.request({ op: 'close' }), 3000, 'holder close').catch(() => {});
    const gone = await withDeadline(this.exited.then(() => true), 2000, 'holder exit').catch(() => false);
    if (!gone) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  private request(message: Record<string, unknown>): Promise<unknown> {
    const id = this.next++;
    const answer = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.child.send({ id, ...message });
    // Starting a process and loading a client library takes a while on a busy machine.
    return withDeadline(answer, this.spec.operationTimeoutMs + 15_000, `holder ${String(message.op)}`);
  }
}
