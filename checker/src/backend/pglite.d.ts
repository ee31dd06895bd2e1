import type { Database, QueryResult } from './database.js';
/**
 * Initialising a fresh PGlite cluster costs seconds; opening an initialised data directory
 * costs a fraction of that. So one initialised directory is kept per PGlite version as a
 * template and copied for every check.
 */
export declare function templateDirectory(): string;
export declare function ensureTemplate(): Promise<string>;
export declare class PgliteDatabase implements Database {
    private db;
    readonly dataDir: string;
    private readonly ownsDir;
    readonly kind: "pglite";
    readonly description: string;
    private sessionSetup;
    private constructor();
    /** Open a copy of the template in a new temporary directory (removed by close()). */
    static openScratch(): Promise<PgliteDatabase>;
    query(text: string, params?: unknown[]): Promise<QueryResult>;
    exec(text: string): Promise<void>;
    restart(): Promise<void>;
    newSession(): Promise<void>;
    setSessionSetup(sql: string): Promise<void>;
    close(): Promise<void>;
}
