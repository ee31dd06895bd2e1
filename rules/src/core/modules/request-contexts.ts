/**
 * Request contexts (`models/request-contexts.ts`): the shapes that tie a handler's `ctx` to the
 * project's context factory. A builder chain (`trpc.procedure.use(auth).input(schema)`) keeps the
 * context of its root; the root is made by the framework's context call (`initTRPC.context<Context>()`),
 * whose type argument names what the factory returns (`Awaited<ReturnType<typeof createContext>>`).
 * A handler is a function handed to one of the builder's handler methods, directly or by name,
 * and `ctx` is the property of its first parameter it destructures. These helpers only read the
 * tree; the module graph resolves the names they return.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { isFunctionNode, memberName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { REQUEST_CONTEXT_MODELS, RETURN_TYPE_HELPERS, type RequestContextModel } from '../models/request-contexts.js';

const MAX_LINKS = 12;

/** The root name of a builder chain (`trpc` of `trpc.procedure.use(a).input(b)`), and the framework's context call on the way, if any. */
export function builderChain(node: Node): { root: TSESTree.Identifier; contextCall?: TSESTree.CallExpression; builder: boolean } | undefined {
  let current = unwrap(node);
  let contextCall: TSESTree.CallExpression | undefined;
  let builder = false;
  const step = (member: TSESTree.MemberExpression) => {
    const name = memberName(member);
    if (name && REQUEST_CONTEXT_MODELS.some((m) => m.builderSteps.includes(name))) builder = true;
  };
  for (let i = 0; i < MAX_LINKS; i++) {
    if (current.type === AST_NODE_TYPES.Identifier) return { root: current, contextCall, builder };
    if (current.type === AST_NODE_TYPES.CallExpression) {
      const callee = unwrap(current.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression) return undefined;
      if (REQUEST_CONTEXT_MODELS.some((m) => m.contextCall.method === memberName(callee)) && unwrap(callee.object).type === AST_NODE_TYPES.Identifier) contextCall = current;
      step(callee);
      current = unwrap(callee.object);
    } else if (current.type === AST_NODE_TYPES.MemberExpression && !current.computed) {
      step(current);
      current = unwrap(current.object);
    } else return undefined;
  }
  return undefined;
}

/** The model whose context call this is, given the package its root is imported from. */
export function contextModelOf(call: TSESTree.CallExpression, rootExport: string, source: string): RequestContextModel | undefined {
  const callee = unwrap(call.callee);
  const method = callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : undefined;
  return REQUEST_CONTEXT_MODELS.find((m) => m.packages.includes(source) && m.contextCall.export === rootExport && m.contextCall.method === method);
}

/** The type argument of a context call (`Context` of `initTRPC.context<Context>()`). */
export function contextTypeOf(call: TSESTree.CallExpression): TSESTree.TypeNode | undefined {
  return call.typeArguments?.params[0];
}

/** The function a type names the return of: `f` of `ReturnType<typeof f>`, `Awaited<ReturnType<typeof f>>`, `inferAsyncReturnType<typeof f>`. */
export function returnTypeOfFunction(type: TSESTree.TypeNode | undefined, depth = 0): string | undefined {
  if (!type || depth > 3 || type.type !== AST_NODE_TYPES.TSTypeReference || type.typeName.type !== AST_NODE_TYPES.Identifier) return undefined;
  if (!RETURN_TYPE_HELPERS.has(type.typeName.name)) return undefined;
  const arg = type.typeArguments?.params[0];
  if (arg?.type === AST_NODE_TYPES.TSTypeQuery && arg.exprName.type === AST_NODE_TYPES.Identifier) return arg.exprName.name;
  return returnTypeOfFunction(arg, depth + 1);
}

/** The model a handler method belongs to, by name (`mutation`). */
function handlerMethod(call: TSESTree.CallExpression): RequestContextModel | undefined {
  const callee = unwrap(call.callee);
  const name = callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : undefined;
  return name ? REQUEST_CONTEXT_MODELS.find((m) => m.handlerMethods.includes(name)) : undefined;
}

/** The builder a function is handed to as a handler (`baseProcedure` of `baseProcedure.mutation(fn)`), inline or by its name. */
function builderOfHandler(fn: FunctionNode, sourceCode: SourceCode): { builder: Node; model: RequestContextModel } | undefined {
  const asArgument = (node: Node): { builder: Node; model: RequestContextModel } | undefined => {
    const call = node.parent;
    if (call?.type !== AST_NODE_TYPES.CallExpression || !call.arguments.includes(node as TSESTree.CallExpressionArgument)) return undefined;
    const model = handlerMethod(call);
    return model ? { builder: (unwrap(call.callee) as TSESTree.MemberExpression).object, model } : undefined;
  };
  const inline = asArgument(fn);
  if (inline) return inline;
  // `export async function handler({ ctx }) { ... }` handed over by name elsewhere in the file.
  const id = fn.type === AST_NODE_TYPES.FunctionDeclaration ? fn.id : fn.parent?.type === AST_NODE_TYPES.VariableDeclarator && fn.parent.id.type === AST_NODE_TYPES.Identifier ? fn.parent.id : undefined;
  if (!id) return undefined;
  const variable = ASTUtils.findVariable(sourceCode.getScope(fn), id.name) ?? ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  for (const ref of variable?.references ?? []) {
    const found = asArgument(ref.identifier);
    if (found) return found;
  }
  return undefined;
}

/**
 * The builder whose context `id` is, when `id` is the context property a handler destructures
 * from its first parameter (`({ ctx, input }) => ...`, `function f({ ctx }: Opts) {...}` handed
 * to `procedure.mutation(f)`).
 */
export function handlerContextBuilder(id: TSESTree.Identifier, sourceCode: SourceCode): Node | undefined {
  // Cheap first: the context is read under the framework's own name for it (`{ ctx }`, not renamed).
  if (!REQUEST_CONTEXT_MODELS.some((m) => m.contextProperty === id.name)) return undefined;
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  const def = variable?.defs[0];
  if (def?.type !== 'Parameter' || !isFunctionNode(def.node)) return undefined;
  const fn = def.node as FunctionNode;
  const first = fn.params[0];
  const pattern = first?.type === AST_NODE_TYPES.AssignmentPattern ? first.left : first;
  if (pattern?.type !== AST_NODE_TYPES.ObjectPattern) return undefined;
  const property = pattern.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && p.value === def.name);
  const key = property && !property.computed && property.key.type === AST_NODE_TYPES.Identifier ? property.key.name : undefined;
  const found = key ? builderOfHandler(fn, sourceCode) : undefined;
  return found && found.model.contextProperty === key ? found.builder : undefined;
}
