/**
 * What a check guards: the code that runs only when a comparison came out one way. Used for
 * "check, then act" findings (a lease-validity check before a write, a GET before a DEL):
 * the act rests on the check when it sits in a branch of the `if`, or after an `if` whose
 * other branch leaves (throw, return, break, continue).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, isFunctionNode, type Node } from '../ast.js';

export interface Guard {
  /** The statement that makes the decision (an `if`, an `assert(...)`, the check's own statement). */
  statement: TSESTree.Statement;
  /** Source ranges that run only after the check passed. */
  regions: TSESTree.Range[];
}

const COMPARISON = new Set(['<', '<=', '>', '>=', '===', '!==', '==', '!=']);
const ASSERT = /^(?:assert|ok|invariant|strictEqual|equal|ensure|must|expect)$/;
const MAX_HOPS = 3;

export function isComparison(node: Node): node is TSESTree.BinaryExpression {
  return node.type === AST_NODE_TYPES.BinaryExpression && COMPARISON.has(node.operator);
}

/** A statement that always leaves the current block. */
export function alwaysExits(statement: TSESTree.Statement | null | undefined): boolean {
  if (!statement) return false;
  switch (statement.type) {
    case AST_NODE_TYPES.ReturnStatement:
    case AST_NODE_TYPES.ThrowStatement:
    case AST_NODE_TYPES.ContinueStatement:
    case AST_NODE_TYPES.BreakStatement:
      return true;
    case AST_NODE_TYPES.BlockStatement:
      return statement.body.some((s) => alwaysExits(s));
    case AST_NODE_TYPES.IfStatement:
      return alwaysExits(statement.consequent) && alwaysExits(statement.alternate);
    default:
      return false;
  }
}

/** The rest of the block (or switch case) after `statement`, as one range. */
export function restOfBlock(statement: TSESTree.Statement, limit = Infinity): TSESTree.Range | undefined {
  const parent = statement.parent;
  if (!parent) return undefined;
  let body: readonly Node[] | undefined;
  if (parent.type === AST_NODE_TYPES.BlockStatement || parent.type === AST_NODE_TYPES.Program || parent.type === AST_NODE_TYPES.StaticBlock) body = parent.body;
  else if (parent.type === AST_NODE_TYPES.SwitchCase) body = parent.consequent;
  if (!body) return undefined;
  const index = body.indexOf(statement);
  if (index < 0 || index === body.length - 1) return undefined;
  const last = Math.min(body.length - 1, index + limit);
  return [body[index + 1].range[0], body[last].range[1]];
}

/** Climbs from a value to the `if`/assert it decides, through `!`, `&&`, `||`, await and parentheses. */
function deciding(node: Node): Guard | undefined {
  let current: Node = node;
  for (;;) {
    const parent = current.parent;
    if (!parent) return undefined;
    switch (parent.type) {
      case AST_NODE_TYPES.UnaryExpression:
      case AST_NODE_TYPES.AwaitExpression:
      case AST_NODE_TYPES.ChainExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.BinaryExpression:
        current = parent;
        continue;
      case AST_NODE_TYPES.LogicalExpression:
        // `valid && write()`: the right side runs only after the check.
        if (parent.left === current && parent.parent?.type === AST_NODE_TYPES.ExpressionStatement) {
          return { statement: parent.parent, regions: [parent.right.range] };
        }
        current = parent;
        continue;
      case AST_NODE_TYPES.IfStatement: {
        if (parent.test !== current) return undefined;
        const regions: TSESTree.Range[] = [parent.consequent.range];
        if (parent.alternate) regions.push(parent.alternate.range);
        if (alwaysExits(parent.consequent) || alwaysExits(parent.alternate)) {
          const rest = restOfBlock(parent);
          if (rest) regions.push(rest);
        }
        return { statement: parent, regions };
      }
      case AST_NODE_TYPES.WhileStatement:
      case AST_NODE_TYPES.DoWhileStatement:
        // `while (lock.expiration > Date.now()) { ... }`: the body runs after each check.
        return parent.test === current ? { statement: parent, regions: [parent.body.range] } : undefined;
      case AST_NODE_TYPES.ConditionalExpression:
        if (parent.test !== current) return undefined;
        return { statement: statementOf(parent) ?? (parent as unknown as TSESTree.Statement), regions: [parent.consequent.range, parent.alternate.range] };
      case AST_NODE_TYPES.CallExpression: {
        // `assert(await lock.isValid())`, `assert.ok(stored < token)`.
        const name = calleeName(parent);
        if (!name || !ASSERT.test(name) || parent.parent?.type !== AST_NODE_TYPES.ExpressionStatement && parent.parent?.type !== AST_NODE_TYPES.AwaitExpression) return undefined;
        const statement = statementOf(parent);
        const rest = statement && restOfBlock(statement);
        return statement && rest ? { statement, regions: [rest] } : undefined;
      }
      default:
        return undefined;
    }
  }
}

function statementOf(node: Node): TSESTree.Statement | undefined {
  let current: Node | undefined = node;
  while (current && !isFunctionNode(current)) {
    const parent: Node | undefined = current.parent;
    if (parent && (parent.type === AST_NODE_TYPES.BlockStatement || parent.type === AST_NODE_TYPES.Program || parent.type === AST_NODE_TYPES.SwitchCase)) {
      return current as TSESTree.Statement;
    }
    current = parent;
  }
  return undefined;
}

/**
 * The guards a check expression drives: directly (`if (check)`), or through a variable it is
 * stored in, alone or with other conditions (`const ok = check; if (!ok) throw ...`,
 * `const canRefresh = isOwner && (force || check); if (!canRefresh) continue`).
 */
export function guardsOf(check: Node, sourceCode: SourceCode, hops = 0): Guard[] {
  const direct = deciding(check);
  if (direct) return [direct];
  if (hops >= MAX_HOPS) return [];
  let current: Node = check;
  while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.UnaryExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression || current.parent.type === AST_NODE_TYPES.LogicalExpression)) current = current.parent;
  const parent = current.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.init === current && parent.id.type === AST_NODE_TYPES.Identifier) {
    const guards: Guard[] = [];
    for (const ref of readsOf(parent.id, sourceCode)) guards.push(...guardsOf(ref, sourceCode, hops + 1));
    return guards;
  }
  return [];
}

/** Read references of a declared identifier. */
export function readsOf(id: TSESTree.Identifier, sourceCode: SourceCode): TSESTree.Identifier[] {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  if (!variable) return [];
  return variable.references.filter((r) => r.isRead() && r.identifier !== id && r.identifier.type === AST_NODE_TYPES.Identifier).map((r) => r.identifier as TSESTree.Identifier);
}

export function inRegions(node: Node, regions: readonly TSESTree.Range[]): boolean {
  return regions.some((r) => r[0] <= node.range[0] && node.range[1] <= r[1]);
}

export interface ValueComparison {
  comparison: TSESTree.BinaryExpression;
  /** The operand that carries the traced value. */
  operand: Node;
  /** The other operand: what the value is compared with. */
  other: Node;
  /** The last property name read on the way (`rows[0].fence_token` gives `fence_token`). */
  field?: string;
}

const CONVERSION = /^(?:Number|BigInt|String|parseInt|parseFloat)$/;

/**
 * Comparisons that use the value `node` produces, following it through member reads,
 * `??`/`||`, conversions, `await` and up to three `const`/destructuring hops:
 * `const { rows } = await q(...); const stored = rows[0]?.fence_token ?? 0; if (stored >= t)`.
 */
export function comparisonsOfValue(node: Node, sourceCode: SourceCode, field?: string, hops = 0): ValueComparison[] {
  let current: Node = node;
  let name = field;
  for (;;) {
    const parent: Node | undefined = current.parent;
    if (!parent) return [];
    switch (parent.type) {
      case AST_NODE_TYPES.MemberExpression: {
        if (parent.object !== current) return [];
        const prop = !parent.computed && parent.property.type === AST_NODE_TYPES.Identifier ? parent.property.name : parent.property.type === AST_NODE_TYPES.Literal && typeof parent.property.value === 'string' ? parent.property.value : undefined;
        // `rows[0]` keeps the field; a method call on the value (`x.toString()`) is a conversion.
        if (prop !== undefined && !(parent.parent?.type === AST_NODE_TYPES.CallExpression && parent.parent.callee === parent)) name = prop;
        current = parent;
        continue;
      }
      case AST_NODE_TYPES.CallExpression:
        if (parent.callee === current || (parent.arguments[0] === current && CONVERSION.test(calleeName(parent) ?? ''))) {
          current = parent;
          continue;
        }
        return [];
      case AST_NODE_TYPES.AwaitExpression:
      case AST_NODE_TYPES.ChainExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
        current = parent;
        continue;
      case AST_NODE_TYPES.LogicalExpression:
        if (parent.left !== current || parent.operator === '&&') return [];
        current = parent;
        continue;
      case AST_NODE_TYPES.BinaryExpression:
        if (!isComparison(parent)) return [];
        return [{ comparison: parent, operand: current, other: parent.left === current ? parent.right : parent.left, field: name }];
      case AST_NODE_TYPES.VariableDeclarator:
        if (parent.init !== current || hops >= MAX_HOPS) return [];
        return bindingComparisons(parent.id, sourceCode, name, hops + 1);
      default:
        return [];
    }
  }
}

function bindingComparisons(pattern: TSESTree.BindingName, sourceCode: SourceCode, field: string | undefined, hops: number): ValueComparison[] {
  const out: ValueComparison[] = [];
  if (pattern.type === AST_NODE_TYPES.Identifier) {
    for (const ref of readsOf(pattern, sourceCode)) out.push(...comparisonsOfValue(ref, sourceCode, field, hops));
  } else if (pattern.type === AST_NODE_TYPES.ObjectPattern) {
    for (const prop of pattern.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      const key = !prop.computed && prop.key.type === AST_NODE_TYPES.Identifier ? prop.key.name : prop.key.type === AST_NODE_TYPES.Literal ? String(prop.key.value) : undefined;
      const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
      // `{ rows }` is a container: keep the field; `{ fence_token }` names it.
      const next = key && !/^(?:rows|data|Item|Items|result|records|recordset|body)$/.test(key) ? key : field;
      out.push(...bindingComparisons(value as TSESTree.BindingName, sourceCode, next, hops));
    }
  } else if (pattern.type === AST_NODE_TYPES.ArrayPattern) {
    for (const element of pattern.elements) if (element && element.type !== AST_NODE_TYPES.RestElement) out.push(...bindingComparisons(element as TSESTree.BindingName, sourceCode, field, hops));
  } else if ((pattern as Node).type === AST_NODE_TYPES.AssignmentPattern) {
    out.push(...bindingComparisons((pattern as unknown as TSESTree.AssignmentPattern).left as TSESTree.BindingName, sourceCode, field, hops));
  }
  return out;
}
