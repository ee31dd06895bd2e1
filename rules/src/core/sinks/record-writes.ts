/**
 * Active-record writes: a record an ORM returned, written back through the record itself
 * (Sequelize `user.save()` / `user.update({...})` / `user.destroy()`, Mongoose `doc.save()`,
 * TypeORM `order.save()` or `repo.save(order)`), and `this.save()` in a method of a model class
 * or a Mongoose schema method. The instance write sends its own `WHERE id = ...`: no condition
 * of the caller's goes with it, so it cannot compare a fence token. Which methods write, which
 * base classes make a model and which option turns the write into a version compare are the
 * catalog's (`records` in `models/sinks.ts`).
 *
 * Conservative by design: a `save()` counts only on a record bound to a model read
 * (`const user = await User.findByPk(id)`) or on `this` in a class that extends the library's
 * base; an object of unknown origin with a `save` method is not a record.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { visitorKeys as treeKeys } from '@typescript-eslint/visitor-keys';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, isFunctionNode, memberName, propertyKeyName, propertyValue, receiverPath, unwrap, walkPruned, type Node } from '../ast.js';
import { RECORD_LIST_READ_METHOD, RECORD_READ_METHOD } from '../models/record-reads.js';
import { SINK_MODELS, type SinkModel, type WriteKind } from '../models/sinks.js';
import type { ReceiverTable } from '../modules/receivers.js';

export interface RecordWrite {
  /** `fetched`: a record bound to a model read; `self`: `this` in a model class or schema method. */
  origin: 'fetched' | 'self';
  /**
   * `this` in a class that extends a project class rather than the library's base: a write of
   * the record only when the instance is one (a caller that read it through a model), so it is
   * judged at such a caller, never in its own file.
   */
  inherited: boolean;
  /** The model's options make the instance write a version compare-and-set (Sequelize `version: true`). */
  versioned: boolean;
  /**
   * The record is a parameter typed as a model class (`keep(order: Order)` saving `order`), read
   * by a caller or built by one: the write is the caller's record's, judged at each call.
   */
  handedIn?: TSESTree.Identifier;
}

export interface RecordWriteReading {
  model: SinkModel;
  method: string;
  kind: WriteKind;
  record: RecordWrite;
}

const RECORD_MODELS = SINK_MODELS.filter((m) => m.records);
/** The tree's own child keys: these readings have no SourceCode at hand. */
const visitorKeys = treeKeys as SourceCode.VisitorKeys;
/** Model reads that name their library: Sequelize `findByPk`, Mongoose `findById`, TypeORM `findOneBy`. */
const READ_LIBRARY: Readonly<Record<string, string>> = { findByPk: 'sequelize', findById: 'mongodb', findOneBy: 'typeorm', findOneByOrFail: 'typeorm', findOneOrFail: 'typeorm', findBy: 'typeorm', findAll: 'sequelize', find: 'mongodb' };

function recordKind(model: SinkModel, method: string): WriteKind | undefined {
  return Object.prototype.hasOwnProperty.call(model.records!.methods, method) ? model.records!.methods[method] : undefined;
}

/** The `const`/`let` declarator of a name in an enclosing block. */
function declaratorOf(id: TSESTree.Identifier): TSESTree.VariableDeclarator | undefined {
  for (let scope: Node | undefined = id.parent; scope; scope = scope.parent) {
    if (scope.type !== AST_NODE_TYPES.BlockStatement && scope.type !== AST_NODE_TYPES.Program) continue;
    for (const statement of scope.body) {
      if (statement.type !== AST_NODE_TYPES.VariableDeclaration) continue;
      for (const d of statement.declarations) if (d.id.type === AST_NODE_TYPES.Identifier && d.id.name === id.name) return d;
    }
  }
  return undefined;
}

/**
 * `Model.findByPk(id)`, `Job.findById(id).exec()`, `repo.findOneBy({ id })`: the read call, past
 * an `exec()`. With `list`, also reads of several records (`repo.find(...)`, `Model.findAll()`).
 */
function modelRead(init: Node | undefined, list = false): TSESTree.CallExpression | undefined {
  let call = init && unwrap(init);
  if (call?.type === AST_NODE_TYPES.CallExpression && calleeName(call) === 'exec') call = calleeObject(call) && unwrap(calleeObject(call)!);
  if (call?.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const name = calleeName(call) ?? '';
  return RECORD_READ_METHOD.test(name) || (list && RECORD_LIST_READ_METHOD.test(name)) ? call : undefined;
}

/** Whether `statement` assigns `name` anywhere inside it (a nested function's own scope aside). */
function assigns(statement: Node, name: string): boolean {
  let found = false;
  walkPruned(statement, visitorKeys, (n) => {
    if (found) return 'stop';
    if (n !== statement && isFunctionNode(n)) return false;
    if (n.type === AST_NODE_TYPES.AssignmentExpression && n.left.type === AST_NODE_TYPES.Identifier && n.left.name === name) found = true;
    else if (n.type === AST_NODE_TYPES.UpdateExpression && n.argument.type === AST_NODE_TYPES.Identifier && n.argument.name === name) found = true;
    return !found;
  });
  return found;
}

/**
 * The value a `let` holds where `id` reads it, when the nearest earlier statement of an enclosing
 * block that changes it is a plain `name = value;` (`wallet = repo.create({...})` in the branch
 * where the read found none). Undefined when a nearer statement may change it in a branch, or
 * when no statement of the function does (the declarator then says what it holds).
 */
function lastAssigned(id: TSESTree.Identifier): Node | undefined {
  let inner: Node = id;
  for (let block: Node | undefined = id.parent; block && !isFunctionNode(block); inner = block, block = block.parent) {
    if (block.type !== AST_NODE_TYPES.BlockStatement) continue;
    const at = block.body.indexOf(inner as TSESTree.Statement);
    for (let i = at - 1; i >= 0; i--) {
      const statement = block.body[i];
      if (statement.type === AST_NODE_TYPES.VariableDeclaration && statement.declarations.some((d) => d.id.type === AST_NODE_TYPES.Identifier && d.id.name === id.name)) return undefined;
      if (!assigns(statement, id.name)) continue;
      const expression = statement.type === AST_NODE_TYPES.ExpressionStatement ? unwrap(statement.expression) : undefined;
      return expression?.type === AST_NODE_TYPES.AssignmentExpression && expression.operator === '=' && expression.left.type === AST_NODE_TYPES.Identifier ? expression.right : undefined;
    }
  }
  return undefined;
}

/** A `let` last set to a record the function built (see `lastAssigned`): saving it inserts. */
function assignedBuilt(id: TSESTree.Identifier): boolean {
  const value = lastAssigned(id);
  return !!value && value !== id && isBuiltRecord(value);
}

/**
 * The read a record comes from: its own declarator's, or, for an element of a list read
 * (`for (const row of rows)`, `rows.forEach((row) => ...)`), the list's. `list` lets the
 * record itself be the list (`repo.save(rows)`).
 */
function recordRead(id: TSESTree.Identifier, list: boolean, depth = 0): TSESTree.CallExpression | undefined {
  // `record = await repo.findOneBy(...)` since its declaration: that read's record.
  const assigned = lastAssigned(id);
  if (assigned) return modelRead(assigned, list);
  const own = declaratorOf(id);
  const init = own?.init ? unwrap(own.init) : undefined;
  // `const advert = pub.advert`, where `pub` was read with `include: [...]`: the associated record
  // came with the same read and is written back through the same ORM.
  if (init?.type === AST_NODE_TYPES.MemberExpression && !init.computed && init.object.type === AST_NODE_TYPES.Identifier && depth < 2) {
    const parentRead = recordRead(init.object, false, depth + 1);
    return parentRead && readsAssociations(parentRead) ? parentRead : undefined;
  }
  if (own) return modelRead(own.init ?? undefined, list);
  const element = listOfElement(id);
  return element ? modelRead(declaratorOf(element)?.init ?? undefined, true) : undefined;
}

/** A read that loads associated records with the record: Sequelize `include`, TypeORM `relations`. */
function readsAssociations(read: TSESTree.CallExpression): boolean {
  const options = read.arguments.find((a) => a.type === AST_NODE_TYPES.ObjectExpression);
  return !!options && (propertyValue(options, 'include') !== undefined || propertyValue(options, 'relations') !== undefined);
}

/** The list an element name iterates: `for (const row of rows)` or a callback of `rows.forEach/map`. */
function listOfElement(id: TSESTree.Identifier): TSESTree.Identifier | undefined {
  for (let n: Node | undefined = id.parent; n; n = n.parent) {
    if (n.type === AST_NODE_TYPES.ForOfStatement && n.left.type === AST_NODE_TYPES.VariableDeclaration) {
      const bound = n.left.declarations[0]?.id;
      const right = unwrap(n.right);
      if (bound?.type === AST_NODE_TYPES.Identifier && bound.name === id.name) return right.type === AST_NODE_TYPES.Identifier ? right : undefined;
      // `for (const [i, row] of rows.entries())`: the second element is the row.
      const entry = bound?.type === AST_NODE_TYPES.ArrayPattern ? bound.elements[1] : undefined;
      if (entry?.type === AST_NODE_TYPES.Identifier && entry.name === id.name) {
        const list = right.type === AST_NODE_TYPES.CallExpression && calleeName(right) === 'entries' && right.arguments.length === 0 ? calleeObject(right) : undefined;
        return list && unwrap(list).type === AST_NODE_TYPES.Identifier ? (unwrap(list) as TSESTree.Identifier) : undefined;
      }
    }
    if (isFunctionNode(n)) {
      const first = n.params[0];
      if (first?.type === AST_NODE_TYPES.Identifier && first.name === id.name) {
        const call = n.parent;
        const list = call?.type === AST_NODE_TYPES.CallExpression && call.arguments[0] === n && /^(?:forEach|map)$/.test(calleeName(call) ?? '') ? calleeObject(call) : undefined;
        return list && unwrap(list).type === AST_NODE_TYPES.Identifier ? (unwrap(list) as TSESTree.Identifier) : undefined;
      }
      if (n.params.some((p) => p.type === AST_NODE_TYPES.Identifier && p.name === id.name)) return undefined;
    }
  }
  return undefined;
}

/**
 * The ORM behind a record bound to a model read: the read's receiver resolved to one, or a model
 * class by its name (`User.findByPk`), or a TypeORM repository by its name; undefined for a
 * plain client (`prisma.user.findUnique`, `db.collection('x').findOne`), which returns data.
 */
export function fetchedRecordModel(record: Node, receivers?: ReceiverTable, list = false): SinkModel | undefined {
  const id = unwrap(record);
  // `user.collective.update(...)` after `User.findByPk(id, { include: [...] })`: the associated
  // record came with the read (as `const collective = user.collective` does above).
  if (id.type === AST_NODE_TYPES.MemberExpression && !id.computed && !list) {
    const object = unwrap(id.object);
    const parentRead = object.type === AST_NODE_TYPES.Identifier ? recordRead(object, false) : undefined;
    return parentRead && readsAssociations(parentRead) ? modelOfRead(parentRead, receivers) : undefined;
  }
  if (id.type !== AST_NODE_TYPES.Identifier) return undefined;
  // Read first, then built where the read found none: this save inserts the new record.
  if (assignedBuilt(id)) return undefined;
  const read = recordRead(id, list);
  // A parameter typed as a model class: the caller's record, saved back as a fetched one is
  // (`repo.save(order)` in a service handed `order: Order`).
  if (!read) return typedParameterModel(id, receivers);
  return modelOfRead(read, receivers);
}

/** The ORM behind a model read: its receiver resolved to one, a model class by its name, or a TypeORM repository by its name. */
function modelOfRead(read: TSESTree.CallExpression, receivers?: ReceiverTable): SinkModel | undefined {
  const owner = calleeObject(read);
  if (!owner) return undefined;
  const resolved = receivers?.sinkModelOf(owner);
  if (resolved) return resolved.records ? resolved : undefined;
  const path = receiverPath(owner);
  const last = path[path.length - 1] ?? '';
  const hinted = READ_LIBRARY[calleeName(read) ?? ''];
  const byHint = (fallback: string) => RECORD_MODELS.find((m) => m.id === (hinted ?? fallback));
  if (RECORD_MODELS.find((m) => m.id === 'typeorm')!.receiverNames!.test(last)) return byHint('typeorm');
  // A model class named as such (`User`, `models.Job`); a member of a client (`prisma.User`) is no model.
  if (/^[A-Z]/.test(last) && (path.length === 1 || unwrap(owner).type === AST_NODE_TYPES.MemberExpression && !/prisma|client|db$/i.test(path[path.length - 2] ?? ''))) return byHint('sequelize');
  return undefined;
}

/**
 * A parameter typed as one of the project's model classes (`connectedAccount: ConnectedAccount`,
 * a class that extends Sequelize's `Model`): the caller hands in a record of that model, so its
 * `update()` writes the record back as a fetched one's does. Only the nearest function declaring
 * the name is read, and only a type the module graph traces to a library's record base.
 */
function typedParameterModel(id: TSESTree.Identifier, receivers: ReceiverTable | undefined): SinkModel | undefined {
  if (!receivers?.libraryBaseOf) return undefined;
  for (let n: Node | undefined = id.parent; n; n = n.parent) {
    if (!isFunctionNode(n)) continue;
    for (const param of n.params) {
      const p = param.type === AST_NODE_TYPES.AssignmentPattern ? param.left : param;
      if (p.type === AST_NODE_TYPES.Identifier && p.name === id.name) return receivers.recordModelOfType(p.typeAnnotation?.typeAnnotation);
    }
  }
  return undefined;
}

/** The class whose instance `this` is at `node`: a method or a field's arrow function. */
function classOfThis(node: Node): TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined {
  for (let n: Node | undefined = node.parent; n; n = n.parent) {
    if (n.type === AST_NODE_TYPES.FunctionExpression || n.type === AST_NODE_TYPES.FunctionDeclaration) {
      const owner = n.parent;
      if (owner?.type !== AST_NODE_TYPES.MethodDefinition || owner.static || owner.kind === 'constructor') return undefined;
      continue;
    }
    if (n.type === AST_NODE_TYPES.PropertyDefinition) {
      if (n.static) return undefined;
      continue;
    }
    if (n.type === AST_NODE_TYPES.ClassBody) return n.parent as TSESTree.ClassDeclaration | TSESTree.ClassExpression;
  }
  return undefined;
}

/**
 * A Mongoose schema method: `schema.methods.rotate = function () {...}`, `schema.method('rotate', function () {...})`,
 * or a function in `schema.methods = { ... }`. Returns the schema's name.
 */
function schemaOfMethod(node: Node): string | undefined {
  let fn: Node | undefined = node.parent;
  while (fn && !isFunctionNode(fn)) fn = fn.parent;
  if (!fn || fn.type === AST_NODE_TYPES.ArrowFunctionExpression) return undefined;
  let host: Node | undefined = fn.parent;
  if (host?.type === AST_NODE_TYPES.Property) host = host.parent?.parent;
  if (host?.type === AST_NODE_TYPES.AssignmentExpression) {
    const path = receiverPath(host.left);
    const at = path.indexOf('methods');
    return at > 0 ? path[at - 1] : undefined;
  }
  if (host?.type === AST_NODE_TYPES.CallExpression && calleeName(host) === 'method') {
    const path = calleeObject(host) ? receiverPath(calleeObject(host)!) : [];
    return path[path.length - 1];
  }
  return undefined;
}

/** The library base a class extends, through classes of the same file; `project` for an imported project class. */
function baseOf(cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression, receivers: ReceiverTable | undefined, program: TSESTree.Program, depth = 0): SinkModel | 'project' | undefined {
  const superClass = cls.superClass && unwrap(cls.superClass);
  if (!superClass || depth > 4) return undefined;
  const binding = receivers?.importOf(superClass);
  if (binding) {
    const model = RECORD_MODELS.find((m) => m.packages.includes(binding.source) && m.records!.bases.includes(binding.exported === 'default' ? memberName(superClass) ?? binding.exported : binding.exported));
    if (model) return model;
    // Another of the library's exports is no model base; a class imported from anywhere else may be a project model.
    return RECORD_MODELS.some((m) => m.packages.includes(binding.source)) ? undefined : 'project';
  }
  if (superClass.type !== AST_NODE_TYPES.Identifier) return undefined;
  for (const statement of program.body) {
    const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ? statement.declaration : statement;
    if (decl?.type === AST_NODE_TYPES.ClassDeclaration && decl.id?.name === superClass.name) return baseOf(decl, receivers, program, depth + 1);
  }
  return undefined;
}

function programOf(node: Node): TSESTree.Program {
  let n: Node = node;
  while (n.parent) n = n.parent;
  return n as TSESTree.Program;
}

/** `{ version: true }` / `{ optimisticConcurrency: true }` as the option object's own property. */
function optionSet(object: Node | undefined, option: string): boolean {
  const o = object && unwrap(object);
  if (o?.type !== AST_NODE_TYPES.ObjectExpression) return false;
  const value = propertyValue(o, option);
  return !!value && unwrap(value).type === AST_NODE_TYPES.Literal && (unwrap(value) as TSESTree.Literal).value === true;
}

/**
 * Whether the file declares the model `name` with the catalog's version option: Sequelize
 * `Name.init(attrs, { version: true })`, `const Name = sequelize.define(n, attrs, { version: true })`,
 * `@Table({ version: true }) class Name`; Mongoose `new Schema(def, { optimisticConcurrency: true })`
 * bound to `name` or to the schema of `model(n, schema)` bound to `name`.
 */
function declaredVersioned(name: string, model: SinkModel, program: TSESTree.Program, depth = 0): boolean {
  const option = model.records?.versionOption;
  if (!option || depth > 2) return false;
  for (const top of program.body) {
    const statement = top.type === AST_NODE_TYPES.ExportNamedDeclaration || top.type === AST_NODE_TYPES.ExportDefaultDeclaration ? top.declaration : top;
    if (!statement) continue;
    if (statement.type === AST_NODE_TYPES.ClassDeclaration && statement.id?.name === name) {
      const decorated = (statement.decorators ?? []).some((d) => {
        const call = unwrap(d.expression);
        return call.type === AST_NODE_TYPES.CallExpression && call.arguments.some((a) => optionSet(a, option));
      });
      if (decorated) return true;
    }
    if (statement.type === AST_NODE_TYPES.ExpressionStatement) {
      const call = unwrap(statement.expression);
      const target = call.type === AST_NODE_TYPES.CallExpression ? calleeObject(call) : undefined;
      if (call.type === AST_NODE_TYPES.CallExpression && calleeName(call) === 'init' && target && unwrap(target).type === AST_NODE_TYPES.Identifier && (unwrap(target) as TSESTree.Identifier).name === name && optionSet(call.arguments[1], option)) return true;
    }
    if (statement.type !== AST_NODE_TYPES.VariableDeclaration) continue;
    for (const d of statement.declarations) {
      if (d.id.type !== AST_NODE_TYPES.Identifier || d.id.name !== name || !d.init) continue;
      const init = unwrap(d.init);
      if (init.type !== AST_NODE_TYPES.CallExpression && init.type !== AST_NODE_TYPES.NewExpression) continue;
      if (init.arguments.some((a) => optionSet(a, option))) return true;
      // `const Job = model('Job', jobSchema)`: the schema's options.
      for (const a of init.arguments) {
        const arg = unwrap(a);
        if (arg.type === AST_NODE_TYPES.Identifier && arg.name !== name && declaredVersioned(arg.name, model, program, depth + 1)) return true;
      }
    }
  }
  return false;
}

/** The record write a call makes, if it writes back a record through the record (or a repository that saves it). */
export function readRecordWrite(node: TSESTree.CallExpression, receivers?: ReceiverTable): RecordWriteReading | undefined {
  const method = calleeName(node);
  const object = calleeObject(node);
  if (!method || !object || !RECORD_MODELS.some((m) => recordKind(m, method))) return undefined;
  const receiver = unwrap(object);
  // `this.jobRepo.save(job)` on a project class defining `save`: its summary says what it writes.
  if (receiver.type !== AST_NODE_TYPES.ThisExpression && !receivers?.sinkModelOf(receiver) && receivers?.projectMethod?.(node)) return undefined;
  if (receiver.type === AST_NODE_TYPES.ThisExpression) {
    const cls = classOfThis(receiver);
    if (cls) {
      const base = baseOf(cls, receivers, programOf(node));
      if (!base) return undefined;
      const model = base === 'project' ? RECORD_MODELS.find((m) => recordKind(m, method) && m.records!.bases.length > 0)! : base;
      const kind = recordKind(model, method);
      if (!kind) return undefined;
      const versioned = !!cls.id && declaredVersioned(cls.id.name, model, programOf(node));
      return { model, method, kind, record: { origin: 'self', inherited: base === 'project', versioned } };
    }
    const schema = schemaOfMethod(receiver);
    const mongoose = RECORD_MODELS.find((m) => m.id === 'mongodb')!;
    const kind = schema && recordKind(mongoose, method);
    if (!kind) return undefined;
    return { model: mongoose, method, kind, record: { origin: 'self', inherited: false, versioned: declaredVersioned(schema, mongoose, programOf(node)) } };
  }
  // `repo.save(order)` of an entity read before: the repository writes the record back.
  const first = node.arguments[0];
  const repository = receivers?.sinkModelOf(receiver)?.id === 'typeorm' || /(?:repo|repository|manager)$/i.test(receiverPath(receiver).pop() ?? '');
  const viaRepository = repository && !!first && first.type !== AST_NODE_TYPES.SpreadElement;
  const model = viaRepository ? fetchedRecordModel(first, receivers, true) : fetchedRecordModel(receiver, receivers);
  const kind = model && recordKind(model, method);
  if (!model || !kind) return undefined;
  const recordNode = unwrap(viaRepository ? first : receiver);
  const read = recordNode.type === AST_NODE_TYPES.Identifier ? recordRead(recordNode, viaRepository) : undefined;
  const modelName = read && calleeObject(read) && unwrap(calleeObject(read)!).type === AST_NODE_TYPES.Identifier ? (unwrap(calleeObject(read)!) as TSESTree.Identifier).name : undefined;
  const versioned = !!modelName && declaredVersioned(modelName, model, programOf(node));
  const handedIn = !read && recordNode.type === AST_NODE_TYPES.Identifier ? { handedIn: recordNode } : {};
  return { model, method, kind, record: { origin: 'fetched', inherited: false, versioned, ...handedIn } };
}

/** Keys the instance write stores: `user.update({ name })` gives `name`; `save()` stores what was assigned. */
export function recordWriteKeys(node: TSESTree.CallExpression): string[] {
  const values = node.arguments[0] && unwrap(node.arguments[0]);
  if (values?.type !== AST_NODE_TYPES.ObjectExpression) return [];
  return values.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property ? [propertyKeyName(p) ?? ''].filter(Boolean) : []));
}

/** Whether a method call is made on a record a model read returned (`user.rotateSecret()` after `User.findByPk`). */
export function recordReceiver(call: TSESTree.CallExpression | TSESTree.NewExpression, receivers?: ReceiverTable): boolean {
  if (call.type !== AST_NODE_TYPES.CallExpression) return false;
  const object = calleeObject(call);
  return !!object && fetchedRecordModel(object, receivers) !== undefined;
}

/**
 * A record the caller has just built rather than read (`new Order()`, `repo.create({...})`, an
 * object literal, or a local bound to one): saving it inserts a row no other holder knows.
 */
export function isBuiltRecord(arg: Node | undefined): boolean {
  const n = arg && unwrap(arg);
  if (!n) return false;
  if (n.type === AST_NODE_TYPES.NewExpression || n.type === AST_NODE_TYPES.ObjectExpression) return true;
  // `repo.create({...})`, or a factory named for making one (`newBin(label)`, `buildOrder(...)`).
  if (n.type === AST_NODE_TYPES.CallExpression) return /^(?:merge|(?:create|build|make|new)(?:[A-Z]\w*)?)$/.test(calleeName(n) ?? '');
  if (n.type !== AST_NODE_TYPES.Identifier) return false;
  if (assignedBuilt(n)) return true;
  const init = declaratorOf(n)?.init;
  return !!init && init !== n && isBuiltRecord(init);
}
