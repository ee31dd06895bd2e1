/**
 * What every sink family asks when it judges a write: is the value compared with column C a
 * fence token, and is C the column that stores it? A column is a token column because of
 * what the write does with it, whatever it is called: it is compared with a token (known by
 * where the value comes from), or the write compares it with a value and stores that same
 * value in it (`revision < $2 ... SET revision = $2`), or compares it for equality and bumps
 * it (`version = $3 ... SET version = version + 1`). Column names are the last resort.
 */
import { AST_NODE_TYPES } from '@typescript-eslint/utils';
import { unwrap, type Node } from '../ast.js';
import { isCompareAndSetColumnName, isTimeName, isTokenColumnName } from '../models/token-names.js';
import { receiverKey } from '../modules/receivers.js';

export interface FenceJudgeOptions {
  /** Whether a JS value is a fence token, by where it comes from. */
  isTokenValue(node: Node): boolean;
  /** Whether a JS value is known not to be one (a clock reading, a random id). */
  isNonTokenValue?(node: Node): boolean;
  /** A column the caller knows holds the token here (the field a check read it from). */
  knownColumn?: string;
}

/** `r.fence_token` -> `fence_token`. */
export function bareColumn(column: string): string {
  return column.split('.').pop() ?? column;
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `fenceToken` and `fence_token` name the same field. */
export function sameColumn(a: string, b: string): boolean {
  const x = bareColumn(a);
  const y = bareColumn(b);
  return x === y || snake(x) === snake(y);
}

/** Last resort: a column whose name says it holds the accepted token (or the one the caller knows). */
export function isTokenColumnByName(column: string, options: Pick<FenceJudgeOptions, 'knownColumn'>): boolean {
  const bare = bareColumn(column);
  if (options.knownColumn !== undefined && sameColumn(bare, options.knownColumn)) return true;
  return isTokenColumnName(bare) || isTokenColumnName(snake(bare));
}

/** Last resort for equality: a holder or version column (`lease_owner = $2`, `version = $3`) makes the write compare-and-set. */
export function isCompareAndSetColumnByName(column: string): boolean {
  const bare = bareColumn(column);
  return isCompareAndSetColumnName(bare) || isCompareAndSetColumnName(snake(bare));
}

/**
 * A column compared with a value and assigned that same value can only move forward: a fence,
 * unless the column holds a time (`updated_at < $2 ... SET updated_at = $2` is last-write-wins by
 * clock, which a late writer with a fresh timestamp still wins).
 */
export function isMonotonicColumn(column: string): boolean {
  return !isTimeName(bareColumn(column));
}

/** Two JS expressions naming the same value: `t` and `t`, `lease.fenceToken` and `lease.fenceToken`. */
export function sameValueExpression(a: Node, b: Node): boolean {
  const x = unwrap(a);
  const y = unwrap(b);
  if (x === y) return true;
  if (x.type === AST_NODE_TYPES.Literal || y.type === AST_NODE_TYPES.Literal) return false;
  const kx = receiverKey(x);
  return kx !== undefined && kx === receiverKey(y);
}

/** `{ increment: 1 }` (Prisma), `version + 1`: a value that bumps the column it is assigned to. */
export function isIncrement(value: Node | undefined, column: string): boolean {
  if (!value) return false;
  const v = unwrap(value);
  if (v.type === AST_NODE_TYPES.ObjectExpression) {
    return v.properties.some((p) => p.type === AST_NODE_TYPES.Property && !p.computed && p.key.type === AST_NODE_TYPES.Identifier && p.key.name === 'increment');
  }
  // knex `db.raw('version + 1')`, Sequelize `literal('version + 1')`.
  if (v.type === AST_NODE_TYPES.CallExpression && v.arguments[0]?.type === AST_NODE_TYPES.Literal && typeof v.arguments[0].value === 'string') {
    const m = /^\s*"?([\w.]+)"?\s*\+\s*\d+\s*$/.exec(v.arguments[0].value);
    return !!m && sameColumn(m[1], column);
  }
  if (v.type === AST_NODE_TYPES.BinaryExpression && v.operator === '+') {
    const left = unwrap(v.left);
    const key = left.type === AST_NODE_TYPES.MemberExpression || left.type === AST_NODE_TYPES.Identifier ? receiverKey(left) : undefined;
    return key !== undefined && sameColumn(key, column) && unwrap(v.right).type === AST_NODE_TYPES.Literal;
  }
  return false;
}
