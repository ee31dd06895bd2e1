/**
 * The read-then-update gap: a write whose safety rests on an earlier, separate check.
 *
 * - a stored token or version is read by one statement (`SELECT fence_token`, Prisma
 *   `findUnique`, Redis `GET`), compared in application code, then written by another;
 * - a lease-validity check guards the write (`lock.expiration > Date.now()`,
 *   `await lock.isValid()`, `await lease.ttl()`, `(await redis.get(lockKey)) === me`), or the
 *   lease is extended just before it.
 *
 * A pause between check and write lets a newer holder write first. A write that carries the
 * comparison itself (a conditional UPDATE, a filter on the token) is not a finding, nor is a
 * `SELECT ... FOR UPDATE` and the UPDATE on the same client, nor a SERIALIZABLE transaction.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { enclosingFunction, unwrap, type Node } from '../ast.js';
import type { FileAnalysis } from '../file-analysis.js';
import { readWrite, type GuardedWrite, type WriteSink } from './guarded-writes.js';
import { inRegions } from './guards.js';
import { validityChecks } from './lease-checks.js';
import { camel } from '../sinks/object-writes.js';
import { RedisLockKeys } from '../locks/redis-locks.js';
import { storedTokenChecks } from './stored-token-reads.js';
import { leaseColumnChecks } from './lease-columns.js';
import { expectedVersionChecks } from './expected-version-checks.js';

export type { GuardedWrite, WriteSink } from './guarded-writes.js';

export type CheckKind = 'storedToken' | 'leaseValidity' | 'leaseExtend';

export interface CheckThenWrite {
  kind: CheckKind;
  /** The check: the comparison, the validity call or the extend call. */
  check: Node;
  write: GuardedWrite;
  /** The stored field that was compared, for stored-token checks. */
  field?: string;
  /** The compared value is no fence token, or the write is a call's (the callee's write): the write's missing fence is a finding of its own. */
  alsoUnfenced?: boolean;
}

export interface Check {
  kind: CheckKind;
  node: Node;
  regions: TSESTree.Range[];
  field?: string;
  /** Stored-token reads: target of the read, and its FOR UPDATE receiver. */
  readTarget?: string;
  readSink?: WriteSink;
  forUpdateReceiver?: string;
  /** Extend: only the first write after it counts ("immediately before writing"). */
  firstOnly?: boolean;
  /**
   * A weak field (`version`, `token`) compared for equality is a fencing check only when the
   * write then stores that field (optimistic concurrency); `token !== provided` alone is auth.
   */
  needsStore?: boolean;
  /** A lease kept by hand: the check guards taking it, so an update of a lock table's row counts as its write. */
  takesLease?: boolean;
  /** Only writes made under a lock count (the check alone says too little). */
  inSectionOnly?: boolean;
  /** Calls to project functions that write (another module's store or repository) count as writes. */
  throughCalls?: boolean;
  /** See `CheckThenWrite.alsoUnfenced`. */
  alsoUnfenced?: boolean;
}


/** Cheap test before any work: the file mentions a stored token/version or a lease. */
const HINT = /fenc|token|version|revision|generation|epoch|\bseq|lock|lease|mutex/i;

const found = new WeakMap<FileAnalysis, CheckThenWrite[]>();

/**
 * The check-then-write findings of a file, computed once per file analysis: rules that must not
 * report the same write for the same cause (`require-fence-condition` leaves these writes to
 * `no-check-then-write`) read the same list.
 */
export function checkThenWritesOf(analysis: FileAnalysis, sourceCode: SourceCode): CheckThenWrite[] {
  let list = found.get(analysis);
  if (!list) {
    list = findCheckThenWrites(analysis, sourceCode);
    found.set(analysis, list);
  }
  return list;
}

/** Every write whose safety rests on an earlier, separate check, once per write (the nearest check wins). */
export function findCheckThenWrites(analysis: FileAnalysis, sourceCode: SourceCode): CheckThenWrite[] {
  if (analysis.calls.length === 0 || !HINT.test(sourceCode.text)) return [];
  const locks = new RedisLockKeys(analysis.calls, sourceCode);
  const checks: Check[] = [];
  storedTokenChecks(analysis, sourceCode, locks, checks);
  validityChecks(analysis, sourceCode, locks, checks);
  leaseColumnChecks(sourceCode, checks);
  expectedVersionChecks(analysis, sourceCode, checks);
  if (checks.length === 0) return [];

  const writeCache = new Map<Node, GuardedWrite | null>();
  const writeAt = (node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression) => {
    let w = writeCache.get(node);
    if (w === undefined) {
      w = readWrite(node, analysis, sourceCode, locks) ?? null;
      writeCache.set(node, w);
    }
    return w ?? undefined;
  };
  const candidates = [...analysis.calls, ...analysis.taggedTemplates].sort((a, b) => a.range[0] - b.range[0]);
  const found = new Map<Node, CheckThenWrite>();
  for (const check of checks) {
    for (const node of candidates) {
      if (node.range[0] < check.node.range[1] || !inRegions(node, check.regions)) continue;
      const direct = writeAt(node);
      const write = direct ?? (check.throughCalls ? callWriteAt(analysis, node) : undefined);
      if (!write) continue;
      if (write.leaseRow && !check.takesLease) continue;
      if ((check.inSectionOnly || !direct) && !analysis.sectionOf(node)) continue;
      if (check.kind === 'storedToken' && !relevant(check, write)) continue;
      if (check.needsStore && !stores(write, check.field)) continue;
      if (check.kind !== 'storedToken' && takenAfter(analysis, check.node, node)) continue;
      if (write.carriesComparison(check.field)) {
        if (check.firstOnly) break;
        continue;
      }
      const previous = found.get(write.node);
      // A call that writes elsewhere is also reported for its missing fence: the check is this rule's, the write the callee's.
      if (!previous || previous.check.range[0] < check.node.range[0]) found.set(write.node, { kind: check.kind, check: check.node, write, field: check.field, alsoUnfenced: check.alsoUnfenced || !direct });
      if (check.firstOnly) break;
    }
  }
  return [...found.values()].filter((f) => !serializable(f.write.node, sourceCode)).sort((a, b) => a.write.node.range[0] - b.write.node.range[0]);
}

/**
 * A lock taken between a probe of the lock and the write (`if (await redis.exists(key)) continue;`
 * then `acquireLock(key)`): the probe asked whether the lock was free, not whether a lease held
 * earlier is still valid, so the write rests on that acquire and its missing fence is
 * `require-fence-condition`'s finding.
 */
function takenAfter(analysis: FileAnalysis, check: Node, write: Node): boolean {
  const fn = enclosingFunction(check);
  return analysis.acquires.some((site) => site.node.range[0] >= check.range[1] && site.node.range[0] < write.range[0] && enclosingFunction(site.node) === fn);
}

/** A call under a lock to a project function that writes (`this.store.completeRun(...)`), as a guarded write. */
function callWriteAt(analysis: FileAnalysis, node: Node): GuardedWrite | undefined {
  const site = analysis.writes.find((w) => w.sink === 'call' && w.node === node);
  if (!site || site.sink !== 'call' || node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  return { node, sink: 'call', stores: [], carriesComparison: () => site.fenced };
}

/**
 * Whether a write site of the file analysis is the write a finding names: the same node, or the
 * command a `send(...)` call carries (`ddb.send(new PutCommand({ ... }))` is sited at the command).
 */
export function isWriteOf(finding: CheckThenWrite, siteNode: Node): boolean {
  const node = finding.write.node;
  if (siteNode === node) return true;
  return node.type === AST_NODE_TYPES.CallExpression && node.arguments.some((a) => unwrap(a) === siteNode);
}

function stores(write: GuardedWrite, field: string | undefined): boolean {
  return field !== undefined && write.stores.some((s) => s === field || camel(s) === camel(field));
}

/** The write targets what was read (same table, model or key), unless the target of either is unknown. */
function relevant(check: Check, write: GuardedWrite): boolean {
  // SELECT ... FOR UPDATE and the UPDATE on the same client: the row stays locked in between.
  if (check.forUpdateReceiver !== undefined && write.receiver === check.forUpdateReceiver) return false;
  // Redis keeps the token and the value under different keys, so keys are not compared.
  if (check.readSink === write.sink && write.sink !== 'redis' && check.readTarget && write.target && check.readTarget !== write.target) {
    // The current token read from the authority or lease table is a lease check for any write.
    return TOKEN_REGISTRY.test(check.readTarget) || stores(write, check.field);
  }
  return true;
}

/** Tables that hold the current token or lease rather than the resource: `fence_authority`, `leases`. */
const TOKEN_REGISTRY = /fenc|authorit|lease|lock|token/i;

/**
 * A SERIALIZABLE transaction in the same function makes the check and the write one unit; so
 * does a transaction callback whose call asks for it (`$transaction(async (tx) => ..., { isolationLevel: 'Serializable' })`).
 */
function serializable(node: Node, sourceCode: SourceCode): boolean {
  const fn = enclosingFunction(node);
  const host = fn?.parent?.type === AST_NODE_TYPES.CallExpression && fn.parent.arguments.includes(fn as TSESTree.CallExpressionArgument) ? fn.parent : fn;
  const text = host ? sourceCode.getText(host) : '';
  return /\bSERIALIZABLE\b|isolationLevel:\s*['"]?(?:Serializable|SERIALIZABLE)|IsolationLevel\.Serializable/.test(text);
}

