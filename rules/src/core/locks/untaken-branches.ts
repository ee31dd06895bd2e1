/**
 * The branch a failed try-lock takes. A try-lock (`pg_try_advisory_lock`, `SET NX`, a helper that
 * resolves to whether it got the lock) goes on whether it got the lock or not, and the code tells
 * the two apart by testing its result: `if (!acquired) { return onBusy(); }`, `if (ok) {...} else
 * {...}`, `rowCount === 0 ? skip() : run()`. The branch that runs when the test says the lock was
 * not taken holds no lock: writes there are not in the critical section, and a parameter called
 * there is no callback that runs under the lock.
 *
 * The result is followed into the names read from it in the same function: the binding itself,
 * names destructured from it (`const { rows } = await q(...)`), and `const`s whose value is a
 * member read off one of those (`const acquired = res.rows[0]?.acquired ?? false`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { contains, enclosingFunction, memberName, unwrap, type Node } from '../ast.js';
import { ACQUIRED_RESULT_MEMBER } from '../models/locks.js';

type Binding = TSESTree.VariableDeclarator | TSESTree.AssignmentExpression | undefined;
type Range = TSESTree.Range;

/** What a section needs for membership: its range and the untaken branches inside it. */
interface SectionLike {
  range: Range;
  gaps?: readonly Range[];
}

/** Whether `node` runs in the section: inside its range and in none of its untaken branches. */
export function inSection(site: SectionLike, node: Node): boolean {
  return contains(site.range, node) && !(site.gaps ?? []).some((gap) => contains(gap, node));
}

/** The section's range with its untaken branches cut out, as disjoint ranges in source order. */
export function sectionRanges(site: SectionLike): Range[] {
  if (!site.gaps || site.gaps.length === 0) return [site.range];
  const out: Range[] = [];
  let start = site.range[0];
  for (const gap of [...site.gaps].sort((a, b) => a[0] - b[0])) {
    if (gap[1] <= start) continue;
    if (gap[0] > start) out.push([start, Math.min(gap[0], site.range[1])]);
    start = Math.max(start, gap[1]);
  }
  if (start < site.range[1]) out.push([start, site.range[1]]);
  return out;
}

/** Members of a try-lock's result that say whether it was taken: `acquired`, `locked`, a row count, the function's own column. */
const TAKEN_MEMBER = /^(?:locked|isLocked|rowCount|affectedRows|affected|count|modifiedCount|matchedCount|nModified|length|rows|pg_try_advisory_lock|pg_try_advisory_xact_lock)$/;

/** Identifiers bound by a declarator's pattern (`{ rows }`, `[first]`, `{ a: { b } }`). */
function patternNames(pattern: Node, out: Set<string>): void {
  switch (pattern.type) {
    case AST_NODE_TYPES.Identifier:
      out.add(pattern.name);
      break;
    case AST_NODE_TYPES.ObjectPattern:
      for (const p of pattern.properties) patternNames(p.type === AST_NODE_TYPES.RestElement ? p.argument : p.value, out);
      break;
    case AST_NODE_TYPES.ArrayPattern:
      for (const e of pattern.elements) if (e) patternNames(e, out);
      break;
    case AST_NODE_TYPES.AssignmentPattern:
      patternNames(pattern.left, out);
      break;
    case AST_NODE_TYPES.RestElement:
      patternNames(pattern.argument, out);
      break;
    default:
      break;
  }
}

/** A falsy or boolean fallback (`?? false`, `|| null`, `?? 0`) that does not change what the value says. */
function isFallback(node: Node): boolean {
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.Literal && (n.value === false || n.value === null || n.value === 0 || n.value === '');
}

/** `x`, `x.rows[0]?.acquired`, `x ?? false`, `Boolean(x)`: a reading of the result or a name taken from it, `acquire` itself included. */
function readsResult(node: Node, names: ReadonlySet<string>, acquire: Node): boolean {
  const n = unwrap(node);
  if (n === acquire) return true;
  if (n.type === AST_NODE_TYPES.Identifier) return names.has(n.name);
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    // Only members that report the outcome, down to a name read from the result (`res.rows[0].acquired`).
    const name = memberName(n);
    const outcome = n.computed ? n.property.type === AST_NODE_TYPES.Literal && typeof n.property.value === 'number' : name !== undefined && (ACQUIRED_RESULT_MEMBER.test(name) || TAKEN_MEMBER.test(name));
    return outcome && readsResult(n.object, names, acquire);
  }
  if (n.type === AST_NODE_TYPES.LogicalExpression && (n.operator === '??' || n.operator === '||')) return isFallback(n.right) && readsResult(n.left, names, acquire);
  if (n.type === AST_NODE_TYPES.CallExpression && n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'Boolean' && n.arguments.length === 1) {
    return readsResult(n.arguments[0], names, acquire);
  }
  return false;
}

/** The names read from the result in the acquire's function: the binding, names destructured from it, consts read off those. */
function resultNames(acquire: Node, binding: Binding, fn: Node): Set<string> {
  const names = new Set<string>();
  if (binding) patternNames(binding.type === AST_NODE_TYPES.VariableDeclarator ? binding.id : binding.left, names);
  if (names.size === 0) return names;
  // Declarators after the acquire, in source order: each may read a name found before it.
  const declarators: TSESTree.VariableDeclarator[] = [];
  collect(
    fn,
    (node) => {
      if (node.type === AST_NODE_TYPES.VariableDeclarator && node.init && node.range[0] > acquire.range[1] && (node.parent as TSESTree.VariableDeclaration).kind === 'const') declarators.push(node);
    },
    // Nothing inside a node that ends before the acquire does starts after it.
    (node) => node.range[1] > acquire.range[1],
  );
  for (const d of declarators.sort((a, b) => a.range[0] - b.range[0])) {
    if (d.init && readsResult(d.init, names, acquire)) patternNames(d.id, names);
  }
  return names;
}

/**
 * +1 when the test is true only if the lock was taken, -1 when true only if it was not, 0 when it
 * cannot tell. `ok`, `res.rowCount > 0`, `x !== null` are +1; `!ok`, `x === false`, `count === 0`
 * are -1; a conjunction is -1 when one side is, +1 when one side is.
 */
function polarity(test: Node, names: ReadonlySet<string>, acquire: Node): -1 | 0 | 1 {
  const t = unwrap(test);
  if (readsResult(t, names, acquire)) return 1;
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') return (-polarity(t.argument, names, acquire) || 0) as -1 | 0 | 1;
  if (t.type === AST_NODE_TYPES.LogicalExpression && t.operator === '&&') {
    const left = polarity(t.left, names, acquire);
    const right = polarity(t.right, names, acquire);
    // `!ok && x` is true only when not taken; `ok && x` only when taken.
    if (left === -1 || right === -1) return left === 1 || right === 1 ? 0 : -1;
    return left === 1 || right === 1 ? 1 : 0;
  }
  if (t.type === AST_NODE_TYPES.BinaryExpression) {
    const [value, other, flipped] = readsResult(t.left, names, acquire) ? [t.left, t.right, false] : readsResult(t.right, names, acquire) ? [t.right, t.left, true] : [undefined, undefined, false];
    if (!value || !other) return 0;
    const o = unwrap(other);
    if (o.type !== AST_NODE_TYPES.Literal && !(o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined')) return 0;
    const literal = o.type === AST_NODE_TYPES.Literal ? o.value : undefined;
    const empty = literal === false || literal === null || literal === undefined || literal === 0 || literal === '';
    const op = flipped ? ({ '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as Record<string, string>)[t.operator] ?? t.operator : t.operator;
    switch (op) {
      case '===':
      case '==':
        return empty ? -1 : literal === true || literal === 'OK' || literal === 1 ? 1 : 0;
      case '!==':
      case '!=':
        return empty ? 1 : literal === true || literal === 'OK' ? -1 : 0;
      case '>':
        return literal === 0 ? 1 : 0;
      case '>=':
        return literal === 1 ? 1 : 0;
      case '<':
        return literal === 1 ? -1 : 0;
      case '<=':
        return literal === 0 ? -1 : 0;
      default:
        return 0;
    }
  }
  return 0;
}

/**
 * Visits every node under `root` (its own nested functions included), children before later
 * siblings. `enter`: whether a node and what it holds can matter (false skips the whole subtree).
 */
function collect(root: Node, visit: (node: Node) => void, enter?: (node: Node) => boolean): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (enter && !enter(node)) continue;
    visit(node);
    for (const key of Object.keys(node)) {
      if (key === 'parent') continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(value)) {
        for (const v of value) if (v && typeof (v as Node).type === 'string') stack.push(v as Node);
      } else if (value && typeof (value as Node).type === 'string' && key !== 'range' && key !== 'loc') {
        stack.push(value as Node);
      }
    }
  }
}

/** Whether the acquire sits in the test of an `if` or `?:` (through `!`, `await` and the like), as a whole operand. */
function testedInPlace(acquire: Node): boolean {
  for (let child: Node = acquire, parent = acquire.parent; parent; child = parent, parent = parent.parent) {
    if ((parent.type === AST_NODE_TYPES.IfStatement || parent.type === AST_NODE_TYPES.ConditionalExpression) && parent.test === child) return true;
    const passes =
      parent.type === AST_NODE_TYPES.AwaitExpression || parent.type === AST_NODE_TYPES.UnaryExpression || parent.type === AST_NODE_TYPES.LogicalExpression ||
      parent.type === AST_NODE_TYPES.BinaryExpression || parent.type === AST_NODE_TYPES.TSAsExpression || parent.type === AST_NODE_TYPES.TSNonNullExpression || parent.type === AST_NODE_TYPES.ChainExpression;
    if (!passes) return false;
  }
  return false;
}

/**
 * The branches inside `range` that run only when the try-lock `acquire` (bound by `binding`) was
 * not taken: the consequent of `if (!acquired)`, the alternate of `if (acquired)`, and the like
 * arms of `?:`. Only tests in the acquire's own function count (a callback defined there sees the
 * same names, and is searched too).
 */
export function untakenBranches(acquire: Node, binding: Binding, range: Range): Range[] {
  const fn = enclosingFunction(acquire);
  const root: Node | undefined = fn ? fn.body : undefined;
  if (!root) return [];
  const names = resultNames(acquire, binding, root);
  // With no name bound to the result, only a test that holds the acquire itself can tell (`if (!(await take(k)))`).
  if (names.size === 0 && !testedInPlace(acquire)) return [];
  const gaps: Range[] = [];
  collect(
    root,
    (node) => {
      if (node.type !== AST_NODE_TYPES.IfStatement && node.type !== AST_NODE_TYPES.ConditionalExpression) return;
      if (!contains(range, node) && !contains(node.test, acquire)) return;
      if (node.range[0] > range[1]) return;
      const p = polarity(node.test, names, acquire);
      if (p === -1) gaps.push(node.consequent.range);
      else if (p === 1 && node.alternate) gaps.push(node.alternate.range);
    },
    // What starts after the range, or ends before it without holding the acquire, holds no test that counts.
    (node) => node.range[0] <= range[1] && (node.range[1] >= range[0] || contains(node, acquire)),
  );
  return gaps.filter((gap) => gap[1] > range[0]);
}

/** A statement that always leaves its block's path: `return`, `throw`, `continue`, `break`, or a block ending in one. */
function exits(statement: Node): boolean {
  if (statement.type === AST_NODE_TYPES.ReturnStatement || statement.type === AST_NODE_TYPES.ThrowStatement || statement.type === AST_NODE_TYPES.ContinueStatement || statement.type === AST_NODE_TYPES.BreakStatement) return true;
  if (statement.type !== AST_NODE_TYPES.BlockStatement) return false;
  const last = statement.body[statement.body.length - 1];
  return !!last && exits(last);
}

/**
 * The opposite of `untakenBranches`, for any call whose result says whether it went through (a
 * claim's row count): the consequent of `if (r.count > 0)`, the alternate of `if (!r.count)`, and
 * what follows `if (r.count === 0) return;` in the same block. Only `if` statements of the call's
 * own function, after the call.
 */
export function takenBranches(call: Node, binding: Binding): Range[] {
  const fn = enclosingFunction(call);
  const root: Node | undefined = fn ? fn.body : undefined;
  if (!root || !binding) return [];
  const names = resultNames(call, binding, root);
  if (names.size === 0) return [];
  const out: Range[] = [];
  collect(root, (node) => {
    if (node.type !== AST_NODE_TYPES.IfStatement || node.range[0] < call.range[1] || enclosingFunction(node) !== fn) return;
    const p = polarity(node.test, names, call);
    if (p === 1) out.push(node.consequent.range);
    else if (p === -1) {
      if (node.alternate) out.push(node.alternate.range);
      const block = node.parent;
      if (!node.alternate && exits(node.consequent) && block?.type === AST_NODE_TYPES.BlockStatement) out.push([node.range[1], block.range[1]]);
    }
  });
  return out;
}
