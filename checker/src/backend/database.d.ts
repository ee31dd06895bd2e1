/** The one connection the checker drives. PGlite serves one connection; a server gets one client. */
export interface QueryResult {
    rows: Record<string, unknown>[];
    rowCount: number;
}
export interface Database {
    readonly kind: 'pglite' | 'postgres';
    /** A short human description, e.g. "PGlite 0.5.17" or "PostgreSQL at 127.0.0.1:54329/db". */
    readonly description: string;
    query(text: string, params?: unknown[]): Promise<QueryResult>;
    /** Run several statements without parameters. */
    exec(text: string): Promise<void>;
    /** Close and reopen: a process restart for PGlite, a new connection for a server. */
    restart(): Promise<void>;
    /** A new session without reopening: cheap stand-in for a restart inside the exploration. */
    newSession(): Promise<void>;
    /** Statements run after every (re)connect, such as `SET search_path`. */
    setSessionSetup(sql: string): Promise<void>;
    close(): Promise<void>;
}
