/** Input the checker cannot work with: a clear message, exit status 2, nothing left behind. */
export class BadInputError extends Error {
  override readonly name: string = 'BadInputError';
}

/**
 * The check cannot go on because of the database session itself: a statement ran past its
 * timeout, waited too long for a lock, or the connection was terminated. Never a verdict.
 */
export class CheckStoppedError extends BadInputError {
  override readonly name = 'CheckStoppedError';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * PostgreSQL errors that end the session's usefulness rather than tell anything about the
 * statement under check: statement or lock timeout, a terminated backend, a lost connection.
 * Null for any other error (a constraint violation, a type error: the write's own outcome).
 */
export function sessionFailure(error: unknown, timeouts: { statementMs: number; lockMs: number }): string | null {
  const e = error as { code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  const message = e?.message ?? String(error);
  if (code === '57014') {
    return /statement timeout/.test(message)
      ? `a statement ran longer than the statement timeout (${timeouts.statementMs / 1000} s)`
      : `a statement was cancelled (${message})`;
  }
  if (code === '55P03') return `a statement waited longer than the lock timeout (${timeouts.lockMs / 1000} s) for a lock`;
  if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) {
    return `the database connection was terminated (${message})`;
  }
  if (/Connection terminated|connection error|not queryable|ECONNRESET|EPIPE/i.test(message) && !code) {
    return `the database connection was lost (${message})`;
  }
  return null;
}
