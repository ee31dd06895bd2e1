/**
 * Lock tables: SQL tables that hold locks or leases themselves (`job_locks`, `leases`).
 * Writes there are acquires, renewals and releases, not protected writes; a release there
 * must name its owner, lease or token, not only the lock's name. Data only, shared by the
 * write sinks and the release rule.
 */

/** Tables that hold locks or leases themselves. */
export const LOCK_TABLE = /(?:^|_)(?:locks?|locking|leases?|mutex(?:es)?|advisory_locks?|lock_holders?)$|^(?:locks?|leases?|distributed_locks?|lock_table)$/;

/**
 * Columns that say which holder a lock row belongs to: an owner, a lease id, the lock's
 * random value or its token. A release (or write) that compares one of them touches only its
 * own holder's row. `lock_id`, `lock_key` and `lock_name` name the lock, not its holder.
 * DynamoDB lock clients keep the holder's random `guid` (dynamodb-lock-client) or
 * `recordVersionNumber` (Amazon's lock client) on the item.
 */
export const LOCK_HOLDER_COLUMN =
  /^(?:owner|holder|locked_?by|owned_?by|acquired_?by|worker|instance|client|node|process|session|host(?:name)?)(?:_?(?:id|name|key|token|uuid))?$|^lease_?(?:id|token|value|uuid|secret|nonce|owner|holder|generation|epoch|version)$|^lock_?(?:token|value|uuid|secret|nonce|owner|holder|generation|epoch|version)$|^(?:fence|fencing)_?(?:token|id|generation|epoch)?$|^(?:token|nonce|secret|uuid|guid|version|generation|epoch|lease)$|^record_?version(?:_?number)?$|^rvn$/i;

/**
 * A field that names who holds a row (`held_by`, `owner_id`, `lockedBy`, `assignee`): emptying it
 * frees the row for the next claimant, a release of claims rather than a purge of data.
 */
export const ROW_HOLDER_FIELD =
  /^(?:held|locked|claimed|owned|acquired|reserved|assigned|leased|checked_?out)_?(?:by|to)(?:_?(?:id|name))?$|^(?:owner|holder|worker|assignee|claimant|lessee)(?:_?(?:id|name))?$/i;

/**
 * Columns that keep a lease itself rather than data: its holder (`ROW_HOLDER_FIELD`), its expiry,
 * its token, its heartbeat (`lock_expires_at`, `lease_until`, `fence_token`, `epoch`). Writing only
 * these renews or hands over a lease.
 */
const LEASE_UPKEEP_COLUMN = /^(?:lease|lock)|expir|until|heartbeat|ttl|deadline|renewed|fenc|token|generation|epoch/i;

export function isLeaseUpkeepColumn(column: string): boolean {
  return ROW_HOLDER_FIELD.test(column) || LEASE_UPKEEP_COLUMN.test(column);
}

/** Columns that say when a lock row expires: a predicate on them reaps expired rows. */
export const LOCK_EXPIRY_COLUMN = /(?:expir|valid_?until|locked_?until|lease_?until|held_?until|deadline|heartbeat|ttl|timeout|renewed_?at)/i;

/** Owner and lease columns a release should compare, when the file shows no others. */
export const DEFAULT_OWNER_COLUMN = 'owner_id';
export const DEFAULT_LEASE_COLUMN = 'lease_id';

/** Lock-table columns that identify the owner (for a release suggestion), and the lease. */
export const OWNER_COLUMN_NAME = /^(?:owner|holder|locked_?by|owned_?by|acquired_?by|worker)(?:_?(?:id|name))?$/i;
export const LEASE_COLUMN_NAME = /^(?:lease_?id|lease|lock_?token|lock_?value|lease_?token)$/i;

/**
 * A quoted camel-case name the SQL reader lower-cases (`"CronLock"` is `cronlock`, `"JobLeases"`
 * `jobleases`): a word joined to `lock`, `lease` or `mutex`, except the words that only end in them.
 */
const JOINED_LOCK_TABLE = /^[a-z][a-z0-9]*(?:lock|lease|mutex)(?:s|es)?$/;
const NOT_A_LOCK_WORD = /(?:block|clock|flock|release|unlock|deadlock|gridlock|airlock|padlock|warlock|sherlock|hemlock|wedlock|oarlock|interlock|headlock)(?:s|es)?$/;

export function isLockTable(table: string | undefined): boolean {
  if (table === undefined) return false;
  const snake = table.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return LOCK_TABLE.test(table) || LOCK_TABLE.test(snake) || (JOINED_LOCK_TABLE.test(snake) && !NOT_A_LOCK_WORD.test(snake));
}

/**
 * DynamoDB calls that write several items in one transaction; each `Delete`/`Update` item of
 * `TransactItems` is judged like a command of its own.
 */
export const DYNAMO_TRANSACT_WRITE = /^(?:TransactWriteCommand|TransactWriteItemsCommand|transactWrite|transactWriteItems)$/;
