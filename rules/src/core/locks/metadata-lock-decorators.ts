/**
 * Lock decorators that only record metadata. NestJS projects often write `@DistributedLock(opts)`
 * as `SetMetadata(LOCK_KEY, opts)`, and take the lock elsewhere: an interceptor that reads the key
 * back and runs the handler under redlock, or a start-up hook that finds the decorated methods
 * through the framework's discovery service and wraps them. Nothing the decorated file imports
 * leads there, so the decorator's shape (it records metadata and does nothing else) and its name
 * (it says "lock") stand for the lock: the decorated method is the section.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { isFunctionNode, unwrap, walk, type Node } from '../ast.js';
import { LOCK_DECORATOR_NAME, METADATA_DECORATORS } from '../models/locks.js';
import type { ReceiverTable } from '../modules/receivers.js';

type MetadataRole = 'record' | 'compose';

function roleOf(call: Node, receivers: ReceiverTable): MetadataRole | undefined {
  if (call.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const binding = receivers.importOf(unwrap(call.callee));
  if (!binding || !METADATA_DECORATORS.packages.includes(binding.source)) return undefined;
  if (METADATA_DECORATORS.record.includes(binding.exported)) return 'record';
  return METADATA_DECORATORS.compose.includes(binding.exported) ? 'compose' : undefined;
}

/** `SetMetadata(K, v)`, or `applyDecorators(...)` with one among its arguments. */
function recordsMetadata(value: Node, receivers: ReceiverTable): boolean {
  const n = unwrap(value);
  const role = roleOf(n, receivers);
  if (role === 'record') return true;
  return role === 'compose' && (n as TSESTree.CallExpression).arguments.some((a) => roleOf(unwrap(a), receivers) === 'record');
}

/**
 * Whether a decorator factory named `name` that returns `returned` is a lock decorator made of metadata: it returns
 * `SetMetadata(...)` (or an `applyDecorators` holding one), or a decorator function that applies one
 * to its own arguments (`SetMetadata(K, v)(target, key, descriptor)`).
 */
export function isMetadataLockDecorator(name: string, returned: readonly Node[], receivers: ReceiverTable, sourceCode: SourceCode): boolean {
  if (!LOCK_DECORATOR_NAME.test(name)) return false;
  for (const value of returned) {
    if (recordsMetadata(value, receivers)) return true;
    const inner = unwrap(value);
    if (!isFunctionNode(inner) || inner.params.length < 2) continue;
    let applies = false;
    walk(inner.body, sourceCode.visitorKeys, (node) => {
      if (!applies && node.type === AST_NODE_TYPES.CallExpression && recordsMetadata(node.callee, receivers)) applies = true;
    });
    if (applies) return true;
  }
  return false;
}
