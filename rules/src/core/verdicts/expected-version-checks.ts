/**
 * Optimistic concurrency done in two steps: the newest version of a record (its latest snapshot,
 * its current revision) is read, its id or version is compared in application code with the one
 * the caller saw (`if (latestSnapshot.id !== snapshotId) throw ...`), and the writes follow as
 * separate statements. Under a lease this is the read-then-update gap again: a holder whose lease
 * lapsed after the comparison still writes, over the version a newer holder has just made. The
 * compared value is no fence token, so a fence on the write does not close this gap, nor the
 * reverse: the write's missing fence is reported on its own too.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, receiverPath, unwrap, type Node } from '../ast.js';
import type { FileAnalysis } from '../file-analysis.js';
import { LATEST_RECORD_NAME, RECORD_IDENTITY_FIELD, SEEN_VERSION_NAME, VERSIONED_RECORD_NAME } from '../models/record-reads.js';
import type { Check } from './check-then-write.js';
import { comparisonsOfValue, guardsOf } from './guards.js';

const EQUALITY = new Set(['===', '!==', '==', '!=']);

/** Where a call's awaited result is bound: `const latest = await getLatest(...)`. */
function boundName(call: Node): string | undefined {
  let current: Node = call;
  while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression || current.parent.type === AST_NODE_TYPES.TSNonNullExpression)) current = current.parent;
  const parent = current.parent;
  return parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier ? parent.id.name : undefined;
}

/** The parameter name a value comes from: `snapshotId`, `params.expectedVersion`; undefined for anything else. */
function parameterName(node: Node, sourceCode: SourceCode): string | undefined {
  const n = unwrap(node);
  let root: Node = n;
  while (root.type === AST_NODE_TYPES.MemberExpression) root = unwrap(root.object);
  if (root.type !== AST_NODE_TYPES.Identifier) return undefined;
  const def = ASTUtils.findVariable(sourceCode.getScope(root), root.name)?.defs[0];
  if (def?.type !== 'Parameter') return undefined;
  return n.type === AST_NODE_TYPES.MemberExpression ? receiverPath(n).pop() : root.name;
}

/** Climbs from a comparison through `&&`/`||` to the expression whose truth gates the code. */
function gatingExpression(comparison: TSESTree.BinaryExpression): Node {
  let current: Node = comparison;
  while (current.parent?.type === AST_NODE_TYPES.LogicalExpression) current = current.parent;
  return current;
}

/** Reads of the latest version of a record compared with the caller's id or version. */
export function expectedVersionChecks(analysis: FileAnalysis, sourceCode: SourceCode, out: Check[]): void {
  if (!LATEST_RECORD_NAME.test(sourceCode.text)) return;
  for (const call of analysis.calls) {
    const name = calleeName(call) ?? '';
    const bound = boundName(call);
    if (!bound) continue;
    const latest = LATEST_RECORD_NAME.test(name) || LATEST_RECORD_NAME.test(bound);
    if (!latest) continue;
    for (const { comparison, field, other } of comparisonsOfValue(call, sourceCode)) {
      if (!EQUALITY.has(comparison.operator) || !field || !RECORD_IDENTITY_FIELD.test(field)) continue;
      const seen = parameterName(other, sourceCode);
      if (!seen || !SEEN_VERSION_NAME.test(seen)) continue;
      // A version of something: a snapshot, a revision, a generation (not the current user or account).
      if (![name, bound, seen].some((n) => VERSIONED_RECORD_NAME.test(n))) continue;
      for (const guard of guardsOf(gatingExpression(comparison), sourceCode)) {
        out.push({ kind: 'storedToken', node: comparison, regions: guard.regions, field: `${bound}.${field}`, firstOnly: true, inSectionOnly: true, throughCalls: true, alsoUnfenced: true });
      }
    }
  }
}
