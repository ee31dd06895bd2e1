import type { Connection } from 'vscode-languageserver/node';

/**
 * Log lines go to the client's output channel (`window/logMessage`). A failure that repeats on
 * every keystroke (a throwing rule, a broken config) is logged once per distinct key, so the
 * channel stays readable.
 */
export class ServerLog {
  private readonly seen = new Set<string>();

  constructor(private readonly connection: Connection) {}

  info(message: string): void {
    this.connection.console.info(message);
  }

  error(message: string): void {
    this.connection.console.error(message);
  }

  /** Logs `message` the first time `key` is seen; returns whether it logged. */
  once(key: string, message: string, level: 'info' | 'error' = 'error'): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (level === 'error') this.error(message);
    else this.info(message);
    return true;
  }
}

/** What the lint machinery needs of a log: the server's own, or a worker's that forwards to it. */
export type Log = Pick<ServerLog, 'info' | 'error' | 'once'>;
