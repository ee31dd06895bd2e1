/** Small, library-agnostic helpers over the ESTree AST that every analysis step uses. */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';

export type Node = TSESTree.Node;

/** Strips wrappers that do not change the value: parentheses are already gone in ESTree. */
export function unwrap(node: Node): Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case AST_NODE_TYPES.AwaitExpression:
        current = current.argument;
        break;
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSSatisfiesExpression:
      case AST_NODE_TYPES.TSTypeAssertion:
      case AST_NODE_TYPES.ChainExpression:
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}

/**
 * The outermost of the type-only wrappers around an expression (`(result as Header)`,
 * `result!`): what the value is used by, read upwards as `unwrap` reads downwards.
 */
export function typeWrapped(node: Node): Node {
  let current = node;
  for (;;) {
    const parent = current.parent;
    if (
      (parent?.type === AST_NODE_TYPES.TSAsExpression ||
        parent?.type === AST_NODE_TYPES.TSNonNullExpression ||
        parent?.type === AST_NODE_TYPES.TSSatisfiesExpression ||
        parent?.type === AST_NODE_TYPES.TSTypeAssertion) &&
      parent.expression === current
    ) {
      current = parent;
      continue;
    }
    return current;
  }
}

/** The property name of `a.b` / `a['b']` / `a?.b`, when it is static. */
export function memberName(node: Node): string | undefined {
  if (node.type !== AST_NODE_TYPES.MemberExpression) return undefined;
  if (!node.computed && node.property.type === AST_NODE_TYPES.Identifier) return node.property.name;
  // `this.#run()`: a private member is named with its `#`, so it never meets a public name.
  if (!node.computed && node.property.type === AST_NODE_TYPES.PrivateIdentifier) return `#${node.property.name}`;
  if (node.property.type === AST_NODE_TYPES.Literal && typeof node.property.value === 'string') {
    return node.property.value;
  }
  return undefined;
}

/** The name a property key spells, for `{ a: 1 }`, `{ 'a': 1 }` and `{ a }`. */
export function propertyKeyName(node: TSESTree.Property | TSESTree.PropertyDefinition | TSESTree.MethodDefinition): string | undefined {
  if (node.computed) return node.key.type === AST_NODE_TYPES.Literal ? String(node.key.value) : undefined;
  if (node.key.type === AST_NODE_TYPES.Identifier) return node.key.name;
  if (node.key.type === AST_NODE_TYPES.Literal) return String(node.key.value);
  return undefined;
}

/** For `a.b.c(...)`: the method name `c`; for `f(...)`: `f`. */
export function calleeName(call: TSESTree.CallExpression | TSESTree.NewExpression): string | undefined {
  const callee = unwrap(call.callee);
  if (callee.type === AST_NODE_TYPES.Identifier) return callee.name;
  return memberName(callee);
}

/** The receiver of a method call, `a.b` for `a.b.c()`. */
export function calleeObject(call: TSESTree.CallExpression): Node | undefined {
  const callee = unwrap(call.callee);
  return callee.type === AST_NODE_TYPES.MemberExpression ? callee.object : undefined;
}

/** The innermost identifier a receiver chain starts from: `this.db.pool` -> `pool` name path. */
export function receiverPath(node: Node): string[] {
  const path: string[] = [];
  let current: Node = unwrap(node);
  for (;;) {
    if (current.type === AST_NODE_TYPES.Identifier) {
      path.unshift(current.name);
      return path;
    }
    if (current.type === AST_NODE_TYPES.ThisExpression) {
      path.unshift('this');
      return path;
    }
    if (current.type === AST_NODE_TYPES.MemberExpression) {
      const name = memberName(current);
      path.unshift(name ?? '[]');
      current = unwrap(current.object);
      continue;
    }
    if (current.type === AST_NODE_TYPES.CallExpression) {
      const name = calleeName(current);
      path.unshift(`${name ?? ''}()`);
      const callee = unwrap(current.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression) {
        current = unwrap(callee.object);
        continue;
      }
      return path;
    }
    return path;
  }
}

export function isFunctionNode(
  node: Node,
): node is TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression {
  return (
    node.type === AST_NODE_TYPES.FunctionDeclaration ||
    node.type === AST_NODE_TYPES.FunctionExpression ||
    node.type === AST_NODE_TYPES.ArrowFunctionExpression
  );
}

export type FunctionNode = TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression;

/** The function whose body contains `node` (not counting `node` itself). */
export function enclosingFunction(node: Node): FunctionNode | undefined {
  let current = node.parent;
  while (current) {
    if (isFunctionNode(current)) return current;
    current = current.parent;
  }
  return undefined;
}

/**
 * Whether `node` sits after a `return` or `throw` of its own function's block (or an enclosing
 * block of that function): code left in place behind an early `return;` never runs.
 */
export function afterExit(node: Node): boolean {
  for (let child: Node = node, parent = node.parent; parent && !isFunctionNode(child); child = parent, parent = parent.parent) {
    if (parent.type !== AST_NODE_TYPES.BlockStatement && parent.type !== AST_NODE_TYPES.Program) continue;
    const body: readonly Node[] = parent.body;
    const index = body.indexOf(child);
    if (body.slice(0, index).some((s) => s.type === AST_NODE_TYPES.ReturnStatement || s.type === AST_NODE_TYPES.ThrowStatement)) return true;
  }
  return false;
}

export function contains(outer: Node | TSESTree.Range, inner: Node): boolean {
  const range = Array.isArray(outer) ? outer : outer.range;
  return range[0] <= inner.range[0] && inner.range[1] <= range[1];
}

/**
 * Visits every node once, in source order, with parents already set by the parser.
 * Uses the parser's visitor keys so TypeScript nodes are walked too.
 */
export function walk(root: Node, visitorKeys: SourceCode.VisitorKeys, visit: (node: Node) => void): void {
  walkPruned(root, visitorKeys, (node) => {
    visit(node);
    return true;
  });
}

/**
 * `walk` with a say over where it goes: `visit` returns `true` to go into the node's children,
 * `false` to skip them (a nested function, say), and `'stop'` to end the walk.
 */
export function walkPruned(root: Node, visitorKeys: SourceCode.VisitorKeys, visit: (node: Node) => boolean | 'stop'): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const verdict = visit(node);
    if (verdict === 'stop') return;
    if (!verdict) continue;
    const keys = visitorKeys[node.type] ?? [];
    for (let k = keys.length - 1; k >= 0; k--) {
      const child = (node as unknown as Record<string, unknown>)[keys[k]];
      if (Array.isArray(child)) {
        for (let i = child.length - 1; i >= 0; i--) {
          const item = child[i] as Node | null;
          if (item && typeof item.type === 'string') stack.push(item);
        }
      } else if (child && typeof (child as Node).type === 'string') {
        stack.push(child as Node);
      }
    }
  }
}

/** A static string value: 'x', `x` (no interpolation), 'a' + 'b'. */
export function staticString(node: Node): string | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') return n.value;
  if (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0) return n.quasis[0].value.cooked ?? undefined;
  if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') {
    const left = staticString(n.left);
    const right = staticString(n.right);
    if (left !== undefined && right !== undefined) return left + right;
  }
  return undefined;
}

/** 1-based line of a node, for messages. */
export function lineOf(node: Node): number {
  return node.loc.start.line;
}

/** The `index`-th argument of a call when it is an object literal. */
export function objectArgument(call: TSESTree.CallExpression | TSESTree.NewExpression, index: number): TSESTree.ObjectExpression | undefined {
  const arg = call.arguments[index];
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const n = unwrap(arg);
  return n.type === AST_NODE_TYPES.ObjectExpression ? n : undefined;
}

/** The value of the first property whose static name matches. */
export function propertyValue(object: TSESTree.ObjectExpression | undefined, name: string | RegExp): Node | undefined {
  for (const p of object?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    if (key !== undefined && (typeof name === 'string' ? key === name : name.test(key))) return p.value;
  }
  return undefined;
}

/**
 * The object literal a `const` declared before `id` in an enclosing block holds
 * (`const headers = { 'X-Fence-Token': t }; put(url, body, { headers })`).
 */
export function constObjectBefore(id: TSESTree.Identifier): TSESTree.ObjectExpression | undefined {
  const init = constValueBefore(id);
  return init?.type === AST_NODE_TYPES.ObjectExpression ? init : undefined;
}

/** The value (unwrapped) a `const` declared before `id` in an enclosing block holds (`const now = new Date()`). */
export function constValueBefore(id: TSESTree.Identifier): Node | undefined {
  let child: Node = id;
  for (let node: Node | undefined = id.parent; node; child = node, node = node.parent) {
    // A parameter of that name in between shadows any outer binding.
    if ((node.type === AST_NODE_TYPES.FunctionDeclaration || node.type === AST_NODE_TYPES.FunctionExpression || node.type === AST_NODE_TYPES.ArrowFunctionExpression) && node.params.some((p) => p.type === AST_NODE_TYPES.Identifier && p.name === id.name)) return undefined;
    if (node.type !== AST_NODE_TYPES.BlockStatement && node.type !== AST_NODE_TYPES.Program) continue;
    for (const statement of node.body) {
      if (statement.range[0] >= child.range[0]) break;
      if (statement.type !== AST_NODE_TYPES.VariableDeclaration) continue;
      for (const d of statement.declarations) {
        if (d.id.type !== AST_NODE_TYPES.Identifier || d.id.name !== id.name) continue;
        return statement.kind === 'const' && d.init ? unwrap(d.init) : undefined;
      }
    }
  }
  return undefined;
}

/** The initializer of the `const` a name is bound to (`const KEY = 'lock:jobs'`), found through the scope; not a destructured one. */
export function constInitializer(id: TSESTree.Identifier, sourceCode: SourceCode): Node | undefined {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  const def = variable?.defs[0];
  return def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.id.type === AST_NODE_TYPES.Identifier && def.node.init ? def.node.init : undefined;
}

/**
 * The value of a class constant read through its class or instance: `Service.IN_FLIGHT` for a
 * `static readonly IN_FLIGHT = 'in-flight'` of a class of this file, `this.MARK` for a `readonly
 * MARK = '1'` of the enclosing class. Only fields declared `readonly` with an initializer.
 */
export function classConstantValue(member: TSESTree.MemberExpression, sourceCode: SourceCode): Node | undefined {
  const name = memberName(member);
  if (!name || member.computed) return undefined;
  const object = unwrap(member.object);
  let body: TSESTree.ClassBody | undefined;
  let isStatic = false;
  if (object.type === AST_NODE_TYPES.ThisExpression) {
    for (let p: Node | undefined = member.parent; p; p = p.parent) {
      if (p.type === AST_NODE_TYPES.ClassBody) {
        body = p;
        break;
      }
    }
  } else if (object.type === AST_NODE_TYPES.Identifier) {
    const def = ASTUtils.findVariable(sourceCode.getScope(object), object.name)?.defs[0];
    const declared = def?.type === 'ClassName' ? def.node : undefined;
    if (declared && (declared.type === AST_NODE_TYPES.ClassDeclaration || declared.type === AST_NODE_TYPES.ClassExpression)) body = declared.body;
    isStatic = true;
  }
  for (const element of body?.body ?? []) {
    if (element.type !== AST_NODE_TYPES.PropertyDefinition || !element.readonly || element.static !== isStatic || element.computed || !element.value) continue;
    if (element.key.type === AST_NODE_TYPES.Identifier && element.key.name === name) return element.value;
  }
  return undefined;
}

/** A string, or a `const` holding one, also behind a fallback (`process.env.LOCK_TABLE ?? 'printer_locks'`). */
export function constantText(node: Node | undefined, sourceCode: SourceCode | undefined, depth = 0): string | undefined {
  if (!node || depth > 3) return undefined;
  const n = unwrap(node);
  const text = staticString(n);
  if (text !== undefined) return text;
  if (n.type === AST_NODE_TYPES.LogicalExpression) return constantText(n.right, sourceCode, depth + 1);
  if (n.type === AST_NODE_TYPES.Identifier && sourceCode) return constantText(constInitializer(n, sourceCode), sourceCode, depth + 1);
  return undefined;
}

/** `null`, `undefined`, or a value that falls back on one (`x || null`, `x ?? undefined`, `c ? x : null`). */
export function mayBeEmpty(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return n.value === null;
  if (n.type === AST_NODE_TYPES.Identifier) return n.name === 'undefined';
  if (n.type === AST_NODE_TYPES.LogicalExpression) return n.operator !== '&&' && mayBeEmpty(n.right);
  if (n.type === AST_NODE_TYPES.ConditionalExpression) return mayBeEmpty(n.consequent) || mayBeEmpty(n.alternate);
  return false;
}
