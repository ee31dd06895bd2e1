/**
 * Read-through cache fills: a method named for reading (`store.hget(kind, id, field)`) that, on a
 * miss, reads the database and keeps what it read in a key-value cache (a Redis `HSET` of the
 * fetched fields). Its caller reads; the cache write stores what the database holds, and the
 * callee decides it on its own. A reader whose writes also reach a database, or a method named for
 * writing, is no cache fill.
 */
import { READ_METHOD_NAME } from '../models/record-reads.js';
import type { FunctionSummary, WriteSummary } from '../modules/summaries.js';

/** Whether the call's writes are a read method's cache fills, and nothing else. */
export function isCacheFillRead(callee: FunctionSummary, writes: readonly WriteSummary[]): boolean {
  const method = callee.name.split('.').pop() ?? callee.name;
  return READ_METHOD_NAME.test(method) && writes.length > 0 && writes.every((w) => w.keyValue === true);
}
