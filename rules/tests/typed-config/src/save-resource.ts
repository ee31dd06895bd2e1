import Redlock from 'redlock';
import { Pool } from 'pg';

const pool = new Pool();
const redlock = new Redlock([]);

export async function saveResource(key: string, value: string): Promise<void> {
  const lock = await redlock.acquire([`resource:${key}`], 5_000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await lock.release();
  }
}
