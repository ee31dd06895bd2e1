/**
 * Purges of aged rows: a delete, or an update that only clears fields (sets them to null), of the
 * rows whose time field is below a cutoff read from the clock (`deleteMany({ where: { expiresAt:
 * { lt: new Date() } } })`, `DELETE FROM sessions WHERE expires_at < now()`, `ZREMRANGEBYSCORE key
 * -inf <now>`, Drizzle `.where(lt(t.expiresAt, new Date()))`). What such a write removes has aged out for every holder: a late holder's cutoff is
 * no later than a newer holder's, so it removes a subset of what the newer one removes too, and
 * puts nothing back. It is no late write.
 *
 * Only the clock's cutoff, compared as an upper bound in a conjunct of the write's own filter, and
 * only removal: an update that stores any other value by the same filter (`SET state = 'overdue'
 * WHERE due_at < now()`, a lease claim `SET owner = $1 WHERE expires_at < now()`) changes rows a
 * newer holder may have moved on, and stays a write to fence. So does emptying the field that
 * names a row's holder (`SET held_by = NULL WHERE held_at < ...`): that frees claims for the next
 * claimant, a release the lock rules judge, not a purge.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, constInitializer, memberName, propertyKeyName, staticString, unwrap, type Node } from '../ast.js';
import { CLOCK_STEP_BACK_METHODS, DATE_STEP_BACK_FUNCTION, SQL_CLOCK_FUNCTIONS, SQL_TIME_STEP_FUNCTIONS, VALUE_KEEPING_FUNCTIONS } from '../models/clock-sources.js';
import { ROW_HOLDER_FIELD } from '../models/lock-tables.js';
import { clockImports, clockSourceOf } from '../modules/value-origin.js';
import type { SqlStatementInfo } from '../sql/types.js';
import type { KnexWrite } from './knex-writes.js';
import type { ObjectWrite } from './object-writes.js';
import type { SqlCall } from './sql-writes.js';

/**
 * A value read from the clock at run time, or a point before it: `new Date()`, `Date.now()`,
 * `new Date(Date.now() - ttl)`, `new Date(now.getTime() - age)`, `dayjs().subtract(7, 'day')`,
 * `subDays(new Date(), 90)`, and a `const` holding one.
 */
export function isClockCutoff(node: Node, sourceCode: SourceCode, depth = 0): boolean {
  if (depth > 8) return false;
  const n = unwrap(node);
  const again = (m: Node | undefined) => !!m && m.type !== AST_NODE_TYPES.SpreadElement && isClockCutoff(m, sourceCode, depth + 1);
  switch (n.type) {
    case AST_NODE_TYPES.Identifier: {
      const init = constInitializer(n, sourceCode);
      return !!init && again(init);
    }
    case AST_NODE_TYPES.NewExpression:
      if (isClock(n, sourceCode)) return true;
      // `new Date(Date.now() - ttl)`
      return n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'Date' && n.arguments.length === 1 && again(n.arguments[0]);
    case AST_NODE_TYPES.BinaryExpression:
      // `Date.now() - ttl`: a point before now.
      return n.operator === '-' && again(n.left);
    case AST_NODE_TYPES.TemplateLiteral:
      return n.expressions.length === 1 && n.quasis.every((q) => q.value.cooked === '') && again(n.expressions[0]);
    case AST_NODE_TYPES.CallExpression: {
      if (isClock(n, sourceCode)) return true;
      const callee = unwrap(n.callee);
      if (callee.type === AST_NODE_TYPES.Identifier) {
        if (VALUE_KEEPING_FUNCTIONS.has(callee.name)) return n.arguments.length === 1 && again(n.arguments[0]);
        return DATE_STEP_BACK_FUNCTION.test(callee.name) && again(n.arguments[0]);
      }
      if (callee.type === AST_NODE_TYPES.MemberExpression) return CLOCK_STEP_BACK_METHODS.has(memberName(callee) ?? '') && again(callee.object);
      return false;
    }
    default:
      return false;
  }
}

/** The clock itself, by the shared clock catalog: `new Date()`, `Date.now()`, `dayjs()` through its import. */
function isClock(node: TSESTree.CallExpression | TSESTree.NewExpression, sourceCode: SourceCode): boolean {
  return clockSourceOf(node, sourceCode, clockImports(sourceCode))?.kind === 'clock';
}

/** `null`, or Prisma's `Prisma.DbNull` / `Prisma.JsonNull`: a value that clears a field. */
function isClearing(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return n.value === null;
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    // Prisma `{ set: null }`.
    return n.properties.length === 1 && n.properties[0].type === AST_NODE_TYPES.Property && propertyKeyName(n.properties[0]) === 'set' && isClearing(n.properties[0].value);
  }
  return n.type === AST_NODE_TYPES.MemberExpression && /^(?:DbNull|JsonNull)$/.test(memberName(n) ?? '');
}

/** Every property of a values object clears its field, none of them a holder's. */
function clearsOnly(values: TSESTree.ObjectExpression | undefined): boolean {
  return !!values && values.properties.length > 0 && values.properties.every((p) => p.type === AST_NODE_TYPES.Property && isClearing(p.value) && !ROW_HOLDER_FIELD.test(propertyKeyName(p) ?? ''));
}

/** An upper-bound filter value on the clock: Prisma/MongoDB `{ lt: cutoff }`, Sequelize `{ [Op.lt]: cutoff }`, TypeORM `LessThan(cutoff)`. */
function belowClock(node: Node, sourceCode: SourceCode): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.CallExpression) {
    return /^(?:LessThan|LessThanOrEqual)$/.test(calleeName(n) ?? '') && !!n.arguments[0] && n.arguments[0].type !== AST_NODE_TYPES.SpreadElement && isClockCutoff(n.arguments[0], sourceCode);
  }
  if (n.type !== AST_NODE_TYPES.ObjectExpression) return false;
  return n.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return false;
    const key = p.computed && p.key.type === AST_NODE_TYPES.MemberExpression ? memberName(p.key) : propertyKeyName(p);
    return /^\$?(?:lt|lte)$/.test(key ?? '') && isClockCutoff(p.value, sourceCode);
  });
}

/** A filter one of whose own conjuncts keeps only rows below the clock (also inside an `AND` list). */
function filterBelowClock(filter: TSESTree.ObjectExpression, sourceCode: SourceCode): boolean {
  return filter.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return false;
    const key = propertyKeyName(p);
    if (key === 'AND' || key === '$and') {
      const list = unwrap(p.value);
      return list.type === AST_NODE_TYPES.ArrayExpression && list.elements.some((e) => !!e && unwrap(e).type === AST_NODE_TYPES.ObjectExpression && filterBelowClock(unwrap(e) as TSESTree.ObjectExpression, sourceCode));
    }
    if (key === 'OR' || key === '$or' || key === 'NOT' || key === '$nor' || key === '$not') return false;
    return belowClock(p.value, sourceCode);
  });
}

/** An object-API delete, or update that only clears fields, of the records aged out by the clock. */
export function agedObjectPurge(write: ObjectWrite, sourceCode: SourceCode): boolean {
  if (write.operations || write.record) return false;
  if (write.kind !== 'delete' && !(write.kind === 'update' && clearsUpdate(write))) return false;
  if (write.filter) return filterBelowClock(write.filter, sourceCode);
  return write.links.length > 0 && chainBelowClock(write.links, sourceCode);
}

/**
 * A builder chain whose `where` keeps only rows below the clock, with no `or`: Drizzle
 * `.where(lt(t.expiresAt, new Date()))`, also as one argument of `and(...)`; Kysely
 * `.where('expires_at', '<', new Date())`.
 */
function chainBelowClock(links: readonly TSESTree.CallExpression[], sourceCode: SourceCode): boolean {
  if (links.some((l) => /^or/i.test(calleeName(l) ?? ''))) return false;
  const below = (node: Node, depth: number): boolean => {
    const n = unwrap(node);
    if (n.type !== AST_NODE_TYPES.CallExpression || depth > 4) return false;
    const name = calleeName(n) ?? '';
    if (name === 'and') return n.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && below(a, depth + 1));
    const cutoff = n.arguments[1];
    return (name === 'lt' || name === 'lte') && n.arguments.length === 2 && !!cutoff && cutoff.type !== AST_NODE_TYPES.SpreadElement && isClockCutoff(cutoff, sourceCode);
  };
  return links.some((l) => {
    if (!/^(?:where|andWhere)$/.test(calleeName(l) ?? '')) return false;
    const [a, b, c] = l.arguments;
    if (l.arguments.length === 3) {
      const op = b && staticString(b);
      return (op === '<' || op === '<=') && !!c && c.type !== AST_NODE_TYPES.SpreadElement && isClockCutoff(c, sourceCode);
    }
    return l.arguments.length === 1 && !!a && a.type !== AST_NODE_TYPES.SpreadElement && below(a, 0);
  });
}

/** The update stores nothing but nulls: its values, and for MongoDB an update document of `$set` nulls and `$unset` only. */
function clearsUpdate(write: ObjectWrite): boolean {
  if (write.api === 'mongodb' && write.node.type === AST_NODE_TYPES.CallExpression) {
    const update = write.node.arguments[1] && unwrap(write.node.arguments[1]);
    if (update?.type !== AST_NODE_TYPES.ObjectExpression || update.properties.length === 0) return false;
    return update.properties.every((p) => {
      if (p.type !== AST_NODE_TYPES.Property) return false;
      const key = propertyKeyName(p);
      const value = unwrap(p.value);
      if (key === '$unset') return value.type === AST_NODE_TYPES.ObjectExpression && value.properties.every((q) => q.type === AST_NODE_TYPES.Property && !ROW_HOLDER_FIELD.test(propertyKeyName(q) ?? ''));
      return key === '$set' && value.type === AST_NODE_TYPES.ObjectExpression && clearsOnly(value);
    });
  }
  return clearsOnly(write.values);
}

const SQL_CLOCK_KEYWORD = /^\s*\(?\s*(?:current_timestamp|current_date|localtimestamp)\b/i;

/** A SQL value that is the clock or a point before it: `now()`, `NOW() - INTERVAL '1 day'`, `$2` bound to `new Date()`. */
function sqlClockCutoff(value: SqlStatementInfo['conditions'][number]['value'], call: SqlCall, sourceCode: SourceCode): boolean {
  if (value.columns.length > 0 || /\+/.test(value.text)) return false;
  if (!value.functions.every((f) => SQL_CLOCK_FUNCTIONS.has(f) || SQL_TIME_STEP_FUNCTIONS.has(f))) return false;
  const clock = value.functions.some((f) => SQL_CLOCK_FUNCTIONS.has(f)) || SQL_CLOCK_KEYWORD.test(value.text);
  if (value.params.length === 0) return clock;
  return value.params.every((n) => {
    const bound = call.param(n);
    if (!bound) return false;
    // `expires_at < $1` with `Date.now()`, or `created_at < now() - $1::interval` with a literal age.
    return isClockCutoff(bound, sourceCode) || (clock && (staticString(bound) !== undefined || unwrap(bound).type === AST_NODE_TYPES.Literal));
  });
}

/** A SQL DELETE, or UPDATE that only sets columns to NULL, whose own WHERE keeps rows below the clock, with no OR. */
export function agedSqlPurge(statement: SqlStatementInfo, call: SqlCall, sourceCode: SourceCode): boolean {
  if (statement.kind === 'update') {
    if (statement.upsert || statement.assignments.length === 0 || !statement.assignments.every((a) => /^\s*null\s*$/i.test(a.value.text) && !ROW_HOLDER_FIELD.test(a.column))) return false;
  } else if (statement.kind !== 'delete') {
    return false;
  }
  const where = statement.edit.whereRange;
  if (!where) return false;
  const text = call.source.analysis.text.slice(where.start, where.end);
  if (/\b(?:OR|NOT)\b/i.test(text)) return false;
  return statement.conditions.some(
    (c) => (c.op === '<' || c.op === '<=') && (c.relation === undefined || statement.table === undefined || c.relation === statement.table) && sqlClockCutoff(c.value, call, sourceCode),
  );
}

/** knex: `.where('expires_at', '<', new Date()).del()` (or an update of nulls), with no `orWhere`. */
export function agedKnexPurge(write: KnexWrite, sourceCode: SourceCode): boolean {
  if (write.kind !== 'delete' && !(write.kind === 'update' && clearsOnly(write.values))) return false;
  if (write.links.some((l) => /^or/i.test(calleeName(l) ?? ''))) return false;
  return write.links.some((l) => {
    if (!/^(?:where|andWhere)$/.test(calleeName(l) ?? '') || l.arguments.length !== 3) return false;
    const op = staticString(l.arguments[1]);
    return (op === '<' || op === '<=') && isClockCutoff(l.arguments[2], sourceCode);
  });
}

/**
 * Redis `ZREMRANGEBYSCORE key -inf <now>`: every member scored below the clock, members scored by
 * time that have aged out. Only from `-inf` (also `-Infinity`): a range with a floor of its own
 * (`0`, a score handed in) removes a band the holder chose, and stays a write.
 */
export function agedScoreTrim(call: TSESTree.CallExpression, command: string, sourceCode: SourceCode): boolean {
  if (command !== 'zremrangebyscore' || call.arguments.length !== 3) return false;
  const [, min, max] = call.arguments;
  if (min.type === AST_NODE_TYPES.SpreadElement || max.type === AST_NODE_TYPES.SpreadElement) return false;
  const low = unwrap(min);
  const lowest = /^-inf$/i.test(staticString(low) ?? '') || (low.type === AST_NODE_TYPES.UnaryExpression && low.operator === '-' && sourceCode.getText(low.argument) === 'Infinity');
  return lowest && isClockCutoff(max, sourceCode);
}
