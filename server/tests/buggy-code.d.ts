/** The article's bug: a write under a redlock lease that the database does not fence. */
export declare const BUGGY_SAVE = "import Redlock from 'redlock';\nimport { Pool } from 'pg';\nconst pool = new Pool();\nconst redlock = new Redlock([]);\nexport async function save(key: string, value: string) {\n  const lock = await redlock.acquire([`lock:${key}`], 5000);\n  try {\n    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);\n  } finally { await lock.release(); }\n}\n";
/** The rule every protocol test looks for. */
export declare const RULE_ID = "fencelint/require-fence-condition";
/**
 * The same write with a fence token in scope (the authority issues one): the rule can offer
 * the suggestion that compares and stores the token in the UPDATE.
 */
export declare const BUGGY_SAVE_WITH_TOKEN = "import { Pool } from 'pg';\nimport { LeaseAuthority } from './lease-authority';\nconst pool = new Pool();\nconst authority = new LeaseAuthority(pool);\nexport async function save(key: string, value: string) {\n  const lease = await authority.acquire(key);\n  const token = lease.fenceToken;\n  try {\n    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);\n  } finally { await authority.release(lease); }\n}\n";
