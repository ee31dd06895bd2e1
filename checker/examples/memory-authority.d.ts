/**
 * Example of an authority the checker rejects: the fence counter lives in process memory (a
 * restart starts it again at 1) and release deletes by key, whoever holds the lease now.
 * The resource is the fenced file store, so every failure here is the authority's.
 *
 *   fencelint-check --module checker/examples/memory-authority.ts     # exit 1
 */
import type { AdapterContext, AuthorityAdapter } from 'fencelint-checker';
export { createResource, operationIds, resourceIndependentOfAuthority } from './fenced-file-store.js';
export declare function createAuthority(context: AdapterContext): AuthorityAdapter;
