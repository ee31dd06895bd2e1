// redlock 5 ships declarations, but its package.json "exports" does not point at them, so
// TypeScript cannot find them from an ESM import. This describes the part the adapter uses.
declare module 'redlock' {
  export class Lock {
    readonly value: string;
    readonly resources: string[];
    expiration: number;
    release(): Promise<unknown>;
    extend(duration: number): Promise<Lock>;
  }
  export class ExecutionError extends Error {}
  export interface Settings {
    driftFactor: number;
    retryCount: number;
    retryDelay: number;
    retryJitter: number;
    automaticExtensionThreshold: number;
  }
  export default class Redlock {
    constructor(clients: Iterable<unknown>, settings?: Partial<Settings>);
    acquire(resources: string[], duration: number, settings?: Partial<Settings>): Promise<Lock>;
    on(event: 'error', listener: (error: Error) => void): this;
  }
}
