/** Input the checker cannot work with: a clear message, exit status 2, nothing left behind. */
export declare class BadInputError extends Error {
    readonly name = "BadInputError";
}
export declare function errorMessage(error: unknown): string;
