import type { Database } from './backend/database.js';
import type { ScratchSchema } from './scratch-schema.js';
import type { UnderstoodWrite } from './sql-understanding.js';
export type TableSource = 'schema-file' | 'catalog' | 'inferred';
/**
 * Create the statement's table inside the scratch schema: from the user's DDL file, else from
 * the live database's definition of a table with the same name (structure only, no rows), else
 * inferred from the statement. Returns where the definition came from.
 */
export declare const ADDED_KEY_COLUMN = "fencelint_key";
export declare function createTable(scratch: ScratchSchema, write: UnderstoodWrite, schemaSql?: string): Promise<TableSource>;
export declare function inferredDdl(write: UnderstoodWrite): string;
/** Put the row that every scenario starts from: value v0, token 0. */
export declare function seedRow(db: Database, write: UnderstoodWrite, key: string): Promise<void>;
export declare function keyColumnOf(write: UnderstoodWrite): string;
export declare function ident(name: string): string;
