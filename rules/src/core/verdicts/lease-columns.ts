/**
 * Leases kept by hand in a record: a timestamp field (`moveStarted`, `lockedAt`, `claimedAt`)
 * is compared with the clock in application code ("is it still held?"), then a separate write
 * stores a fresh start in it. Two workers can both pass the check before either writes, and a
 * worker whose lease ran out can still write after another took it over. The release of such a
 * lease clears the field (`moveStarted: null`) with a filter that names only the record.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { enclosingFunction, memberName, propertyKeyName, unwrap, walk, type Node } from '../ast.js';
import { GLOBAL_CLOCK_CALLS } from '../models/clock-sources.js';
import { LOCK_KEY_NAME } from '../models/locks.js';
import type { Check } from './check-then-write.js';
import { guardsOf } from './guards.js';

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

/** `Date.now()`, `new Date()`, `new Date().getTime()`: a reading of the wall clock. */
export function isClockReading(node: Node): boolean {
  const n = unwrap(node);
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

/**
 * Lease checks on a record field: the comparison with the clock, the regions it guards, and the
 * field, for the write that then stores that field (a lease taken in two steps). Only where the
 * code says it is a lease: the function is named for taking one, or the field for being one.
 */
export function leaseColumnChecks(sourceCode: SourceCode, out: Check[]): string[] {
  const fields = new Set<string>();
  walk(sourceCode.ast, sourceCode.visitorKeys, (node) => {
    if (node.type !== AST_NODE_TYPES.BinaryExpression) return;
    const field = leaseField(node);
    if (!field) return;
    if (!TAKING_FUNCTION.test(functionName(enclosingFunction(node)) ?? '') && !LOCK_KEY_NAME.test(field) && !/(?:claim|lease|lock)/i.test(field)) return;
    for (const guard of guardsOf(node, sourceCode)) {
      out.push({ kind: 'storedToken', node, regions: guard.regions, field, needsStore: true });
      fields.add(field);
    }
  });
  return [...fields];
}
