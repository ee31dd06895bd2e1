/**
 * Whether `x.m()` may call the method `m` of a class of this file. Only the method's name ties
 * the call to the method, so a receiver that is visibly something else (a module import, a value
 * typed or constructed as another class, a client held by the class itself) must not inherit the
 * method's writes: `db.update(...)` inside a class with its own `update` is the library's call.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunctionNode, unwrap, type FunctionNode, type Node } from '../ast.js';

type Binding =
  | { kind: 'import' }
  | { kind: 'param'; type: TSESTree.TypeNode | undefined }
  | { kind: 'variable'; type: TSESTree.TypeNode | undefined; init: Node | undefined };

export function mayCallMethod(call: TSESTree.CallExpression, method: FunctionNode): boolean {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return true;
  const receiver = unwrap(callee.object);
  let root: Node = receiver;
  while (root.type === AST_NODE_TYPES.MemberExpression) root = unwrap(root.object);
  const binding = root.type === AST_NODE_TYPES.Identifier ? bindingOf(root.name, call) : undefined;
  // A module's export is never an instance of a class declared here.
  if (binding?.kind === 'import') return false;
  if (binding?.kind === 'variable' && binding.init && isRequire(binding.init)) return false;

  const definition = method.parent;
  if (definition?.type !== AST_NODE_TYPES.MethodDefinition && definition?.type !== AST_NODE_TYPES.PropertyDefinition) return true;
  const cls = definition.parent.parent;
  const className = cls.id?.name;
  const named = receiver.type === AST_NODE_TYPES.Identifier ? receiver.name : undefined;
  // A static method is called on a class, not on a value held in a parameter or variable.
  if (definition.static) return named !== undefined && (binding === undefined || (binding.kind === 'variable' && binding.init?.type === AST_NODE_TYPES.ClassExpression));
  if (named !== undefined && named === className) return false;
  // `const self = this`: the instance itself under another name.
  if (receiver === root && binding?.kind === 'variable' && binding.init && unwrap(binding.init).type === AST_NODE_TYPES.ThisExpression) return true;
  if (receiver === root && binding) {
    const known = knownClass(binding);
    if (known !== undefined) return known === className;
  }
  // Inside its own class a method is reached through `this`; any other receiver there is
  // another object that shares the name.
  return !(cls.range[0] <= call.range[0] && call.range[1] <= cls.range[1]);
}

/**
 * Whether a call's receiver is declared or constructed as the class that defines `method`
 * (`const jobs = new JobRepo()`, `jobs: JobRepo`, `new JobRepo().update(...)`): a call of the
 * project's own method, whatever a library's method of the same name would do.
 */
export function callsKnownInstance(call: TSESTree.CallExpression, method: FunctionNode): boolean {
  const callee = unwrap(call.callee);
  const definition = method.parent;
  if (callee.type !== AST_NODE_TYPES.MemberExpression || definition?.type !== AST_NODE_TYPES.MethodDefinition || definition.static) return false;
  const className = definition.parent.parent.id?.name;
  const receiver = unwrap(callee.object);
  if (!className) return false;
  if (receiver.type === AST_NODE_TYPES.NewExpression) return receiver.callee.type === AST_NODE_TYPES.Identifier && receiver.callee.name === className;
  if (receiver.type !== AST_NODE_TYPES.Identifier) return false;
  const binding = bindingOf(receiver.name, call);
  return binding !== undefined && binding.kind !== 'import' && knownClass(binding) === className;
}

/** The class a parameter or variable is declared or constructed as, when it says so. */
function knownClass(binding: Exclude<Binding, { kind: 'import' }>): string | undefined {
  const type = binding.type;
  if (type?.type === AST_NODE_TYPES.TSTypeReference && type.typeName.type === AST_NODE_TYPES.Identifier) return type.typeName.name;
  const init = binding.kind === 'variable' && binding.init ? unwrap(binding.init) : undefined;
  if (init?.type === AST_NODE_TYPES.NewExpression && init.callee.type === AST_NODE_TYPES.Identifier) return init.callee.name;
  return undefined;
}

function isRequire(init: Node): boolean {
  const value = unwrap(init);
  return value.type === AST_NODE_TYPES.CallExpression && value.callee.type === AST_NODE_TYPES.Identifier && value.callee.name === 'require';
}

/** The declaration of `name` visible at `from`: imports, parameters and block-level variables. */
function bindingOf(name: string, from: Node): Binding | undefined {
  for (let node: Node | undefined = from.parent; node; node = node.parent) {
    if (isFunctionNode(node)) {
      for (const param of node.params) {
        const found = paramBinding(param, name);
        if (found) return found;
      }
    } else if (node.type === AST_NODE_TYPES.BlockStatement || node.type === AST_NODE_TYPES.Program || node.type === AST_NODE_TYPES.StaticBlock) {
      for (const statement of node.body) {
        const found = statementBinding(statement, name);
        if (found) return found;
      }
    }
  }
  return undefined;
}

function statementBinding(statement: Node, name: string): Binding | undefined {
  if (statement.type === AST_NODE_TYPES.ImportDeclaration) {
    return statement.specifiers.some((s) => s.local.name === name) ? { kind: 'import' } : undefined;
  }
  const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration ? statement.declaration : statement;
  if (decl?.type !== AST_NODE_TYPES.VariableDeclaration) return undefined;
  for (const declarator of decl.declarations) {
    if (declarator.id.type === AST_NODE_TYPES.Identifier) {
      if (declarator.id.name === name) return { kind: 'variable', type: declarator.id.typeAnnotation?.typeAnnotation, init: declarator.init ?? undefined };
    } else if (binds(declarator.id, name)) {
      return { kind: 'variable', type: undefined, init: declarator.init && isRequire(declarator.init) ? declarator.init : undefined };
    }
  }
  return undefined;
}

function paramBinding(param: TSESTree.Parameter, name: string): Binding | undefined {
  const target = param.type === AST_NODE_TYPES.TSParameterProperty ? param.parameter : param;
  if (target.type === AST_NODE_TYPES.Identifier) return target.name === name ? { kind: 'param', type: target.typeAnnotation?.typeAnnotation } : undefined;
  if (target.type === AST_NODE_TYPES.AssignmentPattern && target.left.type === AST_NODE_TYPES.Identifier) {
    return target.left.name === name ? { kind: 'param', type: target.left.typeAnnotation?.typeAnnotation } : undefined;
  }
  return binds(target, name) ? { kind: 'param', type: undefined } : undefined;
}

/** Whether a destructuring pattern declares `name`. */
function binds(pattern: Node, name: string): boolean {
  switch (pattern.type) {
    case AST_NODE_TYPES.Identifier:
      return pattern.name === name;
    case AST_NODE_TYPES.AssignmentPattern:
      return binds(pattern.left, name);
    case AST_NODE_TYPES.RestElement:
      return binds(pattern.argument, name);
    case AST_NODE_TYPES.ArrayPattern:
      return pattern.elements.some((e) => e !== null && binds(e, name));
    case AST_NODE_TYPES.ObjectPattern:
      return pattern.properties.some((p) => (p.type === AST_NODE_TYPES.RestElement ? binds(p, name) : binds(p.value, name)));
    default:
      return false;
  }
}
