import type { ResourceAdapter, WriteRequest, WriteResult } from './adapter.js';
import type { Database } from './backend/database.js';
import type { UnderstoodWrite } from './sql-understanding.js';
/**
 * The user's SQL write as a resource: parameters bound by role, `rowCount > 0` is accepted,
 * `rowCount = 0` is the explicit stale outcome the caller must check.
 */
export declare class SqlResource implements ResourceAdapter {
    private readonly db;
    private readonly write_;
    private readonly key;
    constructor(db: Database, write_: UnderstoodWrite, key: string);
    paramsFor(request: WriteRequest): unknown[];
    /** Set while the exploration runs inside one transaction: a failing write must not abort it. */
    inTransaction: boolean;
    write(request: WriteRequest): Promise<WriteResult>;
    private rowAfterWrite;
    read(key: string): Promise<string | null>;
    /** Forget the row read after the last write (the state moved under it: rollback, restart, reset). */
    forgetCachedRow(): void;
    private row;
    restart(): Promise<void>;
    reset(): Promise<void>;
}
