import type { CheckerModule } from './adapter.js';
import { type ExploreProgress } from './explore.js';
import { type CheckReport } from './report.js';
import { type Role, type SqlDialect } from './sql-understanding.js';
export interface CheckOptions {
    /** The SQL write to check (`$n` placeholders, or `?` with dialect 'mysql'). */
    sql?: string;
    /** Role of each parameter in order: `['value', 'key', 'token']` or `'value,key,token'`. */
    roles?: Role[] | string;
    dialect?: SqlDialect;
    tokenColumn?: string;
    keyColumn?: string;
    valueColumn?: string;
    /** DDL creating the table (run inside the scratch schema). */
    schemaSql?: string;
    /** A file holding that DDL. */
    schemaFile?: string;
    /** A module path (or the module itself) exporting createResource / createAuthority. */
    module?: string | CheckerModule;
    /** A real PostgreSQL server; PGlite when absent. */
    databaseUrl?: string;
    /** Worker counts to explore (default [2, 3]); [] skips the exploration. */
    exploreWorkers?: number[];
    maxExpires?: number;
    maxRestarts?: number;
    onProgress?(progress: ExploreProgress): void;
    cwd?: string;
}
/**
 * Replay the stale-write scenarios and the bounded exploration against the subject.
 * Resolves with the report (verdict 'holds' or 'broken'); rejects with BadInputError when the
 * input cannot be checked. Whatever happens, the scratch schema and PGlite's copy are removed.
 */
export declare function checkFencing(options: CheckOptions): Promise<CheckReport>;
/** Like checkFencing, but rejects with the timeline in the message when the fence is broken. */
export declare function assertFenced(options: CheckOptions): Promise<CheckReport>;
export declare class FenceBrokenError extends Error {
    readonly report: CheckReport;
    readonly name = "FenceBrokenError";
    constructor(message: string, report: CheckReport);
}
