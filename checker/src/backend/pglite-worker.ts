/**
 * Runs in a worker thread: one PGlite on one data directory, driven by messages from
 * `PgliteThread`. PGlite executes a statement synchronously inside WebAssembly and has no
 * statement timeout, so a statement that sleeps or scans blocks the thread it runs on; here that
 * is this thread, and the checker's own thread keeps its deadline and its signal handlers.
 */
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { parentPort } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest, WasmModule } from './pglite-thread.js';

let db: PGlite | undefined;
/** The compiled WebAssembly from the first open, for every reopen (a restart). */
let wasmModule: WasmModule | undefined;

async function handle(request: ThreadRequest): Promise<unknown> {
  switch (request.op) {
    case 'open':
      wasmModule ??= request.wasmModule;
      db = await PGlite.create(request.dataDir, wasmModule ? { pgliteWasmModule: wasmModule as PGliteOptions['pgliteWasmModule'] } : {});
      return undefined;
    case 'query': {
      const result = await opened().query<Record<string, unknown>>(request.text, request.params);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    }
    case 'exec':
      await opened().exec(request.text);
      return undefined;
    case 'close':
      if (db && !db.closed) await db.close();
      db = undefined;
      return undefined;
  }
}

function opened(): PGlite {
  if (!db) throw new Error('PGlite is not open');
  return db;
}

/** PostgreSQL's fields (code, detail, position, ...) travel with the message; the class does not. */
function serialise(error: unknown): Extract<ThreadReply, { error: unknown }>['error'] {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[name] = value;
  }
  return { message: error.message, fields };
}

parentPort!.on('message', (request: ThreadRequest) => {
  handle(request).then(
    (result) => parentPort!.postMessage({ id: request.id, result } satisfies ThreadReply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: serialise(error) } satisfies ThreadReply),
  );
});
