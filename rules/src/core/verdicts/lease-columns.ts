/**
 * Leases kept by hand in a record: a timestamp field (`moveStarted`, `lockedAt`, `claimedAt`)
 * is compared with the clock in application code ("is it still held?"), then a separate write
 * stores a fresh start in it. Two workers can both pass the check before either writes, and a
 * worker whose lease ran out can still write after another took it over. The release of such a
 * lease clears the field (`moveStarted: null`) with a filter that names only the record.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, constValueBefore, enclosingFunction, memberName, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
import { OWNER_COLUMN_NAME } from '../models/lock-tables.js';
import { fileNodes } from '../file-nodes.js';
import { GLOBAL_CLOCK_CALLS } from '../models/clock-sources.js';
import { LOCK_KEY_NAME } from '../models/locks.js';
import type { Check } from './check-then-write.js';
import { guardsOf } from './guards.js';
import { readObjectWrite } from '../sinks/object-writes.js';
import { readSqlCall } from '../sinks/sql-writes.js';
import type { ReceiverTable } from '../modules/receivers.js';

const ORDERING = new Set(['<', '<=', '>', '>=']);
/** Functions named for taking a lease: what their check guards is the acquire. */
const TAKING_FUNCTION = /^(?:lock|acquire|claim|take|grab|obtain|lease|try(?:Lock|Acquire|Claim|Take))/i;

function dotted(node: Node): string | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name;
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const name = memberName(n);
    const object = dotted(n.object);
    return name && object ? `${object}.${name}` : undefined;
  }
  return undefined;
}

/**
 * A record field that holds the database's clock, read with the row (`SELECT expires_at, NOW() AS now`):
 * comparing another field with it is the same check as comparing with `Date.now()`.
 */
const DATABASE_NOW_FIELD = /^(?:now|db_?now|current_?time(?:stamp)?|server_?time)$/i;

/** `Date.now()`, `new Date()`, `new Date().getTime()`: a reading of the wall clock; `row.now`: the database's. */
export function isClockReading(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.MemberExpression && !n.computed && n.object.type !== AST_NODE_TYPES.ThisExpression && DATABASE_NOW_FIELD.test(memberName(n) ?? '')) return true;
  if (n.type === AST_NODE_TYPES.NewExpression) return dotted(n.callee) === 'Date' && n.arguments.length === 0;
  if (n.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(n.callee);
  if (callee.type === AST_NODE_TYPES.MemberExpression && /^(?:getTime|valueOf)$/.test(memberName(callee) ?? '')) return isClockReading(callee.object);
  const name = dotted(callee);
  return name !== undefined && GLOBAL_CLOCK_CALLS.get(name)?.kind === 'clock';
}

/** The record fields (`location.moveStarted`) an expression reads, and whether it reads the clock. */
function operands(node: Node, fields: string[]): boolean {
  const n = unwrap(node);
  if (isClockReading(n)) return true;
  if (n.type === AST_NODE_TYPES.BinaryExpression) {
    const left = n.left.type === AST_NODE_TYPES.PrivateIdentifier ? false : operands(n.left, fields);
    return operands(n.right, fields) || left;
  }
  if (n.type === AST_NODE_TYPES.MemberExpression && !n.computed && n.object.type !== AST_NODE_TYPES.ThisExpression) {
    const name = memberName(n);
    if (name) fields.push(name);
  }
  return false;
}

/** A field the comparison reads off a record against the clock (`Date.now() - row.lockedAt < TTL`). */
function leaseField(comparison: TSESTree.BinaryExpression): string | undefined {
  if (!ORDERING.has(comparison.operator) || comparison.left.type === AST_NODE_TYPES.PrivateIdentifier) return undefined;
  const fields: string[] = [];
  const clock = operands(comparison.left, fields) || operands(comparison.right, fields);
  return clock && fields.length === 1 ? fields[0] : undefined;
}

function functionName(fn: Node | undefined): string | undefined {
  if (!fn) return undefined;
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration) return fn.id?.name;
  const parent = fn.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) return parent.id.name;
  if (parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.Property || parent?.type === AST_NODE_TYPES.PropertyDefinition) return propertyKeyName(parent as TSESTree.Property);
  return undefined;
}

/** Per tree: the checks and fields found, read by two rule families; they depend on the tree alone. */
const found = new WeakMap<SourceCode, { checks: readonly Check[]; fields: readonly string[] }>();

/**
 * Lease checks on a record field: the comparison with the clock, the regions it guards, and the
 * field, for the write that then stores that field (a lease taken in two steps). Only where the
 * code says it is a lease: the function is named for taking one, or the field for being one.
 * Appends the checks to `out` and returns the fields; shared results, do not mutate them.
 */
export function leaseColumnChecks(sourceCode: SourceCode, out: Check[]): string[] {
  let known = found.get(sourceCode);
  if (!known) {
    known = findLeaseColumnChecks(sourceCode);
    found.set(sourceCode, known);
  }
  out.push(...known.checks);
  return [...known.fields];
}

function findLeaseColumnChecks(sourceCode: SourceCode): { checks: Check[]; fields: string[] } {
  const checks: Check[] = [];
  const fields = new Set<string>();
  for (const node of fileNodes(sourceCode, true)) {
    if (node.type !== AST_NODE_TYPES.BinaryExpression) continue;
    const field = leaseField(node);
    if (!field) continue;
    if (!TAKING_FUNCTION.test(functionName(enclosingFunction(node)) ?? '') && !LOCK_KEY_NAME.test(field) && !/(?:claim|lease|lock)/i.test(field)) continue;
    for (const guard of guardsOf(node, sourceCode)) {
      checks.push({ kind: 'storedToken', node, regions: guard.regions, field, needsStore: true, takesLease: true });
      fields.add(field);
    }
  }
  return { checks, fields: [...fields] };
}

/** SQL columns that can hold a claim (see `claimedLeaseColumns`). */
const LEASE_COLUMN_WORD = /lock|lease|claim/i;
/** A stamp set once while empty that is no lease: a soft delete or archival (`deletedAt: null` -> `new Date()`). */
const SOFT_DELETE_FIELD = /^(?:deleted|removed|archived|trashed|discarded)_?(?:at|on|date|time)?$/i;
const CLAIMING_WRITE = /^(?:update|updateOne|updateMany|findOneAndUpdate|findAndModify|execute|executeTakeFirst)$/;

/** `field: null`, `field: IsNull()`, `field: { equals: null }`, `field: { $eq: null }`: the filter asks for an empty field. */
function requiresEmpty(filter: TSESTree.ObjectExpression | undefined, field: string): boolean {
  const value = propertyValue(filter, field);
  const n = value && unwrap(value);
  if (!n) return false;
  if (n.type === AST_NODE_TYPES.Literal && n.value === null) return true;
  if (n.type === AST_NODE_TYPES.CallExpression && calleeName(n) === 'IsNull') return true;
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    const inner = propertyValue(n, /^(?:equals|\$eq)$/);
    const v = inner && unwrap(inner);
    return v?.type === AST_NODE_TYPES.Literal && v.value === null;
  }
  return false;
}

/** A clock reading, or a `const` bound to one before it (`const now = new Date(); ... lockedAt: now`). */
function clockValue(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const init = constValueBefore(n);
    return init !== undefined && isClockReading(init);
  }
  return isClockReading(n);
}

/** A string literal (`'pending'`). */
function stringLiteral(node: Node | undefined): string | undefined {
  const n = node && unwrap(node);
  return n?.type === AST_NODE_TYPES.Literal && typeof n.value === 'string' ? n.value : undefined;
}

/**
 * The write moves the record from one state to another on the condition that it is in the first
 * (`{ status: 'pending' }` -> `$set: { status: 'publishing' }`): only one worker's move lands.
 */
function movesState(filter: TSESTree.ObjectExpression | undefined, values: TSESTree.ObjectExpression): boolean {
  for (const p of values.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const field = propertyKeyName(p);
    const to = stringLiteral(p.value);
    const from = field === undefined ? undefined : stringLiteral(propertyValue(filter, field));
    if (to !== undefined && from !== undefined && to !== from) return true;
  }
  return false;
}

/** A holder stored by the write (`lockedBy: workerId`): a value that is neither empty nor a constant. */
function storesHolder(p: TSESTree.Property): boolean {
  if (!OWNER_COLUMN_NAME.test(propertyKeyName(p) ?? '')) return false;
  const value = unwrap(p.value);
  return value.type !== AST_NODE_TYPES.Literal && !(value.type === AST_NODE_TYPES.Identifier && value.name === 'undefined');
}

/**
 * Record fields claimed as leases: one write stores the clock in the field on the condition that
 * it is empty (`.set({ lockedAt: new Date() }).andWhere('lockedAt IS NULL')`,
 * `update({ id, lockedAt: null }, { lockedAt: new Date() })`). Only one worker's claim lands, and
 * whoever holds it clears the field when done: that field is a lease whatever it is called.
 * So are the fields of a claim that moves a queue row out of a state while it stores who holds it
 * and when (`{ status: 'pending' }` -> `{ status: 'running', lockedBy: me, lockedAt: now }`): a
 * reaper returns claims older than a threshold, after which another worker may hold the row.
 */
export function claimedLeaseFields(calls: readonly TSESTree.CallExpression[], receivers: ReceiverTable): string[] {
  const fields = new Set<string>();
  for (const call of calls) {
    if (!CLAIMING_WRITE.test(calleeName(call) ?? '')) continue;
    const write = readObjectWrite(call, receivers);
    if (!write || write.kind !== 'update' || !write.values) continue;
    const values = write.values.properties.filter((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property);
    if (values.some(storesHolder) && movesState(write.filter, write.values)) {
      const clocked = values.filter((p) => clockValue(p.value));
      if (clocked.length > 0) {
        for (const p of [...clocked, ...values.filter(storesHolder)]) {
          const field = propertyKeyName(p);
          if (field) fields.add(field);
        }
      }
    }
    for (const p of values) {
      if (!clockValue(p.value)) continue;
      const field = propertyKeyName(p);
      if (!field) continue;
      if (SOFT_DELETE_FIELD.test(field)) continue;
      if (requiresEmpty(write.filter, field)) fields.add(field);
      // A builder's where text: `.andWhere('lockedAt IS NULL')`, `.where('task.locked_at is null')`.
      const empty = new RegExp(`(?:^|[\\s.("\x60])${field}["\x60]?\\s+is\\s+null\\b`, 'i');
      for (const link of write.links) {
        if (!/^(?:where|andWhere)$/.test(calleeName(link) ?? '')) continue;
        const text = link.arguments[0] ? staticString(link.arguments[0]) : undefined;
        if (text !== undefined && empty.test(text)) fields.add(field);
      }
    }
  }
  return [...fields];
}

const DATABASE_CLOCK = new Set(['now', 'current_timestamp', 'clock_timestamp', 'localtimestamp', 'statement_timestamp', 'transaction_timestamp']);

/**
 * The same claim in SQL text: `UPDATE jobs SET locked_at = NOW() WHERE id = (SELECT ... WHERE
 * locked_at IS NULL ... FOR UPDATE SKIP LOCKED)` stores the clock in a column on the condition that
 * it is empty (the database's clock, or the caller's bound as a parameter). A soft delete has the
 * same form (`SET deleted_at = NOW() WHERE deleted_at IS NULL`), so only a column named for a lock,
 * lease or claim counts. Column names as written.
 */
export function claimedLeaseColumns(nodes: ReadonlyArray<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression>, sourceCode: SourceCode, isSqlCall: (node: TSESTree.CallExpression) => boolean): string[] {
  const columns = new Set<string>();
  if (!/\bis\s+null\b/i.test(sourceCode.text)) return [];
  for (const node of nodes) {
    if (node.type === AST_NODE_TYPES.CallExpression && !isSqlCall(node)) continue;
    const call = readSqlCall(node, sourceCode);
    for (const statement of call?.source.analysis.statements ?? []) {
      if (statement.kind !== 'update') continue;
      for (const { column, value } of statement.assignments) {
        const clock = value.functions.some((f) => DATABASE_CLOCK.has(f)) || value.params.some((n) => {
          const bound = call!.param(n);
          return bound !== undefined && clockValue(bound);
        });
        if (clock && LEASE_COLUMN_WORD.test(column) && statement.conditions.some((c) => c.op === 'IS NULL' && (c.column.split('.').pop() ?? c.column) === column)) columns.add(column);
      }
    }
  }
  return [...columns];
}
