import type { Database } from './backend/database.js';
/**
 * Every check works in its own schema, `fencelint_check_<random>`, with search_path set to it
 * alone: an unqualified table name in the user's statement resolves there, never to the user's
 * table of the same name. The schema is dropped at the end, also on failure.
 */
export declare class ScratchSchema {
    readonly db: Database;
    readonly name: string;
    private constructor();
    static create(db: Database): Promise<ScratchSchema>;
    drop(): Promise<void>;
    /**
     * Refuse a statement that reaches any relation outside the scratch schema. PostgreSQL's own
     * plan (EXPLAIN, which does not execute) names every relation the statement reads or writes,
     * including those reached through CTEs and subqueries, with its schema.
     */
    assertStaysInside(statement: string, sampleParams: unknown[]): Promise<void>;
}
