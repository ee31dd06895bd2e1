/**
 * What a receiver is: a lock authority, a lock object, a Redis client, an in-process lock,
 * knex, or another write client of the sinks catalog (pg, Prisma, MongoDB, DynamoDB, ...).
 * Resolved through imports, constructor and factory calls, callbacks that hand a client in
 * (`$transaction(async (tx) => ...)`), same-file functions that return one, subclasses,
 * class fields, type annotations and, in typed mode, the type checker; never through a
 * variable's name alone (the sinks readers keep a name heuristic as their last resort).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, isFunctionNode, memberName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { bindingMatches, resolveImported, resolveTypeAnnotation, type ImportBinding, type ImportTable } from './imports.js';
import { LOCAL_LOCK_PACKAGES, REDIS_CLIENT_EXPORTS, REDIS_CLIENT_PACKAGES, type LockModel } from '../models/locks.js';
import { REDIS_CLIENT_COMMAND, SINK_MODELS, sinkModel, type SinkModel } from '../models/sinks.js';
import { BUILTIN_CATALOG, type Catalog } from '../models/catalog.js';

export type ReceiverKind =
  | { type: 'authority'; model: LockModel }
  | { type: 'lockObject'; model: LockModel }
  | { type: 'redis' }
  | { type: 'knex' }
  | { type: 'client'; model: SinkModel }
  | { type: 'local' };

/** Resolves what an expression's static type is, as an import binding: typed mode only. */
export type TypeResolver = (node: Node) => ImportBinding | undefined;

/** `lock`, `this.lock`, `deps.redlock`: a stable text key for a receiver, or undefined when dynamic. */
export function receiverKey(node: Node): string | undefined {
  // `receiverPath(node).join('.')` when no part is computed or a call, built without the array:
  // the walk asks this of every member expression.
  let key: string | undefined;
  let current = unwrap(node);
  for (;;) {
    switch (current.type) {
      case AST_NODE_TYPES.Identifier:
        return key === undefined ? current.name : `${current.name}.${key}`;
      case AST_NODE_TYPES.ThisExpression:
        return key === undefined ? 'this' : `this.${key}`;
      case AST_NODE_TYPES.MemberExpression: {
        const name = memberName(current);
        if (name === undefined || name === '[]' || name.endsWith('()')) return undefined;
        key = key === undefined ? name : `${name}.${key}`;
        current = unwrap(current.object);
        continue;
      }
      case AST_NODE_TYPES.CallExpression:
        return undefined;
      default:
        return key;
    }
  }
}

const KNEX = sinkModel('knex');
const REDIS = sinkModel('redis');
/** Sink models whose clients are not `knex` or `redis` kinds (those two keep their own kinds), per catalog. */
const clientModelsOf = new WeakMap<Catalog, readonly SinkModel[]>();
function clientModels(catalog: Catalog): readonly SinkModel[] {
  let models = clientModelsOf.get(catalog);
  if (!models) {
    models = catalog.sinks.filter((m) => m.id !== 'knex' && m.family !== 'redis' && m.clientExports.length + m.clientTypes.length > 0);
    clientModelsOf.set(catalog, models);
  }
  return models;
}

function clientKind(model: SinkModel): ReceiverKind {
  if (model.id === 'knex') return { type: 'knex' };
  if (model.family === 'redis') return { type: 'redis' };
  return { type: 'client', model };
}

function kindOfBinding(binding: ImportBinding, catalog: Catalog, asType = false): ReceiverKind | undefined {
  for (const model of catalog.locks) {
    if (model.packages.length > 0 && bindingMatches(binding, model.packages, model.authorityExports)) {
      return model.authorityIsHandle ? { type: 'lockObject', model } : { type: 'authority', model };
    }
  }
  if (bindingMatches(binding, REDIS_CLIENT_PACKAGES, asType ? REDIS.clientTypes : REDIS_CLIENT_EXPORTS)) return { type: 'redis' };
  if (bindingMatches(binding, KNEX.packages, asType ? KNEX.clientTypes : KNEX.clientExports)) return { type: 'knex' };
  if (LOCAL_LOCK_PACKAGES.includes(binding.source)) return { type: 'local' };
  for (const model of clientModels(catalog)) {
    if (bindingMatches(binding, model.packages, asType ? model.clientTypes : model.clientExports)) return { type: 'client', model };
  }
  return undefined;
}

/** The sink model a receiver kind stands for, if it is a write client. */
export function sinkModelOfKind(kind: ReceiverKind | undefined): SinkModel | undefined {
  if (!kind) return undefined;
  if (kind.type === 'client') return kind.model;
  if (kind.type === 'knex') return KNEX;
  if (kind.type === 'redis') return REDIS;
  return undefined;
}

const MAX_RESOLVE_DEPTH = 4;
/** What runs a Redis MULTI or pipeline and resolves to its replies. */
const REDIS_BATCH_RUN = /^(?:exec|execAsync|EXEC|exec_atomic|execBuffer)$/;

/** The `multi()`/`pipeline()` call an expression is, or that it is a command chained on. */
function redisBatchRoot(node: Node): TSESTree.CallExpression | undefined {
  let current = unwrap(node);
  for (let i = 0; i < 40 && current.type === AST_NODE_TYPES.CallExpression; i++) {
    const method = calleeName(current);
    if (method === 'multi' || method === 'pipeline' || method === 'batch') return current;
    const object = calleeObject(current);
    if (!object) return undefined;
    current = unwrap(object);
  }
  return undefined;
}

/** Values a variable can be bound to that are made right there, not handed in. */
const BUILT_VALUE = new Set<string>([AST_NODE_TYPES.NewExpression, AST_NODE_TYPES.ObjectExpression, AST_NODE_TYPES.ArrayExpression, AST_NODE_TYPES.Literal]);

export class ReceiverTable {
  private readonly kinds = new Map<string, ReceiverKind>();
  /**
   * Variables bound to a call of a project function (`const logger = getLogger('x')`): what they
   * hold is asked of the module graph only when something uses them as a receiver, so the lint's
   * module bound is not spent on every helper a file happens to call at its top.
   */
  private readonly pending = new Map<string, () => ReceiverKind | undefined>();
  /** Variables this file binds to an object it builds itself (`new Map()`, a literal) that is no known client. */
  private readonly builtHere = new Set<string>();
  /** Same-file functions by name (`getClient`, `this.db`), to see what they return. */
  private readonly functions = new Map<string, FunctionNode>();
  private readonly returnKinds = new Map<FunctionNode, ReceiverKind | null>();
  /** Same-file classes by name, for `class PrismaService extends PrismaClient`. */
  private readonly classes = new Map<string, TSESTree.ClassDeclaration | TSESTree.ClassExpression>();
  /** Same-file type aliases by name, for `type Client = ReturnType<typeof createClient>`. */
  private readonly typeAliases = new Map<string, TSESTree.TypeNode>();
  /** Calls with a callback argument, resolved after the walk: `$transaction(async (tx) => ...)`. */
  private readonly callbackCalls: TSESTree.CallExpression[] = [];
  typeResolver?: TypeResolver;
  /** What an import from one of the project's modules is (a client it creates and exports), through the module graph. */
  importedKind?: (binding: ImportBinding) => ReceiverKind | undefined;
  /** What calling a project module's function gives (`getRedisCache()`), through the module graph. */
  importedCallKind?: (binding: ImportBinding) => ReceiverKind | undefined;
  /** What a project method call gives (`this.redisRepository.pipeline()`), through the module graph. */
  methodCallKind?: (call: TSESTree.CallExpression) => ReceiverKind | undefined;
  /** What a field of an instance of a project class holds (`this.connection.redis`), through the module graph. */
  fieldKind?: (member: TSESTree.MemberExpression) => ReceiverKind | undefined;
  /**
   * Whether a call runs a method the project itself defines (`this.jobRepo.update(id, ...)` on a
   * class of another module): its summary, not the library a receiver's name suggests, says what it writes.
   */
  projectMethod?: (call: TSESTree.CallExpression) => boolean;
  /** The parameters a project query wrapper runs as SQL text and its values (`FunctionSummary.runsSqlParam`), through the module graph. */
  forwardedSql?: (call: TSESTree.CallExpression) => { text: number; values?: number } | undefined;
  /** The library class a project class extends (`Model` of 'sequelize'), through the module graph. */
  libraryBaseOf?: (binding: ImportBinding) => { source: string; name: string } | undefined;

  readonly models: readonly LockModel[];

  constructor(
    private readonly imports: ImportTable,
    /** The configuration's catalog: built-in models and the user's own. */
    readonly catalog: Catalog = BUILTIN_CATALOG,
  ) {
    this.models = catalog.locks;
  }

  /** Whether a receiver is one the settings declare (`leases`, `db`): the declaration wins over a summary of its module. */
  isDeclared(node: Node): boolean {
    const key = receiverKey(node);
    return key !== undefined && this.catalog.declaredReceivers.has(key);
  }

  /** What a receiver path declared in the settings always is (`db`, `this.api`, `leases`). */
  private declaredKind(key: string): ReceiverKind | undefined {
    const declared = this.catalog.declaredReceivers.get(key);
    if (!declared) return undefined;
    if (declared.lock) return declared.lock.authorityIsHandle ? { type: 'lockObject', model: declared.lock } : { type: 'authority', model: declared.lock };
    return declared.sink ? clientKind(declared.sink) : undefined;
  }

  set(key: string, kind: ReceiverKind): void {
    this.pending.delete(key);
    this.kinds.set(key, kind);
  }

  get(key: string): ReceiverKind | undefined {
    return this.lookup(key);
  }

  /** While set, deferred project calls stay unresolved (see `knownKindOf`). */
  private deferring = false;

  /**
   * Whether a receiver is a variable this file bound to an object it built itself (`new Map()`, an
   * object literal) that no model knows: something definite, so never a client by its name.
   */
  isBuiltHere(node: Node): boolean {
    const key = receiverKey(node);
    return key !== undefined && this.builtHere.has(key);
  }

  /**
   * What a receiver is as far as the file already knows, without asking the module graph about a
   * variable bound to a project call: for questions most calls answer no to (is `logger.info(...)`
   * a lock acquire?), which would otherwise summarise every helper module the file calls.
   */
  knownKindOf(node: Node): ReceiverKind | undefined {
    this.deferring = true;
    try {
      return this.kindOf(node);
    } finally {
      this.deferring = false;
    }
  }

  /** The kind recorded for a key, resolving a deferred project call on first use. */
  private lookup(key: string): ReceiverKind | undefined {
    const known = this.kinds.get(key);
    if (known || this.deferring) return known;
    const resolve = this.pending.get(key);
    if (!resolve) return undefined;
    this.pending.delete(key);
    const kind = resolve();
    if (kind) this.kinds.set(key, kind);
    return kind;
  }

  /** `getLogger('x')`, `await getClient()`: a call of a function imported from a module that is not a library. */
  private callsProjectFunction(init: Node): boolean {
    if (!this.importedCallKind) return false;
    const call = unwrap(init);
    if (call.type !== AST_NODE_TYPES.CallExpression || call.callee.type !== AST_NODE_TYPES.Identifier) return false;
    const binding = resolveImported(call.callee, this.imports);
    return binding !== undefined && kindOfBinding(binding, this.catalog) === undefined;
  }

  /** The kind a created value has: `new Redlock()`, `createClient()`, `client.lock('x')`, `knex({...})`, `getRepository(User)`. */
  kindOfCreation(init: Node, depth = 0): ReceiverKind | undefined {
    const node = unwrap(init);
    if (depth > MAX_RESOLVE_DEPTH) return undefined;
    if (node.type === AST_NODE_TYPES.LogicalExpression) return this.kindOf(node.left, depth + 1) ?? this.kindOf(node.right, depth + 1);
    if (node.type === AST_NODE_TYPES.ConditionalExpression) return this.kindOf(node.consequent, depth + 1) ?? this.kindOf(node.alternate, depth + 1);
    if (node.type === AST_NODE_TYPES.NewExpression || node.type === AST_NODE_TYPES.CallExpression) {
      const callee = unwrap(node.callee);
      const binding = resolveImported(callee, this.imports);
      if (binding) {
        // Only a call of an imported function (`getRedisCache()`, `cache.getClient()` of a namespace
        // import) can hand out a client; `Service.findOne()` of a default-imported instance is a
        // method call, and asking would summarise every service module a file touches.
        const direct = callee.type === AST_NODE_TYPES.Identifier || (callee.type === AST_NODE_TYPES.MemberExpression && resolveImported(callee.object, this.imports)?.exported === '*');
        const kind = kindOfBinding(binding, this.catalog) ?? (node.type === AST_NODE_TYPES.CallExpression && direct ? this.importedCallKind?.(binding) : undefined);
        if (kind) return kind;
      }
      // `new PrismaService()` of a same-file subclass of a client.
      if (node.type === AST_NODE_TYPES.NewExpression && callee.type === AST_NODE_TYPES.Identifier) {
        const viaClass = this.kindOfClass(callee.name, depth + 1);
        if (viaClass) return viaClass;
      }
      if (node.type === AST_NODE_TYPES.CallExpression) {
        const object = calleeObject(node);
        const method = calleeName(node);
        // `await redis.multi().rpush(...).exec()`: the replies, not a client.
        if (object && method && REDIS_BATCH_RUN.test(method) && redisBatchRoot(object)) return undefined;
        if (object && method) {
          // Long command chains on a batch: resolve the batch's own receiver, not every link.
          const root = redisBatchRoot(object);
          const rootObject = root && root !== unwrap(object) ? calleeObject(root) : undefined;
          const rootKind = rootObject && this.kindOf(rootObject, depth + 1);
          if (rootKind?.type === 'redis') return rootKind;
          const objectKind = this.kindOf(object, depth + 1);
          if (objectKind?.type === 'authority' && objectKind.model.lockFactory.includes(method)) {
            return { type: 'lockObject', model: objectKind.model };
          }
          // Builder calls on a lock object keep it one (etcd3 `client.lock(k).ttl(5)`).
          if (objectKind?.type === 'lockObject' && !objectKind.model.objectAcquire.includes(method)) return objectKind;
          // A command queued on a Redis transaction or pipeline returns it (`multi().sadd(...).hmset(...)`).
          if (objectKind?.type === 'redis' && redisBatchRoot(object)) return objectKind;
          const model = sinkModelOfKind(objectKind);
          // `await pool.connect()`, `db.collection('x')`, `dataSource.getRepository(User)`, `createClient().connect()`.
          if (model && model.clientFactories.includes(method)) return this.factoryResult(model, method);
        }
        // `pgp(connection)` of pg-promise's initializer, `pgPromise()(url)`: calling a client gives one of the same library.
        const calleeKind = callee.type === AST_NODE_TYPES.Identifier || callee.type === AST_NODE_TYPES.CallExpression ? this.kindOf(callee, depth + 1) : undefined;
        if (calleeKind?.type === 'client') return calleeKind;
        // `getClient()`, `this.db()`: a same-file function that returns a client.
        const key = receiverKey(node.callee);
        const fn = key ? this.functions.get(key) : undefined;
        if (fn) return this.returnKindOf(fn, depth + 1);
        // `Manager.getInstance().getClient()`, `new Manager().getClient()`: a method of a same-file class's instance.
        const classMethod = object && method ? this.instanceMethod(object, method) : undefined;
        if (classMethod) return this.returnKindOf(classMethod, depth + 1);
        // `this.redisRepository.pipeline()`: a project wrapper's method named like a catalog client
        // factory (`pipeline`, `multi`, `connect`) hands out what its summary says; other method
        // calls are not asked (that would summarise every service a file touches).
        if (object && method && this.methodCallKind && this.catalog.sinks.some((m) => m.clientFactories.includes(method))) {
          const viaMethod = this.methodCallKind(node);
          if (viaMethod) return viaMethod;
        }
      }
    }
    return undefined;
  }

  /** TypeORM's `dataSource.getRepository(X)` gives a repository of the same library; a query builder is its own model. */
  private factoryResult(model: SinkModel, method: string): ReceiverKind {
    if (model.id === 'typeorm' && method === 'createQueryBuilder') return clientKind(sinkModel('typeorm-query-builder'));
    return clientKind(model);
  }

  /** The kind of a receiver expression, by key, by its inline creation, or (typed mode) by its type. */
  kindOf(node: Node, depth = 0): ReceiverKind | undefined {
    const key = receiverKey(node);
    if (key !== undefined) {
      const kind = this.declaredKind(key) ?? this.lookup(key);
      if (kind) return kind;
    }
    const created = this.kindOfCreation(node, depth);
    if (created) return created;
    const n = unwrap(node);
    // `import { redis } from '../lib/redis'`: what the project module exports there.
    if (this.importedKind && (n.type === AST_NODE_TYPES.Identifier || n.type === AST_NODE_TYPES.MemberExpression)) {
      const binding = resolveImported(n, this.imports);
      const kind = binding && this.importedKind(binding);
      if (kind) return kind;
    }
    // `this.connection.redis`: a client field of a project class's instance, not asked for cheap questions.
    if (this.fieldKind && !this.deferring && n.type === AST_NODE_TYPES.MemberExpression) {
      const kind = this.fieldKind(n);
      if (kind) return kind;
    }
    // `prisma.account`, `db.users`: a member of a Prisma client or a Mongo `Db` is a delegate of it.
    if (n.type === AST_NODE_TYPES.MemberExpression && depth < MAX_RESOLVE_DEPTH) {
      const objectKind = this.kindOf(n.object, depth + 1);
      if (objectKind?.type === 'client' && (objectKind.model.id === 'prisma' || objectKind.model.id === 'mongodb')) return objectKind;
      // `orm.em`: MikroORM's EntityManager is a member of the `MikroORM` instance.
      if (objectKind?.type === 'client' && objectKind.model.id === 'mikro-orm' && memberName(n) === 'em') return objectKind;
    }
    if (this.typeResolver && depth === 0) {
      const binding = this.typeResolver(node);
      if (binding) return kindOfBinding(binding, this.catalog, true) ?? kindOfBinding(binding, this.catalog);
    }
    return undefined;
  }

  /** Whether a type's binding names something this table can classify (for the type resolver). */
  knows(binding: ImportBinding): boolean {
    return (kindOfBinding(binding, this.catalog, true) ?? kindOfBinding(binding, this.catalog)) !== undefined;
  }

  /** The import a name (or a member of a namespace import) stands for. */
  importOf(node: Node): ImportBinding | undefined {
    return resolveImported(node, this.imports);
  }

  /**
   * The ORM whose records a type names: `connectedAccount: ConnectedAccount` where the project's
   * `ConnectedAccount` extends a record base of a catalogued library (Sequelize `Model`, TypeORM
   * `BaseEntity`), directly or through the project's own base classes. Undefined for any other type.
   */
  recordModelOfType(annotation: TSESTree.TypeNode | undefined): SinkModel | undefined {
    if (!this.libraryBaseOf || annotation?.type !== AST_NODE_TYPES.TSTypeReference) return undefined;
    const binding = resolveTypeAnnotation(annotation, this.imports);
    const base = binding && this.libraryBaseOf(binding);
    if (!base) return undefined;
    const pkg = base.source.startsWith('@') ? base.source.split('/').slice(0, 2).join('/') : base.source.split('/')[0];
    return SINK_MODELS.find((m) => m.records && m.records.bases.includes(base.name) && (m.packages ?? []).includes(pkg!));
  }

  /** The write client a receiver is, if any. */
  sinkModelOf(node: Node): SinkModel | undefined {
    return sinkModelOfKind(this.kindOf(node));
  }

  kindOfType(annotation: TSESTree.TypeNode | undefined, depth = 0): ReceiverKind | undefined {
    if (!annotation) return undefined;
    // `Promise<PoolClient>`, `Repository<User> | undefined`.
    if (annotation.type === AST_NODE_TYPES.TSUnionType) {
      for (const t of annotation.types) {
        const kind = this.kindOfType(t, depth);
        if (kind) return kind;
      }
      return undefined;
    }
    if (annotation.type === AST_NODE_TYPES.TSTypeReference && annotation.typeName.type === AST_NODE_TYPES.Identifier && annotation.typeName.name === 'Promise') {
      return this.kindOfType(annotation.typeArguments?.params[0], depth);
    }
    if (annotation.type === AST_NODE_TYPES.TSTypeReference && annotation.typeName.type === AST_NODE_TYPES.Identifier && depth <= MAX_RESOLVE_DEPTH) {
      const name = annotation.typeName.name;
      const argument = annotation.typeArguments?.params[0];
      // `Awaited<T>`; `ReturnType<typeof createClient>`: what calling the factory gives.
      if (name === 'Awaited' && !this.imports.get(name)) return this.kindOfType(argument, depth + 1);
      if (name === 'ReturnType' && !this.imports.get(name) && argument?.type === AST_NODE_TYPES.TSTypeQuery && argument.exprName.type === AST_NODE_TYPES.Identifier) {
        const factory = this.imports.get(argument.exprName.name);
        return factory ? kindOfBinding(factory, this.catalog) : undefined;
      }
      const alias = this.typeAliases.get(name);
      if (alias) return this.kindOfType(alias, depth + 1);
    }
    const binding = resolveTypeAnnotation(annotation, this.imports);
    if (!binding) {
      if (annotation.type === AST_NODE_TYPES.TSTypeReference && annotation.typeName.type === AST_NODE_TYPES.Identifier) return this.kindOfClass(annotation.typeName.name, depth + 1);
      return undefined;
    }
    const kind = kindOfBinding(binding, this.catalog, true) ?? kindOfBinding(binding, this.catalog) ?? this.kindOfLibrarySubclass(binding);
    // A type names the instance: `Mutex` from redis-semaphore is a lock object, `Lock` from etcd3 too.
    if (!kind && binding.source === 'etcd3' && binding.exported === 'Lock') {
      const model = this.models.find((m) => m.id === 'etcd3');
      if (model) return { type: 'lockObject', model };
    }
    return kind;
  }

  /**
   * An instance of a project class that extends a library's client class (`class OrderRepository
   * extends Repository<Order>`, TypeORM's custom repositories, MikroORM's `EntityRepository`): its
   * inherited methods are the library's writes. Its own methods are project methods, summarised
   * as such; only the write methods of the catalog are read off the base.
   */
  private kindOfLibrarySubclass(binding: ImportBinding): ReceiverKind | undefined {
    const base = this.libraryBaseOf?.(binding);
    return base ? kindOfBinding({ source: base.source, exported: base.name }, this.catalog, true) : undefined;
  }

  /**
   * Method `method` of the same-file class an expression is an instance of: `new Manager()`, or a
   * static accessor of the class that hands out its instance (`Manager.getInstance()`, `Manager.shared`),
   * the singleton shape that owns a project's clients.
   */
  private instanceMethod(object: Node, method: string): FunctionNode | undefined {
    const o = unwrap(object);
    let cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined;
    if (o.type === AST_NODE_TYPES.NewExpression && o.callee.type === AST_NODE_TYPES.Identifier) cls = this.classes.get(o.callee.name);
    else {
      const accessor = o.type === AST_NODE_TYPES.CallExpression ? unwrap(o.callee) : o;
      if (accessor.type === AST_NODE_TYPES.MemberExpression && accessor.object.type === AST_NODE_TYPES.Identifier) {
        const owner = this.classes.get(accessor.object.name);
        const name = memberName(accessor);
        if (owner && name && owner.body.body.some((m) => (m.type === AST_NODE_TYPES.MethodDefinition || m.type === AST_NODE_TYPES.PropertyDefinition) && m.static && m.key.type === AST_NODE_TYPES.Identifier && m.key.name === name && handsOutInstance(m, owner))) cls = owner;
      }
    }
    const found = cls?.body.body.find((m): m is TSESTree.MethodDefinition => m.type === AST_NODE_TYPES.MethodDefinition && !m.static && m.kind === 'method' && m.key.type === AST_NODE_TYPES.Identifier && m.key.name === method);
    return found?.value.type === AST_NODE_TYPES.FunctionExpression ? found.value : undefined;
  }

  /**
   * `client: KvClient` with `export type KvClient = RedisClientType<...>` in a project module: what
   * the module graph says that type is, asked only when the name is used as a receiver (most
   * annotations name DTOs and services, whose modules need not be read for this).
   */
  private recordTypedLater(key: string, annotation: TSESTree.TypeNode | undefined): void {
    if (!this.importedKind || this.kinds.has(key) || annotation?.type !== AST_NODE_TYPES.TSTypeReference) return;
    const binding = resolveTypeAnnotation(annotation, this.imports);
    if (!binding || kindOfBinding(binding, this.catalog) !== undefined) return;
    const importedKind = this.importedKind;
    this.pending.set(key, () => importedKind(binding));
  }

  /**
   * The client a parameter decorator injects: `@InjectModel(User) users: typeof User` from
   * `@nestjs/sequelize` is a Sequelize model, whose type annotation names only the project's class.
   */
  private injectedKind(decorators: readonly TSESTree.Decorator[] | undefined): ReceiverKind | undefined {
    if (!decorators?.length) return undefined;
    for (const decorator of decorators) {
      const expression = unwrap(decorator.expression);
      const binding = resolveImported(expression.type === AST_NODE_TYPES.CallExpression ? expression.callee : expression, this.imports);
      if (!binding) continue;
      const model = this.catalog.sinks.find((m) => m.injectors && bindingMatches(binding, m.injectors.packages, m.injectors.exports));
      if (model) return clientKind(model);
    }
    return undefined;
  }

  /** A same-file class that extends a client (`class PrismaService extends PrismaClient`) is that client. */
  private kindOfClass(name: string, depth: number): ReceiverKind | undefined {
    const cls = this.classes.get(name);
    if (!cls?.superClass || depth > MAX_RESOLVE_DEPTH) return undefined;
    const binding = resolveImported(cls.superClass, this.imports);
    if (binding) return kindOfBinding(binding, this.catalog);
    const superClass = unwrap(cls.superClass);
    return superClass.type === AST_NODE_TYPES.Identifier ? this.kindOfClass(superClass.name, depth + 1) : undefined;
  }

  /** What a same-file function returns: its declared return type, else the kind of what it returns. */
  private returnKindOf(fn: FunctionNode, depth: number): ReceiverKind | undefined {
    const memo = this.returnKinds.get(fn);
    if (memo !== undefined) return memo ?? undefined;
    this.returnKinds.set(fn, null);
    let kind = this.kindOfType(fn.returnType?.typeAnnotation, depth);
    if (!kind) {
      if (fn.body.type !== AST_NODE_TYPES.BlockStatement) kind = this.kindOf(fn.body, depth + 1);
      else {
        const returns: TSESTree.ReturnStatement[] = [];
        collectReturns(fn.body, returns);
        for (const r of returns) {
          kind = r.argument ? this.kindOf(r.argument, depth + 1) : undefined;
          if (kind) break;
        }
      }
    }
    this.returnKinds.set(fn, kind ?? null);
    return kind;
  }

  /** A class member is `this.x`; a static one is also `ClassName.x` (`Mutex.redlock` in a static facade). */
  private setMember(node: TSESTree.PropertyDefinition | TSESTree.MethodDefinition, name: string, kind: ReceiverKind): void {
    this.kinds.set(`this.${name}`, kind);
    const cls = node.parent?.parent;
    if (node.static && (cls?.type === AST_NODE_TYPES.ClassDeclaration || cls?.type === AST_NODE_TYPES.ClassExpression) && cls.id) this.kinds.set(`${cls.id.name}.${name}`, kind);
  }

  /** Registers what a declaration binds: variables, class fields, `this.x = ...`, typed parameters, functions, classes. */
  record(node: Node): void {
    switch (node.type) {
      case AST_NODE_TYPES.VariableDeclarator: {
        if (node.id.type !== AST_NODE_TYPES.Identifier) return;
        if (node.init && isFunctionNode(unwrap(node.init))) {
          this.functions.set(node.id.name, unwrap(node.init) as FunctionNode);
          return;
        }
        const init = node.init;
        const annotation = node.id.typeAnnotation?.typeAnnotation;
        if (init && this.callsProjectFunction(init)) {
          this.pending.set(node.id.name, () => this.kindOfCreation(init) ?? this.kindOfType(annotation));
          return;
        }
        const kind = (init && this.kindOfCreation(init)) ?? this.kindOfType(annotation);
        if (kind) this.set(node.id.name, kind);
        else if (!init) this.recordTypedLater(node.id.name, annotation);
        else if (BUILT_VALUE.has(unwrap(init).type)) this.builtHere.add(node.id.name);
        return;
      }
      case AST_NODE_TYPES.AssignmentExpression: {
        if (node.operator !== '=' && node.operator !== '??=' && node.operator !== '||=') return;
        const key = receiverKey(node.left);
        // `this.db = db` in a constructor copies a typed parameter; `this.db = new Pool()` creates one.
        const kind = this.kindOf(node.right);
        if (key && kind) this.kinds.set(key, kind);
        return;
      }
      case AST_NODE_TYPES.PropertyDefinition: {
        const name = node.key.type === AST_NODE_TYPES.Identifier ? node.key.name : undefined;
        if (!name) return;
        if (node.value && isFunctionNode(node.value)) {
          this.functions.set(`this.${name}`, node.value);
          return;
        }
        const kind = (node.value && this.kindOfCreation(node.value)) ?? this.kindOfType(node.typeAnnotation?.typeAnnotation);
        if (kind) this.setMember(node, name, kind);
        else if (!node.static && !node.value) this.recordTypedLater(`this.${name}`, node.typeAnnotation?.typeAnnotation);
        return;
      }
      case AST_NODE_TYPES.MethodDefinition: {
        const name = node.key.type === AST_NODE_TYPES.Identifier ? node.key.name : undefined;
        if (!name || node.value.type !== AST_NODE_TYPES.FunctionExpression) return;
        // A getter `get db() { return this.pool; }` is read as `this.db`.
        if (node.kind === 'get') {
          const kind = this.returnKindOf(node.value, 0);
          if (kind) this.setMember(node, name, kind);
        } else this.functions.set(`this.${name}`, node.value);
        return;
      }
      case AST_NODE_TYPES.FunctionDeclaration: {
        if (node.id) this.functions.set(node.id.name, node);
        return;
      }
      case AST_NODE_TYPES.ClassDeclaration:
      case AST_NODE_TYPES.ClassExpression: {
        if (node.id) this.classes.set(node.id.name, node);
        return;
      }
      case AST_NODE_TYPES.CallExpression: {
        if (node.arguments.some((a) => isFunctionNode(a))) this.callbackCalls.push(node);
        return;
      }
      case AST_NODE_TYPES.TSTypeAliasDeclaration: {
        this.typeAliases.set(node.id.name, node.typeAnnotation);
        return;
      }
      case AST_NODE_TYPES.TSInterfaceDeclaration: {
        // `declare interface Worker { redis: Redis }` merged with `class Worker`: typed fields of the class.
        if (!mergedClassOf(node)) return;
        for (const member of node.body.body) {
          if (member.type !== AST_NODE_TYPES.TSPropertySignature || member.computed || member.key.type !== AST_NODE_TYPES.Identifier) continue;
          const key = `this.${member.key.name}`;
          const kind = this.kinds.has(key) ? undefined : this.kindOfType(member.typeAnnotation?.typeAnnotation);
          if (kind) this.kinds.set(key, kind);
        }
        return;
      }
      case AST_NODE_TYPES.TSParameterProperty: {
        // `private readonly db: Knex = defaultDb`: the annotation, else what the default creates.
        const withDefault = node.parameter.type === AST_NODE_TYPES.AssignmentPattern ? node.parameter : undefined;
        const param = withDefault ? withDefault.left : node.parameter;
        if (param.type !== AST_NODE_TYPES.Identifier) return;
        const kind = this.kindOfType(param.typeAnnotation?.typeAnnotation) ?? this.injectedKind(node.decorators) ?? (withDefault ? this.kindOf(withDefault.right) : undefined);
        if (kind) {
          this.kinds.set(`this.${param.name}`, kind);
          this.kinds.set(param.name, kind);
        } else if (!withDefault) {
          this.recordTypedLater(`this.${param.name}`, param.typeAnnotation?.typeAnnotation);
          this.recordTypedLater(param.name, param.typeAnnotation?.typeAnnotation);
        }
        return;
      }
      case AST_NODE_TYPES.Identifier: {
        // A typed function parameter: `async function save(lock: Redlock, ...)`.
        const kind = this.kindOfType(node.typeAnnotation?.typeAnnotation) ?? this.injectedKind(node.decorators);
        if (kind) this.kinds.set(node.name, kind);
        else this.recordTypedLater(node.name, node.typeAnnotation?.typeAnnotation);
        return;
      }
      default:
        return;
    }
  }

  /**
   * After the walk: a receiver nothing types (a constructor parameter kept in `this._redis`) that the
   * file sends a command only Redis has (`expire`, `rpush`, `hgetall`) is a Redis client, so its
   * `SET`s are Redis writes. A receiver typed or created as anything, or an instance of a project
   * class (`isProjectInstance`), keeps what it is.
   */
  inferRedisByCommands(calls: readonly TSESTree.CallExpression[], isProjectInstance: (key: string) => boolean = () => false): void {
    for (const call of calls) {
      const method = calleeName(call);
      // A command on a key: `expire(key, ttl)`, `rpush(key, value)`; `lock.expire()` is a lock's own method.
      if (!method || call.arguments.length === 0 || !REDIS_CLIENT_COMMAND.test(method)) continue;
      if (/expire/i.test(method) && call.arguments.length < 2) continue;
      const object = calleeObject(call);
      const key = object && receiverKey(object);
      if (!key || key === 'this' || this.kinds.has(key) || this.pending.has(key) || this.catalog.declaredReceivers.has(key) || isProjectInstance(key)) continue;
      this.kinds.set(key, { type: 'redis' });
    }
  }

  /**
   * After the walk: the parameters of callbacks that a client hands a client to
   * (`prisma.$transaction(async (tx) => ...)`, `knex.transaction(async (trx) => ...)`,
   * `sql.begin(async (sql) => ...)`, `db.tx(async (t) => ...)`), outer calls first so nested
   * ones see their receiver.
   */
  finish(): void {
    for (const call of this.callbackCalls) {
      const object = calleeObject(call);
      const method = calleeName(call);
      if (!object || !method) continue;
      const model = sinkModelOfKind(this.kindOf(object));
      if (!model || !model.clientCallbacks.includes(method)) continue;
      const callback = call.arguments.find((a) => isFunctionNode(a)) as FunctionNode | undefined;
      const param = callback?.params[0];
      if (param?.type === AST_NODE_TYPES.Identifier && !this.lookup(param.name)) this.kinds.set(param.name, clientKind(model));
    }
  }
}

/**
 * A static member that hands out the class's instance: typed as the class, a field holding one,
 * or a method returning `new C()` or a static field (`return Manager.instance`, `this.instance`).
 */
function handsOutInstance(member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition, cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression): boolean {
  const className = cls.id?.name;
  if (!className) return false;
  const namesClass = (t: TSESTree.TypeNode | undefined) => t?.type === AST_NODE_TYPES.TSTypeReference && t.typeName.type === AST_NODE_TYPES.Identifier && t.typeName.name === className;
  if (member.type === AST_NODE_TYPES.PropertyDefinition) {
    const value = member.value && unwrap(member.value);
    return namesClass(member.typeAnnotation?.typeAnnotation) || (value?.type === AST_NODE_TYPES.NewExpression && value.callee.type === AST_NODE_TYPES.Identifier && value.callee.name === className);
  }
  const fn = member.value;
  if (namesClass(fn.returnType?.typeAnnotation)) return true;
  if (fn.body?.type !== AST_NODE_TYPES.BlockStatement) return false;
  const returns: TSESTree.ReturnStatement[] = [];
  collectReturns(fn.body, returns);
  return returns.length > 0 && returns.every((r) => {
    const value = r.argument && unwrap(r.argument);
    if (!value) return false;
    if (value.type === AST_NODE_TYPES.NewExpression) return value.callee.type === AST_NODE_TYPES.Identifier && value.callee.name === className;
    return value.type === AST_NODE_TYPES.MemberExpression && (value.object.type === AST_NODE_TYPES.ThisExpression || (value.object.type === AST_NODE_TYPES.Identifier && value.object.name === className));
  });
}

/**
 * The class an interface is merged with (`export declare interface Queue { ... }` beside
 * `export class Queue`): declaration merging types the class's fields in the interface.
 */
export function mergedClassOf(node: TSESTree.TSInterfaceDeclaration): TSESTree.ClassDeclaration | undefined {
  const holder = node.parent?.type === AST_NODE_TYPES.ExportNamedDeclaration ? node.parent.parent : node.parent;
  if (holder?.type !== AST_NODE_TYPES.Program && holder?.type !== AST_NODE_TYPES.TSModuleBlock) return undefined;
  for (const statement of holder.body) {
    const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ? statement.declaration : statement;
    if (decl?.type === AST_NODE_TYPES.ClassDeclaration && decl.id?.name === node.id.name) return decl;
  }
  return undefined;
}

function collectReturns(node: Node, out: TSESTree.ReturnStatement[]): void {
  switch (node.type) {
    case AST_NODE_TYPES.ReturnStatement:
      out.push(node);
      return;
    case AST_NODE_TYPES.BlockStatement:
      for (const s of node.body) collectReturns(s, out);
      return;
    case AST_NODE_TYPES.IfStatement:
      collectReturns(node.consequent, out);
      if (node.alternate) collectReturns(node.alternate, out);
      return;
    case AST_NODE_TYPES.TryStatement:
      collectReturns(node.block, out);
      if (node.handler) collectReturns(node.handler.body, out);
      return;
    default:
      return;
  }
}
