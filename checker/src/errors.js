/** Input the checker cannot work with: a clear message, exit status 2, nothing left behind. */
export class BadInputError extends Error {
    name = 'BadInputError';
}
export function errorMessage(error) {
    return error instanceof Error ? error.message : String(error);
}
//# sourceMappingURL=errors.js.map