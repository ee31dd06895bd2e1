/**
 * Locks keyed by a value the same function has just made: `const runId = randomUUID()` (or a
 * project's `genRunId()`, a library `nanoid()`, the id of a record it has just created), then
 * `acquire(\`run:${runId}\`)`. No other holder can name that key, so nobody contends for the lock
 * and no write under it can be late over another holder's: such a section protects nothing the
 * fence rules judge. A key with any other part fresh is as unique; a key made only of what the
 * caller passed in (or a constant) is anybody's.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, constInitializer, unwrap, type Node } from '../ast.js';
import { ID_GENERATOR_NAME, ID_KEEPING_METHOD } from '../models/id-generators.js';
import { clockImports, clockSourceOf } from '../modules/value-origin.js';

/** Whether a value a lock key is built from is fresh here: `isRecordId` says whether it is a just-created record's identity. */
export function isFreshKey(node: Node | undefined, sourceCode: SourceCode, isRecordId: (node: Node) => boolean, depth = 0): boolean {
  if (!node || depth > 4) return false;
  const n = unwrap(node);
  switch (n.type) {
    case AST_NODE_TYPES.TemplateLiteral:
      return n.expressions.some((e) => isFreshKey(e, sourceCode, isRecordId, depth + 1));
    case AST_NODE_TYPES.BinaryExpression:
      return n.operator === '+' && (isFreshKey(n.left, sourceCode, isRecordId, depth + 1) || isFreshKey(n.right, sourceCode, isRecordId, depth + 1));
    case AST_NODE_TYPES.ArrayExpression:
      // Every key of a multi-key lock must be fresh, or the others are contended.
      return n.elements.length > 0 && n.elements.every((e) => !!e && e.type !== AST_NODE_TYPES.SpreadElement && isFreshKey(e, sourceCode, isRecordId, depth + 1));
    case AST_NODE_TYPES.AwaitExpression:
      return isFreshKey(n.argument, sourceCode, isRecordId, depth + 1);
    case AST_NODE_TYPES.Identifier: {
      if (isRecordId(n)) return true;
      const init = constInitializer(n, sourceCode);
      return !!init && isFreshKey(init, sourceCode, isRecordId, depth + 1);
    }
    case AST_NODE_TYPES.MemberExpression:
      return isRecordId(n);
    case AST_NODE_TYPES.NewExpression:
      return calleeName(n) === 'ObjectId' && n.arguments.length === 0;
    case AST_NODE_TYPES.CallExpression: {
      const name = calleeName(n) ?? '';
      const callee = unwrap(n.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression && ID_KEEPING_METHOD.test(name)) return isFreshKey(callee.object, sourceCode, isRecordId, depth + 1);
      if (ID_GENERATOR_NAME.test(name) && n.arguments.length === 0) return true;
      // A random or time-ordered id by the shared clock catalog: `randomUUID()`, uuid's `v4()`, cuid2's `createId()`.
      const kind = clockSourceOf(n, sourceCode, clockImports(sourceCode))?.kind;
      return kind === 'random' || kind === 'time-id';
    }
    default:
      return false;
  }
}

/** The argument that names an acquire's lock: its first (`acquire([key], ttl)`, `withLock(key, fn)`), or a script's claimed key. */
export function lockKeyArgument(call: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, keyNode: Node | undefined): Node | undefined {
  if (keyNode) return keyNode;
  if (call.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const first = call.arguments[0];
  return first && first.type !== AST_NODE_TYPES.SpreadElement ? first : undefined;
}
