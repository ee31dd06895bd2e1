/**
 * Optional arguments that decide whether a callee's write runs. A repository method
 * `getOrCreate(id, owner, patch?)` that saves the record it found only `if (patch)` makes no
 * such write when called with two arguments. Only a truthiness test of the parameter itself
 * counts, and only for a parameter the function never reassigns and gives no default. An
 * argument that is passed is read only when it is a literal: `setBan(user, true)` never runs the
 * `else` of `if (enabled)`, and `sync(id, false)` never the body of `if (force)`.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { unwrap, type FunctionNode, type Node } from '../ast.js';

/**
 * The parameters of `fn` that the path from its body to `node` tests for truthiness: `if (p)`,
 * `if (p !== undefined)`, `p && write()`, `p ? write() : x`, or `if (!p) return;` earlier in an
 * enclosing block. Leave one of them out and `node` does not run.
 */
export function parametersRequiredFor(node: Node, fn: FunctionNode, sourceCode: SourceCode): number[] {
  const references = parameterReferences(fn, sourceCode);
  if (references.size === 0) return [];
  const required = new Set<number>();
  const test = (expression: Node, truthy: boolean) => {
    for (const index of testedParameters(expression, truthy, references)) required.add(index);
  };
  guardsOnPath(node, fn, test);
  return [...required].sort((a, b) => a - b);
}

/**
 * Every test the path from `fn`'s body down to `node` passes, with the value it needs there: the
 * branch of an `if` or `?:` it is in, the left side of the `&&`/`||` it is the right of, and
 * `if (!p) return;` earlier in an enclosing block (what follows runs only when the test fails).
 */
function guardsOnPath(node: Node, fn: FunctionNode, test: (expression: Node, truthy: boolean) => void): void {
  let child: Node = node;
  for (let parent = node.parent; parent && child !== fn.body; child = parent, parent = parent.parent) {
    switch (parent.type) {
      case AST_NODE_TYPES.IfStatement:
      case AST_NODE_TYPES.ConditionalExpression:
        if (child === parent.consequent) test(parent.test, true);
        else if (child === parent.alternate) test(parent.test, false);
        break;
      case AST_NODE_TYPES.LogicalExpression:
        if (child === parent.right && parent.operator === '&&') test(parent.left, true);
        else if (child === parent.right && parent.operator === '||') test(parent.left, false);
        break;
      case AST_NODE_TYPES.BlockStatement:
        for (const statement of parent.body) {
          if (statement === child) break;
          if (statement.type === AST_NODE_TYPES.IfStatement && !statement.alternate && alwaysLeaves(statement.consequent)) test(statement.test, false);
        }
        break;
    }
    if (parent === fn) break;
  }
}

/** Whether a call leaves argument `index` out: fewer arguments (and no spread), or `undefined` / `void 0` there. */
export function omitsArgument(call: TSESTree.CallExpression | TSESTree.NewExpression, index: number): boolean {
  if (call.arguments.some((a, i) => i <= index && a.type === AST_NODE_TYPES.SpreadElement)) return false;
  const arg = call.arguments[index];
  if (!arg) return true;
  const value = unwrap(arg);
  if (value.type === AST_NODE_TYPES.Identifier) return value.name === 'undefined';
  return value.type === AST_NODE_TYPES.UnaryExpression && value.operator === 'void' && value.argument.type === AST_NODE_TYPES.Literal;
}

/**
 * Identifiers that read a plain parameter of `fn` (`p`, `p?: T`), by the parameter's index; not a
 * parameter with a default, a rest or destructured one, or one the function assigns.
 */
function parameterReferences(fn: FunctionNode, sourceCode: SourceCode): Map<Node, number> {
  const out = new Map<Node, number>();
  // TypeScript's `this` parameter is no argument of a call: positions would not line up.
  if (fn.params[0]?.type === AST_NODE_TYPES.Identifier && fn.params[0].name === 'this') return out;
  const variables = sourceCode.getDeclaredVariables(fn);
  fn.params.forEach((param, index) => {
    if (param.type !== AST_NODE_TYPES.Identifier) return;
    const variable = variables.find((v) => v.defs.some((d) => d.name === param));
    if (!variable || variable.references.some((r) => r.isWrite())) return;
    for (const r of variable.references) out.set(r.identifier, index);
  });
  return out;
}

/** The parameters that must be set for `expression` to be `truthy` (or falsy). */
function testedParameters(expression: Node, truthy: boolean, references: ReadonlyMap<Node, number>): number[] {
  const e = unwrap(expression);
  const param = (n: Node) => references.get(unwrap(n));
  switch (e.type) {
    case AST_NODE_TYPES.Identifier: {
      const index = param(e);
      return truthy && index !== undefined ? [index] : [];
    }
    case AST_NODE_TYPES.UnaryExpression:
      return e.operator === '!' ? testedParameters(e.argument, !truthy, references) : [];
    case AST_NODE_TYPES.LogicalExpression:
      // Both sides hold: `a && b` true, `a || b` false.
      if ((e.operator === '&&' && truthy) || (e.operator === '||' && !truthy)) return [...testedParameters(e.left, truthy, references), ...testedParameters(e.right, truthy, references)];
      return [];
    case AST_NODE_TYPES.BinaryExpression: {
      // `p !== undefined`, `p != null`, `typeof p !== 'undefined'` true; the same with `===` / `==` false.
      const negated = e.operator === '!==' || e.operator === '!=';
      if (!negated && e.operator !== '===' && e.operator !== '==') return [];
      if (negated !== truthy) return [];
      const [side, other] = isUndefinedOperand(e.right, e.operator) ? [e.left, e.right] : isUndefinedOperand(e.left as Node, e.operator) ? [e.right, e.left] : [undefined, undefined];
      if (!side || !other) return [];
      const s = unwrap(side);
      const typeOf = s.type === AST_NODE_TYPES.UnaryExpression && s.operator === 'typeof';
      const literal = unwrap(other);
      // `typeof p` compares with the string 'undefined'; `p` itself with the value.
      if (typeOf !== (literal.type === AST_NODE_TYPES.Literal && literal.value === 'undefined')) return [];
      const index = param(typeOf ? (s as TSESTree.UnaryExpression).argument : s);
      return index !== undefined ? [index] : [];
    }
    default:
      return [];
  }
}

/** `undefined`, `void 0`, `'undefined'` (beside `typeof`), or `null` under loose equality (`p != null`). */
function isUndefinedOperand(node: Node, operator: string): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name === 'undefined';
  if (n.type === AST_NODE_TYPES.UnaryExpression) return n.operator === 'void';
  if (n.type !== AST_NODE_TYPES.Literal) return false;
  return n.value === 'undefined' || (n.value === null && (operator === '==' || operator === '!='));
}

/** A statement that always returns or throws: `return;`, `throw e`, or a block ending in one. */
function alwaysLeaves(statement: TSESTree.Statement): boolean {
  if (statement.type === AST_NODE_TYPES.ReturnStatement || statement.type === AST_NODE_TYPES.ThrowStatement) return true;
  if (statement.type !== AST_NODE_TYPES.BlockStatement) return false;
  const last = statement.body[statement.body.length - 1];
  return !!last && (last.type === AST_NODE_TYPES.ReturnStatement || last.type === AST_NODE_TYPES.ThrowStatement);
}

/**
 * The plain parameters the path from `fn`'s body to `node` tests by truthiness alone, by the
 * value the test needs: `truthy` for `if (p) node`, `p && node`; `falsy` for the `else` of `if (p)`,
 * `if (!p) node`, `if (p) return;` before. Comparisons (`p !== undefined`) say nothing about a
 * passed literal and are left out.
 */
export function parameterPolarity(node: Node, fn: FunctionNode, sourceCode: SourceCode): { truthy: number[]; falsy: number[] } {
  const references = parameterReferences(fn, sourceCode);
  const truthy = new Set<number>();
  const falsy = new Set<number>();
  if (references.size === 0) return { truthy: [], falsy: [] };
  const test = (expression: Node, want: boolean) => {
    const e = unwrap(expression);
    if (e.type === AST_NODE_TYPES.UnaryExpression && e.operator === '!') return test(e.argument, !want);
    if (e.type === AST_NODE_TYPES.LogicalExpression && ((e.operator === '&&' && want) || (e.operator === '||' && !want))) {
      test(e.left, want);
      test(e.right, want);
      return;
    }
    const index = e.type === AST_NODE_TYPES.Identifier ? references.get(e) : undefined;
    if (index !== undefined) (want ? truthy : falsy).add(index);
  };
  guardsOnPath(node, fn, test);
  return { truthy: [...truthy].sort((a, b) => a - b), falsy: [...falsy].sort((a, b) => a - b) };
}

/** The truthiness of a literal argument (`true`, `0`, `''`, `null`); undefined for anything else. */
function literalTruthiness(arg: TSESTree.CallExpressionArgument | undefined): boolean | undefined {
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const value = unwrap(arg);
  if (value.type !== AST_NODE_TYPES.Literal || value.value instanceof RegExp || typeof value.value === 'bigint') return undefined;
  return Boolean(value.value);
}

/** Whether a call's literal arguments rule out a write that needs parameters `truthy` set and `falsy` unset. */
export function literalsRuleOut(call: TSESTree.CallExpression | TSESTree.NewExpression, truthy: readonly number[] | undefined, falsy: readonly number[] | undefined): boolean {
  if (call.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement)) return false;
  return (truthy ?? []).some((i) => literalTruthiness(call.arguments[i]) === false) || (falsy ?? []).some((i) => literalTruthiness(call.arguments[i]) === true);
}
