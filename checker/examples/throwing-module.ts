/** A module whose resource cannot be created: the checker reports it and exits with status 2. */
import type { ResourceAdapter } from 'fencelint-checker';

export function createResource(): ResourceAdapter {
  throw new Error('connection refused: store.internal:6379');
}
