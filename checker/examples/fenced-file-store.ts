/**
 * Example resource adapter: a tiny key-value store kept in a JSON file, standing in for any
 * resource (an HTTP service, Redis, a document store). It fences: a write carries the lease's
 * fence token and is refused unless the token is above the stored one, and an operationId
 * that was applied before is refused as a duplicate. The file survives a restart.
 *
 *   fencelint-check --module checker/examples/fenced-file-store.ts
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterContext, ResourceAdapter, WriteRequest, WriteResult } from 'fencelint-checker';

interface Entry {
  value: string;
  fenceToken: number;
}
interface StoreFile {
  entries: Record<string, Entry>;
  appliedOperations: string[];
}

export const operationIds = true;
/** The store never looks at leases or time: the exploration may treat its writes as independent of them. */
export const resourceIndependentOfAuthority = true;

export function createResource(context: AdapterContext): ResourceAdapter {
  const path = join(context.workDir, 'fenced-store.json');
  const load = (): StoreFile => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as StoreFile) : { entries: {}, appliedOperations: [] });
  const save = (store: StoreFile): void => writeFileSync(path, JSON.stringify(store));

  return {
    async write({ key, value, fenceToken, operationId }: WriteRequest): Promise<WriteResult> {
      const store = load();
      const current = store.entries[key];
      if (operationId !== undefined && store.appliedOperations.includes(operationId)) {
        return { status: 'duplicate', highest: current?.fenceToken };
      }
      // Check and store in one step (one process, synchronous): the fencing rule.
      if (current && fenceToken <= current.fenceToken) return { status: 'stale', highest: current.fenceToken };
      store.entries[key] = { value, fenceToken };
      if (operationId !== undefined) store.appliedOperations.push(operationId);
      save(store);
      return { status: 'accepted', highest: fenceToken };
    },
    async read(key: string): Promise<string | null> {
      return load().entries[key]?.value ?? null;
    },
    async restart(): Promise<void> {
      // Nothing held in memory: the file is the state.
    },
    async reset(): Promise<void> {
      rmSync(path, { force: true });
    },
  };
}
