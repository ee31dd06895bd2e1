/** A step that got no answer in time: the server is down, silent, or speaks another protocol. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
}

/** Resolves like `work`, or rejects with NoAnswerError after `ms`; the timer never keeps the process alive. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerError(`${what}: no answer within ${formatSeconds(ms)}`)), ms);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
