import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { sleep } from '../deadline.js';

/** Every server process started here, so that none outlives the process that started it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ServerCommand {
  /** What the messages call it, e.g. "redis-server (AOF appendfsync always) on 127.0.0.1:6390". */
  name: string;
  binary: string;
  args: string[];
  cwd: string;
  logFile: string;
  /** Run as this user (uid, gid): PostgreSQL refuses to run as root. */
  user?: { uid: number; gid: number };
  env?: Record<string, string>;
  /** True once the server answers its own protocol. */
  ready(): Promise<boolean>;
  startTimeoutMs?: number;
  /** The signal of a crash. SIGKILL, except for PostgreSQL: SIGQUIT is its immediate shutdown (no checkpoint, recovery on the next start), where SIGKILL would leave its backends running. */
  crashSignal?: NodeJS.Signals;
}

/**
 * A lock server started from its binary on a loopback port. `kill()` is a crash (SIGKILL: no
 * shutdown, no final fsync), `start()` brings it back on the same port and data directory, and
 * `stop()` ends it for good.
 */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(readonly command: ServerCommand) {}

  get name(): string {
    return this.command.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const { binary, args, cwd, logFile, user, env } = this.command;
    const log = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(binary, args, {
        cwd,
        stdio: ['ignore', log, log],
        env: { ...process.env, ...env },
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    running.add(child);
    let exitCode: number | null | undefined;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        exitCode = code;
        running.delete(child);
        if (this.child === child) this.child = undefined;
        resolve();
      });
      child.once('error', () => {
        running.delete(child);
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
    const deadline = Date.now() + (this.command.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      if (exitCode !== undefined || !this.child) {
        throw new Error(`${this.name} exited while starting (status ${exitCode ?? 'unknown'}); its log:\n${this.logTail()}`);
      }
      if (await this.command.ready().catch(() => false)) return;
      await sleep(50);
    }
    await this.stop();
    throw new Error(`${this.name} did not answer within ${(this.command.startTimeoutMs ?? 30_000) / 1000} s; its log:\n${this.logTail()}`);
  }

  /** A crash: SIGKILL (or the server's crash signal), then wait until the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(this.command.crashSignal ?? 'SIGKILL');
    const gone = await Promise.race([this.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!gone) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** A crash and a start on the same port and data directory. */
  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** SIGTERM, and SIGKILL when it has not gone after 5 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const gone = await Promise.race([this.exited.then(() => true), sleep(5000).then(() => false)]);
    if (!gone) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.command.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}
