import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function revise(docId: string, body: string, editor: string, revision: number) {
  const lock = await redlock.acquire([`lock:doc:${docId}`], 5000);
  try {
    await pool.query('UPDATE documents SET body = $1, edited_by = $3 WHERE id = $2 AND revision < $4', [body, docId, editor, revision]);
  } finally { await lock.release(); }
}
