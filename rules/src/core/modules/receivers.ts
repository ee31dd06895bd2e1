/**
 * What a receiver is: a lock authority, a lock object, a Redis client, an in-process lock
 * or a knex instance. Resolved through imports, constructor and factory calls, class
 * fields and type annotations; never through a variable's name alone.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, receiverPath, unwrap, type Node } from '../ast.js';
import { bindingMatches, resolveImported, resolveTypeAnnotation, type ImportBinding, type ImportTable } from './imports.js';
import { LOCAL_LOCK_PACKAGES, REDIS_CLIENT_EXPORTS, REDIS_CLIENT_PACKAGES, type LockModel } from '../models/locks.js';

export type ReceiverKind =
  | { type: 'authority'; model: LockModel }
  | { type: 'lockObject'; model: LockModel }
  | { type: 'redis' }
  | { type: 'knex' }
  | { type: 'local' };

/** `lock`, `this.lock`, `deps.redlock`: a stable text key for a receiver, or undefined when dynamic. */
export function receiverKey(node: Node): string | undefined {
  const path = receiverPath(node);
  if (path.length === 0 || path.some((part) => part === '[]' || part.endsWith('()'))) return undefined;
  return path.join('.');
}

function kindOfBinding(binding: ImportBinding, models: readonly LockModel[]): ReceiverKind | undefined {
  for (const model of models) {
    if (model.packages.length > 0 && bindingMatches(binding, model.packages, model.authorityExports)) {
      return model.authorityIsHandle ? { type: 'lockObject', model } : { type: 'authority', model };
    }
  }
  if (bindingMatches(binding, REDIS_CLIENT_PACKAGES, REDIS_CLIENT_EXPORTS)) return { type: 'redis' };
  if (binding.source === 'knex' && ['default', 'knex', 'Knex', '*'].includes(binding.exported)) return { type: 'knex' };
  if (LOCAL_LOCK_PACKAGES.includes(binding.source)) return { type: 'local' };
  return undefined;
}

export class ReceiverTable {
  private readonly kinds = new Map<string, ReceiverKind>();

  constructor(
    private readonly imports: ImportTable,
    readonly models: readonly LockModel[],
  ) {}

  set(key: string, kind: ReceiverKind): void {
    this.kinds.set(key, kind);
  }

  get(key: string): ReceiverKind | undefined {
    return this.kinds.get(key);
  }

  /** The kind a created value has: `new Redlock()`, `createClient()`, `client.lock('x')`, `knex({...})`. */
  kindOfCreation(init: Node): ReceiverKind | undefined {
    const node = unwrap(init);
    if (node.type === AST_NODE_TYPES.NewExpression || node.type === AST_NODE_TYPES.CallExpression) {
      const callee = unwrap(node.callee);
      const binding = resolveImported(callee, this.imports);
      if (binding) {
        const kind = kindOfBinding(binding, this.models);
        if (kind) return kind;
      }
      if (node.type === AST_NODE_TYPES.CallExpression) {
        const object = calleeObject(node);
        const method = calleeName(node);
        if (object && method) {
          const objectKind = this.kindOf(object);
          if (objectKind?.type === 'authority' && objectKind.model.lockFactory.includes(method)) {
            return { type: 'lockObject', model: objectKind.model };
          }
          // Builder calls on a lock object keep it one (etcd3 `client.lock(k).ttl(5)`).
          if (objectKind?.type === 'lockObject' && !objectKind.model.objectAcquire.includes(method)) return objectKind;
          // node-redis: `await createClient().connect()` is the client.
          if (objectKind?.type === 'redis' && method === 'connect') return objectKind;
          if (objectKind?.type === 'knex' && (method === 'transaction' || method === 'withSchema')) return objectKind;
        }
      }
    }
    return undefined;
  }

  /** The kind of a receiver expression, by key or by its inline creation. */
  kindOf(node: Node): ReceiverKind | undefined {
    const key = receiverKey(node);
    if (key !== undefined) {
      const kind = this.kinds.get(key);
      if (kind) return kind;
    }
    return this.kindOfCreation(node);
  }

  kindOfType(annotation: TSESTree.TypeNode | undefined): ReceiverKind | undefined {
    const binding = resolveTypeAnnotation(annotation, this.imports);
    if (!binding) return undefined;
    const kind = kindOfBinding(binding, this.models);
    // A type names the instance: `Mutex` from redis-semaphore is a lock object, `Lock` from etcd3 too.
    if (!kind && binding.source === 'etcd3' && binding.exported === 'Lock') {
      const model = this.models.find((m) => m.id === 'etcd3');
      if (model) return { type: 'lockObject', model };
    }
    if (!kind && binding.source === 'knex' && binding.exported === 'Knex') return { type: 'knex' };
    return kind;
  }

  /** Registers what a declaration binds: variables, class fields, `this.x = ...`, typed parameters. */
  record(node: Node): void {
    switch (node.type) {
      case AST_NODE_TYPES.VariableDeclarator: {
        if (node.id.type !== AST_NODE_TYPES.Identifier) return;
        const kind = (node.init && this.kindOfCreation(node.init)) ?? this.kindOfType(node.id.typeAnnotation?.typeAnnotation);
        if (kind) this.kinds.set(node.id.name, kind);
        return;
      }
      case AST_NODE_TYPES.AssignmentExpression: {
        if (node.operator !== '=') return;
        const key = receiverKey(node.left);
        const kind = this.kindOfCreation(node.right);
        if (key && kind) this.kinds.set(key, kind);
        return;
      }
      case AST_NODE_TYPES.PropertyDefinition: {
        const name = node.key.type === AST_NODE_TYPES.Identifier ? node.key.name : undefined;
        if (!name) return;
        const kind = (node.value && this.kindOfCreation(node.value)) ?? this.kindOfType(node.typeAnnotation?.typeAnnotation);
        if (kind) this.kinds.set(`this.${name}`, kind);
        return;
      }
      case AST_NODE_TYPES.TSParameterProperty: {
        const param = node.parameter;
        if (param.type !== AST_NODE_TYPES.Identifier) return;
        const kind = this.kindOfType(param.typeAnnotation?.typeAnnotation);
        if (kind) {
          this.kinds.set(`this.${param.name}`, kind);
          this.kinds.set(param.name, kind);
        }
        return;
      }
      case AST_NODE_TYPES.Identifier: {
        // A typed function parameter: `async function save(lock: Redlock, ...)`.
        const kind = this.kindOfType(node.typeAnnotation?.typeAnnotation);
        if (kind) this.kinds.set(node.name, kind);
        return;
      }
      default:
        return;
    }
  }
}

