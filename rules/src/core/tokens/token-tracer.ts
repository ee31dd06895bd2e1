/**
 * Token tracing: decides whether a JS expression carries a fence token, following it
 * through assignments, destructuring, member access, conversions, template literals and
 * parameters of same-file functions. Also finds a token expression in scope at a write,
 * for the suggestion fix (never invented: only a value the code already has).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { Scope, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, isFunctionNode, memberName, propertyKeyName, unwrap, type Node } from '../ast.js';
import type { AcquireSite } from '../locks/acquires.js';
import type { FunctionIndex } from '../modules/functions.js';
import { isHandleTokenName, isStrongTokenName } from '../models/token-names.js';
import { receiverKey } from '../modules/receivers.js';

const CONVERSIONS = new Set(['Number', 'BigInt', 'String', 'parseInt', 'parseFloat', 'toString', 'toFixed', 'valueOf']);
const MAX_DEPTH = 6;

export class TokenTracer {
  private readonly memo = new Map<Node, boolean>();
  /** Keys of bound handles (`lock`, `this.lease`) -> the acquire that produced them. */
  private readonly handles = new Map<string, AcquireSite>();

  constructor(
    private readonly sourceCode: SourceCode,
    private readonly functions: FunctionIndex,
    acquires: readonly AcquireSite[],
  ) {
    for (const site of acquires) if (site.handleKey) this.handles.set(site.handleKey, site);
  }

  /** Strips conversions that keep the token's value: `Number(t)`, `BigInt(t)`, `String(t)`, `t.toString()`, `${t}`. */
  private core(node: Node): Node {
    let n = unwrap(node);
    for (let i = 0; i < 4; i++) {
      if (n.type === AST_NODE_TYPES.CallExpression) {
        const name = calleeName(n);
        const callee = unwrap(n.callee);
        if (name && CONVERSIONS.has(name)) {
          if (callee.type === AST_NODE_TYPES.Identifier && n.arguments[0]) n = unwrap(n.arguments[0]);
          else if (callee.type === AST_NODE_TYPES.MemberExpression) n = unwrap(callee.object);
          else break;
          continue;
        }
      }
      if (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 1 && n.quasis.every((q) => q.value.raw === '')) {
        n = unwrap(n.expressions[0]);
        continue;
      }
      if (n.type === AST_NODE_TYPES.LogicalExpression && (n.operator === '??' || n.operator === '||')) {
        n = unwrap(n.left);
        continue;
      }
      break;
    }
    return n;
  }

  isToken(node: Node, depth = 0): boolean {
    if (depth > MAX_DEPTH) return false;
    const n = this.core(node);
    const cached = this.memo.get(n);
    if (cached !== undefined) return cached;
    this.memo.set(n, false); // cycles: assume not a token while deciding
    const result = this.decide(n, depth);
    this.memo.set(n, result);
    return result;
  }

  private decide(n: Node, depth: number): boolean {
    switch (n.type) {
      case AST_NODE_TYPES.Identifier:
        return isStrongTokenName(n.name) || this.identifierIsToken(n, depth);
      case AST_NODE_TYPES.MemberExpression: {
        const name = memberName(n);
        if (!name) return false;
        if (isStrongTokenName(name)) return true;
        return isHandleTokenName(name) && this.isHandle(n.object, depth);
      }
      case AST_NODE_TYPES.CallExpression: {
        // `await nextFenceToken(key)`, `authority.issueFencingToken()`.
        const name = calleeName(n);
        return !!name && /(?:Fence|Fencing)Token$|^(?:next|issue|new|get)(?:Fence|Fencing)?(?:Token|Generation|Epoch)$/i.test(name) && /fenc|generation|epoch/i.test(name);
      }
      default:
        return false;
    }
  }

  /** A lock handle or authority result: `lock`, `lease`, `this.lease`, or a variable bound to an acquire. */
  isHandle(node: Node, depth = 0): boolean {
    const n = unwrap(node);
    const key = receiverKey(n);
    if (key && this.handles.has(key)) return true;
    if (n.type === AST_NODE_TYPES.Identifier) {
      if (/^(?:lease|lock|handle|grant|fence|fencing|lockHandle|leaseHandle|acquired|acquisition|ownership)$/i.test(n.name)) return true;
      const def = this.definition(n);
      if (def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && depth < MAX_DEPTH) {
        return this.isHandle(def.node.init, depth + 1);
      }
      return false;
    }
    if (n.type === AST_NODE_TYPES.MemberExpression) {
      const name = memberName(n);
      return !!name && /^(?:lease|lock|handle|grant|fence|fencing)$/i.test(name);
    }
    return false;
  }

  private definition(id: TSESTree.Identifier): Scope.Definition | undefined {
    const variable = ASTUtils.findVariable(this.sourceCode.getScope(id), id.name);
    return variable?.defs[0];
  }

  private identifierIsToken(id: TSESTree.Identifier, depth: number): boolean {
    const def = this.definition(id);
    if (!def) return false;
    if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator) {
      const decl = def.node;
      if (decl.id.type === AST_NODE_TYPES.Identifier) {
        if (decl.init && this.isToken(decl.init, depth + 1)) return true;
        return this.assignedToken(id, depth);
      }
      // `const { fenceToken: t } = ...` or `const { token } = await authority.acquire()`.
      const key = this.destructuredKey(def.name);
      if (key === undefined) return false;
      if (isStrongTokenName(key)) return true;
      return isHandleTokenName(key) && !!decl.init && (this.isHandle(decl.init, depth + 1) || this.isAcquireCall(decl.init));
    }
    if (def.type === 'Parameter') {
      const key = this.destructuredKey(def.name);
      if (key !== undefined && isStrongTokenName(key)) return true;
      return this.parameterIsToken(def.node, def.name, depth);
    }
    return false;
  }

  /** `let t; t = lease.fenceToken;` */
  private assignedToken(id: TSESTree.Identifier, depth: number): boolean {
    const variable = ASTUtils.findVariable(this.sourceCode.getScope(id), id.name);
    for (const ref of variable?.references ?? []) {
      const parent = ref.identifier.parent;
      if (ref.isWrite() && parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.right && this.isToken(parent.right, depth + 1)) return true;
    }
    return false;
  }

  private isAcquireCall(node: Node): boolean {
    const n = unwrap(node);
    return [...this.handles.values()].some((site) => site.node === n) || (n.type === AST_NODE_TYPES.CallExpression && /^(?:acquire|lease|lock|grant)/i.test(calleeName(n) ?? ''));
  }

  /** The property key an identifier was destructured from, if it was. */
  private destructuredKey(name: TSESTree.BindingName | TSESTree.Identifier): string | undefined {
    const parent = name.parent;
    if (parent?.type === AST_NODE_TYPES.Property && parent.value === name) return propertyKeyName(parent);
    if (parent?.type === AST_NODE_TYPES.AssignmentPattern && parent.parent?.type === AST_NODE_TYPES.Property) {
      return propertyKeyName(parent.parent);
    }
    return undefined;
  }

  /** A parameter is a token when some same-file caller passes a token in its position. */
  private parameterIsToken(fn: Node, name: TSESTree.BindingName, depth: number): boolean {
    if (!isFunctionNode(fn)) return false;
    const index = fn.params.findIndex((p) => p === name || (p.type === AST_NODE_TYPES.AssignmentPattern && p.left === name) || (p.type === AST_NODE_TYPES.TSParameterProperty && p.parameter === name));
    if (index < 0) return false;
    for (const call of this.functions.callersOf(fn)) {
      const arg = call.arguments[index];
      if (arg && arg.type !== AST_NODE_TYPES.SpreadElement && this.isToken(arg, depth + 1)) return true;
    }
    return false;
  }

  /**
   * A token expression the code already has at `at`, as source text, for the suggestion:
   * the acquire's destructured token, the handle's token property, or a token-named
   * variable in scope. Undefined when there is none: the fix never invents a variable.
   */
  tokenInScope(at: Node, site: AcquireSite | undefined): string | undefined {
    if (site) {
      for (const [prop, local] of site.destructured) if (isHandleTokenName(prop) && this.visible(local, at)) return local;
      if (site.handleKey && site.tokenProperties.length > 0 && this.visible(site.handleKey.split('.')[0], at)) {
        return `${site.handleKey}.${site.tokenProperties[0]}`;
      }
    }
    let scope: Scope.Scope | null = this.sourceCode.getScope(at);
    while (scope) {
      for (const variable of scope.variables) {
        // Strong names are tokens by name; weak ones (`token`, `rev`) only when traced to one.
        if (!isHandleTokenName(variable.name)) continue;
        const def = variable.defs[0];
        if (!def || (def.type !== 'Variable' && def.type !== 'Parameter')) continue;
        if (def.name.range[1] > at.range[0] || def.name.type !== AST_NODE_TYPES.Identifier) continue;
        if (isStrongTokenName(variable.name) || this.isToken(def.name)) return variable.name;
      }
      scope = scope.upper;
    }
    return undefined;
  }

  private visible(name: string, at: Node): boolean {
    if (name === 'this') return true;
    return !!ASTUtils.findVariable(this.sourceCode.getScope(at), name);
  }
}
