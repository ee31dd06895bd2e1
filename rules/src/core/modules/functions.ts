/** Same-file functions by the names calls use, so analysis can follow a call into its callee. */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunctionNode, memberName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { mayCallMethod } from './method-receivers.js';
import { receiverKey } from './receivers.js';

export class FunctionIndex {
  private readonly byName = new Map<string, FunctionNode>();
  /** Class methods by bare name, to follow `repo.save()` on an instance of a class in this file. */
  private readonly methodsByName = new Map<string, FunctionNode[]>();
  /** Call sites per callee key, for following parameters back to their arguments. */
  private readonly callsByKey = new Map<string, TSESTree.CallExpression[]>();

  /**
   * `callee` answers: the stages ask about the same calls again and again (every section, every
   * level of calls it reaches). Recording forgets them, since a new name can change an answer.
   */
  private readonly callees = new Map<TSESTree.CallExpression, FunctionNode | null>();

  /** Records function declarations, `const f = () => {}`, object and class methods. */
  record(node: Node): void {
    if (this.callees.size > 0) this.callees.clear();
    if (this.methodCallers.size > 0) this.methodCallers.clear();
    if (node.type === AST_NODE_TYPES.FunctionDeclaration && node.id) {
      this.byName.set(node.id.name, node);
    } else if (node.type === AST_NODE_TYPES.VariableDeclarator && node.id.type === AST_NODE_TYPES.Identifier && node.init) {
      const init = unwrap(node.init);
      if (isFunctionNode(init)) this.byName.set(node.id.name, init);
    } else if (
      (node.type === AST_NODE_TYPES.MethodDefinition || node.type === AST_NODE_TYPES.PropertyDefinition) &&
      (node.key.type === AST_NODE_TYPES.Identifier || node.key.type === AST_NODE_TYPES.PrivateIdentifier) &&
      !node.computed &&
      node.value &&
      isFunctionNode(node.value)
    ) {
      // Methods are called as `this.name(...)` (`this.#name(...)` when private); key them that
      // way, and by bare name for object literals.
      const name = node.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${node.key.name}` : node.key.name;
      this.byName.set(`this.${name}`, node.value);
      this.addMethod(name, node.value);
    } else if (node.type === AST_NODE_TYPES.AssignmentExpression) {
      // Mongoose schema methods (`schema.methods.finish = function () {...}`) are called on documents: `job.finish()`.
      const left = node.left;
      const right = unwrap(node.right);
      if (left.type === AST_NODE_TYPES.MemberExpression && !left.computed && left.property.type === AST_NODE_TYPES.Identifier && memberName(unwrap(left.object)) === 'methods' && isFunctionNode(right)) {
        this.addMethod(left.property.name, right);
      }
    } else if (node.type === AST_NODE_TYPES.Property && node.key.type === AST_NODE_TYPES.Identifier && isFunctionNode(node.value)) {
      if (!this.byName.has(node.key.name)) this.byName.set(node.key.name, node.value);
    } else if (node.type === AST_NODE_TYPES.CallExpression) {
      const key = receiverKey(node.callee);
      if (key) {
        const list = this.callsByKey.get(key);
        if (list) list.push(node);
        else this.callsByKey.set(key, [node]);
      }
    }
  }

  /** The bare name each class or schema method is declared under. */
  private readonly methodNames = new Map<FunctionNode, string>();
  private readonly methodCallers = new Map<FunctionNode, TSESTree.CallExpression[]>();

  private addMethod(name: string, fn: FunctionNode): void {
    this.methodNames.set(fn, name);
    const methods = this.methodsByName.get(name);
    if (methods) methods.push(fn);
    else this.methodsByName.set(name, [fn]);
  }

  /** The same-file function declared under `name` (`save`, `this.save`), if any. */
  named(name: string): FunctionNode | undefined {
    return this.byName.get(name);
  }

  /** The same-file function a call invokes, if any. */
  callee(call: TSESTree.CallExpression): FunctionNode | undefined {
    let found = this.callees.get(call);
    if (found === undefined) {
      found = this.lookupCallee(call) ?? null;
      this.callees.set(call, found);
    }
    return found ?? undefined;
  }

  private lookupCallee(call: TSESTree.CallExpression): FunctionNode | undefined {
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression && callee.object.type === AST_NODE_TYPES.Super) return superMethod(callee);
    const key = receiverKey(call.callee);
    if (!key) return undefined;
    const direct = this.byName.get(key);
    if (direct) return direct;
    // `repo.save(...)` where exactly one class of this file has a method `save`, and `repo` may
    // be one of its instances (or the class itself, for a static method).
    const dot = key.lastIndexOf('.');
    if (dot < 0) return undefined;
    const candidates = this.methodsByName.get(key.slice(dot + 1));
    return candidates?.length === 1 && mayCallMethod(call, candidates[0]!) ? candidates[0] : undefined;
  }

  /** Names each function is declared under, built on first use (after every record). */
  private keysByFunction: Map<FunctionNode, string[]> | undefined;

  /** Calls that invoke `fn`, found by the name it is declared under. */
  callersOf(fn: FunctionNode): TSESTree.CallExpression[] {
    if (!this.keysByFunction) {
      this.keysByFunction = new Map();
      for (const [key, target] of this.byName) {
        const keys = this.keysByFunction.get(target);
        if (keys) keys.push(key);
        else this.keysByFunction.set(target, [key]);
      }
    }
    const byKey = (this.keysByFunction.get(fn) ?? []).flatMap((key) => this.callsByKey.get(key) ?? []);
    // A method called on another receiver than `this` (`Jobs.#purge(...)` for a static one,
    // `repo.save(...)` on an instance): the calls `callee` resolves to it.
    const name = this.methodNames.get(fn);
    if (name === undefined) return byKey;
    const known = this.methodCallers.get(fn);
    if (known) return known;
    const more: TSESTree.CallExpression[] = [];
    for (const [key, calls] of this.callsByKey) {
      if (key === `this.${name}` || !key.endsWith(`.${name}`)) continue;
      for (const call of calls) if (this.callee(call) === fn && !byKey.includes(call)) more.push(call);
    }
    const all = more.length > 0 ? [...byKey, ...more] : byKey;
    this.methodCallers.set(fn, all);
    return all;
  }
}

/** `super.lock(...)`: the method of the base class, when the base is a class of this file. */
function superMethod(member: TSESTree.MemberExpression): FunctionNode | undefined {
  const name = memberName(member);
  let cls: Node | undefined = member.parent;
  while (cls && cls.type !== AST_NODE_TYPES.ClassDeclaration && cls.type !== AST_NODE_TYPES.ClassExpression) cls = cls.parent;
  const base = cls?.superClass && unwrap(cls.superClass);
  if (!name || base?.type !== AST_NODE_TYPES.Identifier) return undefined;
  let program: Node | undefined = cls;
  while (program?.parent) program = program.parent;
  if (program?.type !== AST_NODE_TYPES.Program) return undefined;
  for (const statement of program.body) {
    const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ? statement.declaration : statement;
    if (decl?.type !== AST_NODE_TYPES.ClassDeclaration || decl.id?.name !== base.name) continue;
    for (const m of decl.body.body) {
      if (m.type === AST_NODE_TYPES.MethodDefinition && m.kind === 'method' && !m.static && !m.computed && m.key.type === AST_NODE_TYPES.Identifier && m.key.name === name) return m.value.body ? (m.value as FunctionNode) : undefined;
    }
  }
  return undefined;
}
