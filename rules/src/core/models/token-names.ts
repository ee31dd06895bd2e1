/**
 * Names that mark a value as a fence token (or its close relatives: generation, epoch,
 * sequencer). Shared by every rule so that "what is a token" has one answer.
 *
 * Plain `token` is only a token on a lock handle or an authority result: on its own it is
 * far more often an auth or pagination token, so it is not in the strong list.
 */
const STRONG_TOKEN_NAME =
  /^(?:fence|fencing|lease_?fence|lock_?fence)_?(?:token|tok|id|no|number|num|seq|counter|gen|generation)?$|^(?:fencing|fence)[A-Z_]|(?:^|_|[a-z])(?:Fence|Fencing|fence|fencing)(?:Token|_token)$|^(?:lease|lock|owner)_?(?:generation|epoch|sequencer|seq_?no)$|^(?:generation|sequencer|epoch_?(?:no|number|id))$|(?:Generation|Sequencer|FenceToken|FencingToken)$/i;

const WEAK_TOKEN_NAME = /^(?:token|tok|revision|rev|epoch|version|seq|sequence)$/i;

/** A name that on its own says "fence token", wherever it appears. */
export function isStrongTokenName(name: string): boolean {
  return STRONG_TOKEN_NAME.test(name);
}

/**
 * A name that is a token only when read off a lock handle or an authority result
 * (`lock.token`, `lease.revision`, `{ token } = await authority.acquire(...)`).
 */
export function isHandleTokenName(name: string): boolean {
  return isStrongTokenName(name) || WEAK_TOKEN_NAME.test(name);
}

/** SQL column names that hold the accepted token at the resource. */
export function isTokenColumnName(column: string): boolean {
  return isStrongTokenName(column) || /^(?:accepted|last|highest|current)_?(?:fence_?)?(?:token|generation|epoch)$/i.test(column);
}

/**
 * A name that says "this is a time or a duration", even when it also says fence
 * (`fenceTokenIssuedAt`, `leaseEpochMs`, `generationStartedAt`): a clock value there is fine.
 */
export function isTimeName(name: string): boolean {
  if (/(?:Token|_token)$/i.test(name)) return false;
  return (
    /(?:At|Time|Timestamp|Ts|Ms|Millis|Seconds|Secs|Nanos|Date|Until|Since|Ttl|TTL|Timeout|Age|Duration|Elapsed|Delay|Interval|Start|End)$/.test(name) ||
    /_(?:at|time|timestamp|ts|ms|millis|seconds|secs|nanos|date|until|since|ttl|timeout|age|duration|elapsed|delay|interval)$/i.test(name) ||
    /^(?:ts|ttl|now|time|timestamp|date|deadline|timeout|expiry|expiration)$/i.test(name) ||
    /expir|deadline|created|updated|issued|started|stamp/i.test(name)
  );
}

/** A name for an identity rather than an order (`fenceId`, `lock_key`): unique is all it must be. */
export function isIdentityName(name: string): boolean {
  return /(?:Id|_id|ID|Key|_key|Name|_name|Uuid|_uuid|UUID)$/.test(name) || /^(?:id|key|name|uuid)$/i.test(name);
}

/**
 * Columns whose equality with an expected value makes a write compare-and-set: the holder
 * stored at the resource (`lease_owner = $2`) or an optimistic version (`version = $3`).
 * A late writer's expected value no longer matches, so the write is refused at the resource.
 */
export function isCompareAndSetColumnName(column: string): boolean {
  return (
    /^(?:lease|owner|holder|lock|locked_?by|owned_?by|worker)_?(?:id|owner|token|key)?$/i.test(column) ||
    /^(?:version|row_?version|lock_?version|revision|rev|etag|e_?tag|optimistic_?lock|cas|sequence_?number|seq_?no)$/i.test(column) ||
    /^(?:leaseId|ownerId|holderId|lockOwner|lockedBy|ownedBy|workerId|rowVersion|lockVersion|eTag|sequenceNumber)$/.test(column)
  );
}
