/**
 * Writes a compare-and-set claim made its holder's own (see `sinks/claimed-records.ts`): after a
 * tokenless claim (a status move, a set-once fill, an optimistic check, a cooldown) whose result
 * a later `if` tests (`if (r.count === 0) return;`), the writes in the branch where it matched that
 * pick the claimed record. Used by the per-file pass and by module summaries alike.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { contains, type Node } from './ast.js';
import type { AcquireSite } from './locks/acquires.js';
import { takenBranches } from './locks/untaken-branches.js';
import { filterPicksClaimed, objectClaimKeys, picksClaimed, sqlClaimKeys } from './sinks/claimed-records.js';
import type { WriteReading, WriteSite } from './file-analysis.js';

/** The declarator or assignment a write's result is bound to (`const r = await db.x.updateMany(...)`). */
function resultBinding(node: Node): TSESTree.VariableDeclarator | TSESTree.AssignmentExpression | undefined {
  let child: Node = node;
  let parent = node.parent;
  while (parent && (parent.type === AST_NODE_TYPES.AwaitExpression || parent.type === AST_NODE_TYPES.TSAsExpression || parent.type === AST_NODE_TYPES.TSNonNullExpression)) {
    child = parent;
    parent = parent.parent;
  }
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.init === child) return parent;
  if (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.right === child) return parent;
  return undefined;
}

/** A compare-and-set claim whose result is tested: the claimed record's key values, and the branches where it matched. */
export interface CheckedClaim {
  keys: Node[];
  branches: TSESTree.Range[];
  acquire?: AcquireSite;
}

/** The checked claims among some writes (see `sinks/claimed-records.ts`): tokenless compare-and-set writes whose result a later `if` tests. */
export function claimsAmong(writes: ReadonlyArray<WriteReading | WriteSite>): CheckedClaim[] {
  const claims: CheckedClaim[] = [];
  for (const w of writes) {
    if (!w.fenced || ('boundToLock' in w && w.boundToLock) || (w.sink !== 'object' && w.sink !== 'sql')) continue;
    const keys = w.sink === 'object' ? (w.verdict.tokenless ? objectClaimKeys(w.write.filter) : []) : w.verdicts.every((v) => v.tokenless) ? sqlClaimKeys(w.verdicts.map((v) => v.statement), w.call) : [];
    if (keys.length === 0) continue;
    const branches = takenBranches(w.node, resultBinding(w.node));
    if (branches.length > 0) claims.push({ keys, branches, ...('acquire' in w ? { acquire: w.acquire } : {}) });
  }
  return claims;
}

/** An unfenced object or SQL write in a branch where a claim matched, picking the claimed record. */
export function readingPicksClaimed(w: WriteReading, claims: readonly CheckedClaim[], sourceCode: SourceCode): boolean {
  if (w.fenced) return false;
  return claims.some((claim) => {
    if (!claim.branches.some((b) => contains(b, w.node))) return false;
    if (w.sink === 'object') return filterPicksClaimed(w.write.filter, claim.keys, sourceCode) || byIdPicksClaimed(w, claim.keys, sourceCode);
    if (w.sink === 'sql') return w.verdicts.every((v) => v.statement.conditions.some((c) => c.op === '=' && c.value.params.length === 1 && picksClaimed(w.call.param(c.value.params[0]) ?? w.node, claim.keys, sourceCode)));
    return false;
  });
}

/** `Model.findByIdAndUpdate(id, ...)`: a write that picks its record by the id it is handed first. */
function byIdPicksClaimed(w: Extract<WriteReading, { sink: 'object' }>, keys: readonly Node[], sourceCode: SourceCode): boolean {
  const first = w.write.node.type === AST_NODE_TYPES.CallExpression && /ById/.test(w.write.method) ? w.write.node.arguments[0] : undefined;
  return !!first && first.type !== AST_NODE_TYPES.SpreadElement && picksClaimed(first, keys, sourceCode);
}

/** A call in a branch where a claim matched whose write picks its record by an argument that is the claimed key. */
export function callPicksClaimed(node: TSESTree.CallExpression | TSESTree.NewExpression, keyArgs: readonly number[] | undefined, claims: readonly CheckedClaim[], sourceCode: SourceCode): boolean {
  return claims.some((claim) => claim.branches.some((b) => contains(b, node)) && (keyArgs ?? []).some((i) => {
    const a = node.arguments[i];
    return !!a && a.type !== AST_NODE_TYPES.SpreadElement && picksClaimed(a, claim.keys, sourceCode);
  }));
}

