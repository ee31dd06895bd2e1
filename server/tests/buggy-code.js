/** The article's bug: a write under a redlock lease that the database does not fence. */
export const BUGGY_SAVE = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([\`lock:\${key}\`], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally { await lock.release(); }
}
`;
/** The rule every protocol test looks for. */
export const RULE_ID = 'fencelint/require-fence-condition';
/**
 * The same write with a fence token in scope (the authority issues one): the rule can offer
 * the suggestion that compares and stores the token in the UPDATE.
 */
export const BUGGY_SAVE_WITH_TOKEN = `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const token = lease.fenceToken;
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally { await authority.release(lease); }
}
`;
//# sourceMappingURL=buggy-code.js.map