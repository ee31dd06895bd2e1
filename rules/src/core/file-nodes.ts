/**
 * Every node of a file, in the order `walk` visits them (source order, parents first), listed
 * once per `SourceCode` for the stages that look at the whole file.
 *
 * ESLint has walked a file it lints before any rule's `Program:exit` runs, and keeps that
 * traversal on the `SourceCode` (`traverse()`, cached there for the life of the tree): its
 * "visit" steps in their enter phase are these nodes, in this order, over the same visitor
 * keys. Reading them spares a second walk of the tree. A tree this package parsed itself (an
 * imported module, see `modules/project-source.ts`) has no such traversal, and asking for one
 * would also run ESLint's code path analysis: `walk` lists those.
 */
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { walk, type Node } from './ast.js';

/** The part of ESLint's traversal steps (`@eslint/plugin-kit`'s `VisitNodeStep`) read here. */
interface TraversalStep {
  /** 1: a visit of `target`; 2: a call (code path events). */
  kind: number;
  /** Visits: 1 entering `target`, 2 leaving it. */
  phase?: number;
  target: unknown;
}

const listed = new WeakMap<SourceCode, readonly Node[]>();

/**
 * The nodes of `sourceCode`. `linted`: the tree is the one ESLint is linting (a rule's
 * `context.sourceCode`), so its traversal is already there to read.
 */
export function fileNodes(sourceCode: SourceCode, linted: boolean): readonly Node[] {
  let nodes = listed.get(sourceCode);
  if (nodes) return nodes;
  nodes = (linted ? fromTraversal(sourceCode) : undefined) ?? walked(sourceCode);
  listed.set(sourceCode, nodes);
  return nodes;
}

function fromTraversal(sourceCode: SourceCode): Node[] | undefined {
  const traverse = (sourceCode as unknown as { traverse?: () => Iterable<TraversalStep> }).traverse;
  if (typeof traverse !== 'function') return undefined;
  const nodes: Node[] = [];
  for (const step of traverse.call(sourceCode)) {
    if (step.kind === 1 && step.phase === 1) nodes.push(step.target as Node);
  }
  // A language whose traversal is not ESLint's own tree walk: list the nodes ourselves.
  return nodes[0] === sourceCode.ast ? nodes : undefined;
}

function walked(sourceCode: SourceCode): Node[] {
  const nodes: Node[] = [];
  walk(sourceCode.ast as Node, sourceCode.visitorKeys, (node) => nodes.push(node));
  return nodes;
}
