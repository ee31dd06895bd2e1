import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, value: string, fenceToken: number) {
  const lock = await redlock.acquire([`lock:${key}`], 5000);
  try {
    const saved = await pool.query('UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3', [value, key, fenceToken]);
    if (saved.rowCount === 0) throw new Error(`resource ${key} was not saved`);
  } finally { await lock.release(); }
}
