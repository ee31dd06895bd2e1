/**
 * Which project function a call invokes, and its summary: an imported function
 * (`withLock(...)`), a namespace member (`locks.withLock(...)`), a static method of an
 * imported class (`LockService.run(...)`), a method of an imported instance
 * (`lockService.run(...)`), or of an instance of an imported class, created here or
 * injected into a constructor (`this.locks.run(...)` with `constructor(private locks: LockService)`).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { isFunctionNode, memberName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { resolveImported, resolveTypeAnnotation, type ImportBinding, type ImportTable } from './imports.js';
import type { ProjectView } from './module-graph.js';
import { mergedClassOf, receiverKey, type ReceiverKind } from './receivers.js';
import { RECORD_READ_METHOD } from '../models/record-reads.js';
import type { ExportSummary, FunctionSummary } from './summaries.js';
import { builderChain, handlerContextBuilder } from './request-contexts.js';

/** Calls that hand out an instance of the class they are given: `moduleRef.get(LockService)`, `container.resolve(Repo)`. */
const INSTANCE_LOOKUP = /^(?:get|resolve|inject|getRepository|getCustomRepository|getInstance|make)$/;

export class ProjectCallees {
  /** Receiver keys (`locks`, `this.locks`) -> the imported class they are an instance of. */
  private readonly instances = new Map<string, ImportBinding>();
  /** Classes of this file that extend an imported class: `this.m()` may be the base's method. */
  private readonly bases = new Map<TSESTree.ClassDeclaration | TSESTree.ClassExpression, ImportBinding>();
  private readonly memo = new Map<Node, FunctionSummary | null>();
  /** Module-level functions of this file by name: `getLock()` may hand out an instance kept at the top of the module. */
  private readonly moduleFunctions = new Map<string, FunctionNode>();
  /** Receiver keys bound to a call of a same-file function (`const lock = getLock()`), resolved on use. */
  private readonly boundToCall = new Map<string, string>();
  /** Calls whose callee is in a module still being summarised (an import cycle): unknown for now. */
  private readonly pendingCalls = new Set<Node>();

  constructor(
    readonly view: ProjectView,
    private readonly imports: ImportTable,
    /** The file's source, for scope lookups (a handler's `ctx`, see `request-contexts.ts`). */
    private readonly sourceCode?: SourceCode,
  ) {}

  /** The imported class an expression creates or names as a type. */
  private classOf(init: Node | undefined, annotation: TSESTree.TypeNode | undefined): ImportBinding | undefined {
    if (init) {
      const node = unwrap(init);
      if (node.type === AST_NODE_TYPES.NewExpression) {
        const binding = resolveImported(node.callee, this.imports);
        if (binding) return binding;
      }
      if (node.type === AST_NODE_TYPES.CallExpression && INSTANCE_LOOKUP.test(memberName(unwrap(node.callee)) ?? (unwrap(node.callee).type === AST_NODE_TYPES.Identifier ? (unwrap(node.callee) as TSESTree.Identifier).name : ''))) {
        const first = node.arguments[0];
        if (first && first.type !== AST_NODE_TYPES.SpreadElement) {
          const binding = resolveImported(first, this.imports);
          if (binding) return binding;
        }
      }
      // `await User.findByPk(id)`: a model read returns an instance of the model class.
      const read = node.type === AST_NODE_TYPES.CallExpression && memberName(unwrap(node.callee)) === 'exec' ? unwrap((unwrap(node.callee) as TSESTree.MemberExpression).object) : node;
      if (read.type === AST_NODE_TYPES.CallExpression && RECORD_READ_METHOD.test(memberName(unwrap(read.callee)) ?? '')) {
        const callee = unwrap(read.callee) as TSESTree.MemberExpression;
        const binding = resolveImported(callee.object, this.imports);
        // Only a model class: a service instance's `findOne` returns data, not that service.
        if (binding && this.view.exportOfBinding(binding)?.kind === 'class') return binding;
      }
      const key = receiverKey(node);
      if (key && this.instances.has(key)) return this.instances.get(key);
    }
    return resolveTypeAnnotation(annotation, this.imports);
  }

  /** Registers what a declaration binds (same node kinds as the receiver table). */
  record(node: Node): void {
    switch (node.type) {
      case AST_NODE_TYPES.VariableDeclarator: {
        if (node.id.type !== AST_NODE_TYPES.Identifier) return;
        const init = node.init ? unwrap(node.init) : undefined;
        if (init && isFunctionNode(init)) {
          if (atModuleLevel(node)) this.moduleFunctions.set(node.id.name, init);
          return;
        }
        const binding = this.classOf(node.init ?? undefined, node.id.typeAnnotation?.typeAnnotation);
        if (binding) this.instances.set(node.id.name, binding);
        else if (init?.type === AST_NODE_TYPES.CallExpression && init.arguments.length === 0 && init.callee.type === AST_NODE_TYPES.Identifier && !this.imports.get(init.callee.name)) this.boundToCall.set(node.id.name, init.callee.name);
        return;
      }
      case AST_NODE_TYPES.FunctionDeclaration: {
        if (node.id && atModuleLevel(node)) this.moduleFunctions.set(node.id.name, node);
        return;
      }
      case AST_NODE_TYPES.AssignmentExpression: {
        if (node.operator !== '=') return;
        const key = receiverKey(node.left);
        const binding = this.classOf(node.right, undefined);
        if (key && binding) this.instances.set(key, binding);
        return;
      }
      case AST_NODE_TYPES.PropertyDefinition: {
        const name = node.key.type === AST_NODE_TYPES.Identifier ? node.key.name : undefined;
        const binding = name ? this.classOf(node.value ?? undefined, node.typeAnnotation?.typeAnnotation) : undefined;
        if (name && binding) this.instances.set(`this.${name}`, binding);
        return;
      }
      case AST_NODE_TYPES.TSParameterProperty: {
        const param = node.parameter.type === AST_NODE_TYPES.AssignmentPattern ? node.parameter.left : node.parameter;
        if (param.type !== AST_NODE_TYPES.Identifier) return;
        const binding = this.classOf(undefined, param.typeAnnotation?.typeAnnotation);
        if (binding) {
          this.instances.set(`this.${param.name}`, binding);
          this.instances.set(param.name, binding);
        }
        return;
      }
      case AST_NODE_TYPES.Identifier: {
        const binding = this.classOf(undefined, node.typeAnnotation?.typeAnnotation);
        if (binding) this.instances.set(node.name, binding);
        return;
      }
      case AST_NODE_TYPES.TSInterfaceDeclaration: {
        // `declare interface Scheduler { queue: Queue }` beside `class Scheduler`: the class's fields.
        if (!mergedClassOf(node)) return;
        for (const member of node.body.body) {
          if (member.type !== AST_NODE_TYPES.TSPropertySignature || member.computed || member.key.type !== AST_NODE_TYPES.Identifier) continue;
          const binding = this.classOf(undefined, member.typeAnnotation?.typeAnnotation);
          if (binding && !this.instances.has(`this.${member.key.name}`)) this.instances.set(`this.${member.key.name}`, binding);
        }
        return;
      }
      case AST_NODE_TYPES.ClassDeclaration:
      case AST_NODE_TYPES.ClassExpression: {
        const binding = node.superClass ? resolveImported(node.superClass, this.imports) : undefined;
        if (binding) this.bases.set(node, binding);
        return;
      }
      default:
        return;
    }
  }

  /** The summary of the project function `call` invokes, if it invokes one we could read. */
  summaryOf(call: TSESTree.CallExpression | TSESTree.NewExpression): FunctionSummary | undefined {
    const cached = this.memo.get(call);
    if (cached !== undefined) return cached ?? undefined;
    let found: FunctionSummary | undefined;
    this.view.pending = false;
    try {
      found = this.lookup(call);
    } catch {
      found = undefined;
    }
    if (this.view.pending) this.pendingCalls.add(call);
    this.memo.set(call, found ?? null);
    return found;
  }

  /** Whether a receiver key holds an instance of an imported project class (`this.cache = new Cache()`). */
  isInstance(key: string): boolean {
    return this.instances.has(key);
  }

  /** Whether `call` was looked up already (its summary costs nothing more). */
  isKnown(call: Node): boolean {
    return this.memo.has(call);
  }

  /** Whether the callee of `call` was unknown only because of an import cycle. */
  isPending(call: Node): boolean {
    return this.pendingCalls.has(call);
  }

  private lookup(call: TSESTree.CallExpression | TSESTree.NewExpression): FunctionSummary | undefined {
    if (call.type === AST_NODE_TYPES.NewExpression) return undefined;
    const callee = unwrap(call.callee);
    // `super(options)`: the imported base class's constructor.
    if (callee.type === AST_NODE_TYPES.Super) {
      const base = this.baseOf(call);
      const exported = base ? this.view.exportOfBinding(base) : undefined;
      return exported?.kind === 'class' ? exported.construct : undefined;
    }
    const found = this.exportOfExpression(callee, 'static', 0);
    return found?.kind === 'function' ? found.fn : undefined;
  }

  /**
   * What an expression names among the project's exports: an import (`withLock`), a member of
   * one (`LockManager.promises.runWithLock`, `Mutex.run`), a method of an instance of an
   * imported class (`this.locks.run`).
   */
  exportOfExpression(node: Node, how: 'static' | 'instance', depth: number): ExportSummary | undefined {
    const n = unwrap(node);
    if (depth > 4) return undefined;
    if (n.type === AST_NODE_TYPES.Identifier) {
      const binding = this.imports.get(n.name);
      if (binding) return this.view.exportOfBinding(binding);
      const instance = this.instanceOf(n.name);
      if (instance) return this.view.instanceOfBinding(instance);
      const context = this.requestContextOf(n);
      if (context) return context;
      const self = this.handedSelf(n);
      return self ? this.ownerOf(unwrap(self), how, depth + 1) : undefined;
    }
    if (n.type !== AST_NODE_TYPES.MemberExpression) return undefined;
    const name = memberName(n);
    if (!name) return undefined;
    // `this.m()` where the class overrides the base's `m`: its own method, read in this file.
    if (unwrap(n.object).type === AST_NODE_TYPES.ThisExpression && ownMethodNamed(n, name)) return undefined;
    return memberOf(this.ownerOf(unwrap(n.object), how, depth), name);
  }

  /** What the object of a member call is: an instance made here, the base class of `this`, an injected instance, an export. */
  private ownerOf(object: Node, how: 'static' | 'instance', depth: number): ExportSummary | undefined {
    if (object.type === AST_NODE_TYPES.NewExpression) {
      const binding = resolveImported(object.callee, this.imports);
      return binding ? asInstance(this.view.exportOfBinding(binding)) : undefined;
    }
    if (object.type === AST_NODE_TYPES.ThisExpression) {
      const base = this.baseOf(object);
      return base ? asInstance(this.view.exportOfBinding(base)) : undefined;
    }
    // `getLock().withLock(...)`: the instance a same-file function hands out.
    if (object.type === AST_NODE_TYPES.CallExpression && object.arguments.length === 0 && object.callee.type === AST_NODE_TYPES.Identifier && !this.imports.get(object.callee.name)) {
      const handed = this.returnedInstance(object.callee.name);
      if (handed) return this.view.instanceOfBinding(handed);
    }
    // `getStore().save(...)`, `store().save(...)`: the instance an imported factory hands out.
    const factoryBinding = object.type === AST_NODE_TYPES.CallExpression && object.callee.type === AST_NODE_TYPES.Identifier ? this.imports.get(object.callee.name) : undefined;
    if (factoryBinding) {
      const factory = this.view.exportOfBinding(factoryBinding);
      if (factory?.kind === 'function' && factory.fn.returnsInstance) return factory.fn.returnsInstance;
    }
    const key = receiverKey(object);
    const instance = key ? this.instanceOf(key) : undefined;
    return instance ? this.view.instanceOfBinding(instance) : this.exportOfExpression(object, how, depth + 1);
  }

  /** The imported class a receiver key holds an instance of, directly or through a same-file getter. */
  private instanceOf(key: string): ImportBinding | undefined {
    const direct = this.instances.get(key);
    if (direct) return direct;
    const getter = this.boundToCall.get(key);
    return getter ? this.returnedInstance(getter) : undefined;
  }

  /**
   * The imported class whose instance a module-level function of this file returns: by its return
   * type (`function getLock(): RedisLock`), or by what it returns (`return shared` with
   * `shared = new RedisLock(client)` kept at the top of the module, a lazily made singleton).
   */
  private returnedInstance(name: string): ImportBinding | undefined {
    const fn = this.moduleFunctions.get(name);
    if (!fn) return undefined;
    const declared = fn.returnType?.typeAnnotation;
    const types = declared?.type === AST_NODE_TYPES.TSUnionType ? declared.types : declared ? [declared] : [];
    for (const t of types) {
      const binding = resolveTypeAnnotation(t, this.imports);
      if (binding) return binding;
    }
    const returned: Node[] = [];
    if (fn.body.type === AST_NODE_TYPES.BlockStatement) returnedValues(fn.body, returned);
    else returned.push(fn.body);
    for (const value of returned) {
      const v = unwrap(value);
      if (v.type === AST_NODE_TYPES.NewExpression) {
        const binding = resolveImported(v.callee, this.imports);
        if (binding) return binding;
      }
      const key = receiverKey(v);
      const binding = key ? this.instances.get(key) : undefined;
      if (binding) return binding;
    }
    return undefined;
  }

  /**
   * A callback parameter that a unit of work fills with its own object
   * (`this.store.runInTransaction(id, async (store, tx) => store.save(...))`): the receiver of that call.
   */
  /**
   * A handler's `ctx` (`procedure.mutation(async ({ ctx }) => ...)`): the object the project's
   * context factory returns, as the builder's root module knows it (`request-contexts.ts`).
   */
  private requestContextOf(id: TSESTree.Identifier): ExportSummary | undefined {
    if (!this.sourceCode) return undefined;
    let builder = handlerContextBuilder(id, this.sourceCode);
    // `const base = authProcedure.input(schema)`: through the file's own consts to an imported builder.
    for (let hop = 0; builder && hop < 4; hop++) {
      const chain = builderChain(builder);
      if (!chain) return undefined;
      const binding = this.imports.get(chain.root.name);
      if (binding) {
        const root = this.view.exportOfBinding(binding);
        return root?.kind === 'value' ? root.requestContext : undefined;
      }
      const def = ASTUtils.findVariable(this.sourceCode.getScope(chain.root), chain.root.name)?.defs[0];
      builder = def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init ? def.node.init : undefined;
    }
    return undefined;
  }

  private handedSelf(id: TSESTree.Identifier): Node | undefined {
    for (let fn: Node | undefined = id.parent; fn; fn = fn.parent) {
      if (fn.type !== AST_NODE_TYPES.ArrowFunctionExpression && fn.type !== AST_NODE_TYPES.FunctionExpression && fn.type !== AST_NODE_TYPES.FunctionDeclaration) continue;
      const param = fn.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === id.name);
      if (param < 0) continue;
      const call = fn.parent;
      if (call?.type !== AST_NODE_TYPES.CallExpression) return undefined;
      const callee = unwrap(call.callee);
      const arg = call.arguments.indexOf(fn as TSESTree.CallExpressionArgument);
      const self = this.summaryOf(call)?.selfToCallback;
      return self && self.arg === arg && self.param === param && callee.type === AST_NODE_TYPES.MemberExpression ? callee.object : undefined;
    }
    return undefined;
  }

  /**
   * Whether `node` is a field of an instance of an imported class that holds an in-process
   * lock (`activeDoc.triggersLock` with `triggersLock = new Mutex()` in ActiveDoc's module).
   */
  isInProcessLock(node: Node): boolean {
    const n = unwrap(node);
    if (n.type !== AST_NODE_TYPES.MemberExpression) return false;
    const found = this.classFieldOf(n);
    return !!found && (found.exported.inProcessLocks ?? []).includes(found.field);
  }

  /**
   * What a field of an instance of an imported class holds (`this.connection.redis` with
   * `redis!: Redis` declared in Connection's module): a client or lock authority, or nothing.
   */
  fieldReceiverOf(node: TSESTree.MemberExpression): ReceiverKind | undefined {
    const found = this.classFieldOf(node);
    return found?.exported.fieldReceivers?.get(found.field);
  }

  /** The field `node` names and the imported class whose instance (or base, for `this`) holds it. */
  private classFieldOf(node: TSESTree.MemberExpression) {
    const field = memberName(node);
    if (!field) return undefined;
    try {
      const object = unwrap(node.object);
      const key = receiverKey(object);
      const binding = (key ? this.instanceOf(key) : undefined) ?? (object.type === AST_NODE_TYPES.ThisExpression ? this.baseOf(node) : undefined);
      const exported = binding && this.view.exportOfBinding(binding);
      return exported?.kind === 'class' ? { field, exported } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The imported base class of the class `node` is in, if any. */
  private baseOf(node: Node): ImportBinding | undefined {
    for (let current = node.parent; current; current = current.parent) {
      if (current.type === AST_NODE_TYPES.ClassDeclaration || current.type === AST_NODE_TYPES.ClassExpression) return this.bases.get(current);
    }
    return undefined;
  }
}

/** A declaration at the top of the module (exported or not), not inside a function or class. */
function atModuleLevel(node: Node): boolean {
  const holder = node.type === AST_NODE_TYPES.VariableDeclarator ? node.parent?.parent : node.parent;
  return holder?.type === AST_NODE_TYPES.Program || (holder?.type === AST_NODE_TYPES.ExportNamedDeclaration && holder.parent?.type === AST_NODE_TYPES.Program);
}

/** The values a function body returns, not counting nested functions. */
function returnedValues(node: Node, out: Node[]): void {
  switch (node.type) {
    case AST_NODE_TYPES.ReturnStatement:
      if (node.argument) out.push(node.argument);
      return;
    case AST_NODE_TYPES.BlockStatement:
      for (const statement of node.body) returnedValues(statement, out);
      return;
    case AST_NODE_TYPES.IfStatement:
      returnedValues(node.consequent, out);
      if (node.alternate) returnedValues(node.alternate, out);
      return;
    case AST_NODE_TYPES.TryStatement:
      returnedValues(node.block, out);
      if (node.handler) returnedValues(node.handler.body, out);
      return;
    default:
      return;
  }
}

/** Whether the class `node` is in declares a method (or function-valued field) `name` itself. */
function ownMethodNamed(node: Node, name: string): boolean {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type !== AST_NODE_TYPES.ClassDeclaration && current.type !== AST_NODE_TYPES.ClassExpression) continue;
    return current.body.body.some((m) => (m.type === AST_NODE_TYPES.MethodDefinition || m.type === AST_NODE_TYPES.PropertyDefinition) && !m.static && !m.computed && m.key.type === AST_NODE_TYPES.Identifier && m.key.name === name);
  }
  return false;
}

/** An instance of an exported class: its methods, as an object's members. */
function asInstance(exported: ExportSummary | undefined): ExportSummary | undefined {
  return exported?.kind === 'class' ? { kind: 'object', members: exported.methods, ...(exported.fieldInstances ? { values: exported.fieldInstances } : {}) } : exported;
}

/** Member `name` of an exported object or class (statics), as an export. */
function memberOf(owner: ExportSummary | undefined, name: string): ExportSummary | undefined {
  if (!owner) return undefined;
  if (owner.kind === 'object') {
    const fn = owner.members.get(name);
    return fn ? { kind: 'function', fn } : owner.values?.get(name);
  }
  if (owner.kind === 'class') {
    const fn = owner.statics.get(name);
    return fn ? { kind: 'function', fn } : undefined;
  }
  return undefined;
}
