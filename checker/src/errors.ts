/** Input the checker cannot work with: a clear message, exit status 2, nothing left behind. */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
