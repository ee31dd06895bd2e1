import { type Role, type SqlDialect } from './sql-understanding.js';
export interface WriteAtLocation {
    sql: string;
    dialect: SqlDialect;
    /** Guessed from the JS expressions bound to each `$n`, when every one could be named. */
    roles?: Role[];
    /** The JS expression text bound to each `$n`, for messages. */
    paramTexts: (string | undefined)[];
}
export declare function parseLocation(spec: string): {
    file: string;
    line: number;
};
export declare function findWriteAt(spec: string, cwd?: string): Promise<WriteAtLocation>;
/** Name each `$n` from the expression bound to it: `lease.fenceToken` is the token, `key` the key... */
export declare function guessRoles(paramTexts: (string | undefined)[]): Role[] | undefined;
