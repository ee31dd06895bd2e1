/**
 * A section whose first step reads its row for writing inside a transaction a method decorator
 * manages (`@Transactional()` around the method, then `await this.orders.findForUpdate(id)` with
 * TypeORM's `pessimistic_write`). The row lock is held until the method's transaction ends, so
 * a stalled holder's later ORM writes commit before the next holder, blocked on the same row
 * lock, reads anything: like a transaction-scoped advisory lock, they cannot land late. A read
 * before the row lock (a check the next holder can make before the first commits) leaves the
 * section's writes due, and so do writes the ORM's transaction does not carry (Redis, HTTP, SQL
 * on another client).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, enclosingFunction, isFunctionNode, memberName, receiverPath, staticString, unwrap, walkPruned, type FunctionNode, type Node } from '../ast.js';
import { resolveImported, type ImportTable } from '../modules/imports.js';
import type { FunctionSummary } from '../modules/summaries.js';
import { ROW_WRITE_LOCKS, TRANSACTION_CALLBACK_METHOD, TRANSACTION_DECORATORS, type SinkFamily } from '../models/sinks.js';
import type { AcquireSite } from './acquires.js';
import { sqlTextOf } from './advisory-scope.js';

/** A lock mode as written: `'pessimistic_write'`, `LockMode.PESSIMISTIC_WRITE`. */
function isWriteLockMode(node: Node | undefined): boolean {
  if (!node || node.type === AST_NODE_TYPES.SpreadElement) return false;
  const mode = staticString(node) ?? (unwrap(node).type === AST_NODE_TYPES.MemberExpression ? memberName(unwrap(node)) : undefined);
  return mode !== undefined && ROW_WRITE_LOCKS.modes.test(mode);
}

/** `{ lock: { mode: 'pessimistic_write' } }`, `{ lockMode: LockMode.PESSIMISTIC_WRITE }` among a call's arguments. */
function hasLockOption(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((arg) => {
    const object = unwrap(arg);
    if (object.type !== AST_NODE_TYPES.ObjectExpression) return false;
    return object.properties.some((p) => {
      if (p.type !== AST_NODE_TYPES.Property || p.computed) return false;
      const key = p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : staticString(p.key);
      if (key === undefined || !ROW_WRITE_LOCKS.optionKeys.test(key)) return false;
      const value = unwrap(p.value as Node);
      // Sequelize `lock: true` reads `FOR UPDATE`.
      if (key === 'lock' && value.type === AST_NODE_TYPES.Literal && value.value === true) return true;
      if (value.type !== AST_NODE_TYPES.ObjectExpression) return isWriteLockMode(value);
      return value.properties.some((q) => q.type === AST_NODE_TYPES.Property && !q.computed && q.key.type === AST_NODE_TYPES.Identifier && q.key.name === 'mode' && isWriteLockMode(q.value as Node));
    });
  });
}

/**
 * Whether `call` takes rows for writing as written: a builder link `setLock(mode)` anywhere in
 * its chain, a lock option among its arguments, or `em.lock(entity, mode)`.
 */
export function readsRowForWrite(call: TSESTree.CallExpression): boolean {
  for (let link: Node = call; link.type === AST_NODE_TYPES.CallExpression; ) {
    const name = calleeName(link);
    if (name !== undefined && ROW_WRITE_LOCKS.builderMethods.test(name) && isWriteLockMode(link.arguments[0])) return true;
    if (name !== undefined && ROW_WRITE_LOCKS.lockMethods.test(name) && isWriteLockMode(link.arguments[1])) return true;
    if (hasLockOption(link)) return true;
    const callee = unwrap(link.callee);
    if (callee.type !== AST_NODE_TYPES.MemberExpression) break;
    link = unwrap(callee.object);
  }
  return false;
}

/** The ORM whose decorator runs the method around `node` in one transaction, if one does. */
function decoratedTransaction(node: Node, imports: ImportTable): SinkFamily | undefined {
  for (let n: Node | undefined = node.parent; n; n = n.parent) {
    if (n.type !== AST_NODE_TYPES.MethodDefinition) continue;
    for (const decorator of n.decorators ?? []) {
      const expression = unwrap(decorator.expression);
      const binding = resolveImported(expression.type === AST_NODE_TYPES.CallExpression ? expression.callee : expression, imports);
      const known = binding && TRANSACTION_DECORATORS.find((d) => d.package === binding.source && d.export === binding.exported);
      if (known) return known.family;
    }
    return undefined;
  }
  return undefined;
}

export interface RowLockedSection {
  /** The ORM whose transaction holds the row lock. */
  family: SinkFamily;
  /** Writes that start here or later are made with the row lock held. */
  from: number;
}

/**
 * The row lock the section's first awaited step takes in a decorator-managed transaction (see
 * above), or undefined. `summaryOf` answers for project functions the step calls.
 */
export function rowLockedSection(
  site: AcquireSite,
  imports: ImportTable,
  sourceCode: SourceCode,
  summaryOf: (call: TSESTree.CallExpression) => FunctionSummary | undefined,
): RowLockedSection | undefined {
  const family = decoratedTransaction(site.node, imports);
  if (!family) return undefined;
  // The first `await` of the section that is not the acquire itself, in source order.
  let first: TSESTree.AwaitExpression | undefined;
  walkPruned(site.scope, sourceCode.visitorKeys, (node) => {
    if (first || node.range[1] <= site.range[0] || node.range[0] >= site.range[1]) return false;
    if (node.type === AST_NODE_TYPES.AwaitExpression && node.range[0] >= site.range[0] && !(node.range[0] <= site.node.range[0] && site.node.range[1] <= node.range[1])) {
      first = node;
      return 'stop';
    }
    return true;
  });
  const step = first && unwrap(first.argument);
  if (step?.type !== AST_NODE_TYPES.CallExpression) return undefined;
  if (!readsRowForWrite(step) && summaryOf(step)?.locksRows !== true) return undefined;
  return { family, from: step.range[1] };
}

/** The first `await` of `fn`'s own body, in source order (not one of a function nested in it). */
function firstAwait(fn: FunctionNode, sourceCode: SourceCode): TSESTree.AwaitExpression | undefined {
  let first: TSESTree.AwaitExpression | undefined;
  walkPruned(fn.body, sourceCode.visitorKeys, (node) => {
    if (first) return 'stop';
    if (node !== fn.body && isFunctionNode(node)) return false;
    if (node.type === AST_NODE_TYPES.AwaitExpression) {
      first = node;
      return 'stop';
    }
    return true;
  });
  return first;
}

/** `SELECT ... FOR UPDATE` (or `FOR NO KEY UPDATE`) in SQL text: the rows it reads stay locked until the transaction ends. */
const SQL_ROW_WRITE_LOCK = /\bfor\s+(?:no\s+key\s+)?update\b/i;

/**
 * A step that takes rows for writing: an ORM read with a write lock (`readsRowForWrite`), or SQL
 * sent on the transaction that reads them `FOR UPDATE` (Prisma `tx.$queryRaw\`...\``, `tx.$queryRawUnsafe('...')`).
 */
function takesRowForWrite(step: Node): boolean {
  if (step.type === AST_NODE_TYPES.TaggedTemplateExpression) return SQL_ROW_WRITE_LOCK.test(sqlTextOf(step) ?? '');
  if (step.type !== AST_NODE_TYPES.CallExpression) return false;
  if (readsRowForWrite(step)) return true;
  const text = sqlTextOf(step);
  return text !== undefined && /^\s*(?:with\b[\s\S]*?)?select\b/i.test(text) && SQL_ROW_WRITE_LOCK.test(text);
}

/**
 * Whether a call runs on `name`: its receiver chain starts there (`m.save(...)`,
 * `m.getRepository(T).update(...)`), it is handed `name`, or its options name it as their
 * transaction (Sequelize `slot.update(values, { transaction: t })`).
 */
function runsOn(call: Node, name: string): boolean {
  if (call.type === AST_NODE_TYPES.TaggedTemplateExpression) return receiverPath(call.tag)[0] === name;
  if (call.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(call.callee);
  if (callee.type === AST_NODE_TYPES.MemberExpression && receiverPath(callee.object)[0] === name) return true;
  const isName = (n: Node) => {
    const v = unwrap(n);
    return v.type === AST_NODE_TYPES.Identifier && v.name === name;
  };
  return call.arguments.some((a) => {
    const v = unwrap(a);
    if (v.type !== AST_NODE_TYPES.ObjectExpression) return isName(v);
    return v.properties.some((p) => p.type === AST_NODE_TYPES.Property && !p.computed && p.key.type === AST_NODE_TYPES.Identifier && p.key.name === ROW_WRITE_LOCKS.transactionOption && isName(p.value as Node));
  });
}

/**
 * A write inside a transaction callback (`dataSource.transaction(async (m) => ...)`,
 * `prisma.$transaction(async (tx) => ...)`), in the section or in a helper it runs, whose first step reads its row for writing on
 * that transaction (`m.findOne(Tenant, { where, lock: { mode: 'pessimistic_write' } })`), made on
 * the same transaction after it: the row lock is held until the callback's transaction commits,
 * so the next holder, blocked on it, reads only after the write has landed.
 */
export function rowLockedInCallback(node: Node, sourceCode: SourceCode): boolean {
  for (let fn = enclosingFunction(node); fn; fn = enclosingFunction(fn)) {
    const holder = fn.parent;
    if (holder?.type !== AST_NODE_TYPES.CallExpression || !holder.arguments.includes(fn as TSESTree.CallExpressionArgument)) continue;
    // Wherever the section's lock was taken (here, or in a caller that reaches this helper), the
    // row lock is held from the read to the callback's commit, and the write sits between.
    if (!TRANSACTION_CALLBACK_METHOD.test(calleeName(holder) ?? '')) continue;
    const param = fn.params[0];
    if (param?.type !== AST_NODE_TYPES.Identifier) return false;
    const first = firstAwait(fn, sourceCode);
    const step = first && unwrap(first.argument);
    if (!step || !takesRowForWrite(step) || !runsOn(step, param.name)) return false;
    return node.range[0] >= step.range[1] && runsOn(node, param.name);
  }
  return false;
}
