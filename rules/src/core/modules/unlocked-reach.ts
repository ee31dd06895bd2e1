/**
 * Where a file runs code with no lock held. A write a lock's holder reaches through a helper is
 * guarded by that lock only if the project relies on it: when the same helper also runs on a path
 * that holds no lock, and decides what it writes by itself (from its own reads, not from what its
 * caller passes), a late run under the lock writes nothing a lock-free run would not.
 *
 * A call runs unlocked when it is outside every critical section of its file and either runs in a
 * timer callback (`setTimeout(() => this.next(id))`: detached from whatever the caller held) or
 * the function it is in runs unlocked: some call of it runs unlocked or, in the linted file (where
 * the lock is), nothing in the file calls it (an entry the application calls without this lock).
 * A module reached from the lock counts no entries: its callers may be the lock's holder. A
 * callback handed to another call runs where that call runs it, so it counts as the function
 * around it.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { contains, enclosingFunction, unwrap, type FunctionNode, type Node } from '../ast.js';
import type { FunctionIndex } from './functions.js';

const MAX_DEPTH = 8;

export class UnlockedReach {
  private readonly callersOf = new Map<FunctionNode, TSESTree.CallExpression[]>();
  private readonly memo = new Map<FunctionNode, boolean>();

  constructor(
    calls: readonly TSESTree.CallExpression[],
    private readonly functions: FunctionIndex,
    private readonly sections: readonly TSESTree.Range[],
    /** Whether functions nothing in the file calls count as run unlocked (the linted file only). */
    private readonly entriesUnlocked: boolean,
  ) {
    for (const call of calls) {
      const callee = functions.callee(call);
      if (!callee || contains(callee, call)) continue;
      const list = this.callersOf.get(callee);
      if (list) list.push(call);
      else this.callersOf.set(callee, [call]);
    }
  }

  /** Whether some call of `fn` in this file runs with no lock held (an entry with no caller here does not count). */
  calledUnlocked(fn: FunctionNode): boolean {
    return (this.callersOf.get(fn) ?? []).some((call) => this.runsUnlocked(call, 0));
  }

  private runsUnlocked(node: Node, depth: number): boolean {
    if (depth > MAX_DEPTH || this.sections.some((range) => contains(range, node))) return false;
    if (inTimerCallback(node)) return true;
    const owner = ownerOf(node);
    if (!owner) return this.entriesUnlocked;
    const known = this.memo.get(owner);
    if (known !== undefined) return known;
    // Recursion: unknown until its callers answer.
    this.memo.set(owner, false);
    const callers = this.callersOf.get(owner) ?? [];
    const unlocked = callers.length === 0 ? this.entriesUnlocked && !handedToCall(owner) : callers.some((call) => this.runsUnlocked(call, depth + 1));
    this.memo.set(owner, unlocked);
    return unlocked;
  }
}

/** The function a node runs in, past callbacks handed to calls (`items.map((x) => ...)`). */
export function ownerOf(node: Node): FunctionNode | undefined {
  let fn = enclosingFunction(node);
  while (fn && handedToCall(fn)) fn = enclosingFunction(fn);
  return fn;
}

const TIMER = /^(?:setTimeout|setImmediate|setInterval|nextTick|queueMicrotask)$/;

/** Inside a callback handed to a timer (`setTimeout(cb)`, `process.nextTick(cb)`). */
function inTimerCallback(node: Node): boolean {
  for (let fn = enclosingFunction(node); fn; fn = enclosingFunction(fn)) {
    const parent = fn.parent;
    if (!handedToCall(fn) || parent?.type !== AST_NODE_TYPES.CallExpression) continue;
    const callee = unwrap(parent.callee);
    const name = callee.type === AST_NODE_TYPES.Identifier ? callee.name : callee.type === AST_NODE_TYPES.MemberExpression && !callee.computed && callee.property.type === AST_NODE_TYPES.Identifier ? callee.property.name : undefined;
    if (name && TIMER.test(name)) return true;
  }
  return false;
}

function handedToCall(fn: FunctionNode): boolean {
  const parent = fn.parent;
  return (parent?.type === AST_NODE_TYPES.CallExpression || parent?.type === AST_NODE_TYPES.NewExpression) && parent.arguments.includes(fn as TSESTree.CallExpressionArgument);
}
