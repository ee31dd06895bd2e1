export type SqlDialect = 'postgres' | 'mysql';
export type Role = 'value' | 'key' | 'token' | 'operationId';
export declare const ROLES: readonly Role[];
export interface StatementOverrides {
    table?: string;
    keyColumn?: string;
    valueColumn?: string;
    tokenColumn?: string;
    operationIdColumn?: string;
}
export interface UnderstoodWrite {
    /** The statement with `$n` placeholders, as it will be executed. */
    text: string;
    kind: string;
    upsert: boolean;
    table: string;
    /**
     * The column that tells rows apart. Undefined when the statement names no key (e.g. it has no
     * WHERE): then it is the table's primary key, or a column the checker adds (table-setup.ts).
     */
    keyColumn?: string;
    valueColumn: string;
    tokenColumn?: string;
    operationIdColumn?: string;
    /** Role of each `$n`, index 0 is `$1`. */
    roles: Role[];
    /** True when the token is compared in the write's own condition. */
    tokenCompared: boolean;
    /** True when the token is stored by the write. */
    tokenStored: boolean;
}
export declare function parseRoles(spec: string): Role[];
/** Understand `sql` as one write whose parameters have `roles`; BadInputError when it cannot be checked. */
export declare function understandWrite(sql: string, roles: Role[], dialect?: SqlDialect, overrides?: StatementOverrides): Promise<UnderstoodWrite>;
