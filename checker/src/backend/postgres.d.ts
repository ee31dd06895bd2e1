import type { Database, QueryResult } from './database.js';
/** A real PostgreSQL server reached through one `pg` client. */
export declare class PostgresDatabase implements Database {
    private client;
    private readonly url;
    readonly description: string;
    readonly kind: "postgres";
    private sessionSetup;
    private constructor();
    static connect(url: string): Promise<PostgresDatabase>;
    query(text: string, params?: unknown[]): Promise<QueryResult>;
    exec(text: string): Promise<void>;
    restart(): Promise<void>;
    newSession(): Promise<void>;
    setSessionSetup(sql: string): Promise<void>;
    close(): Promise<void>;
}
/** The URL without its password, for messages and reports. */
export declare function redact(url: string): string;
