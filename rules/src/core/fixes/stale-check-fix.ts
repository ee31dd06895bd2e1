/**
 * Suggestions for a fenced write whose refusal goes unseen, where the edit is mechanical: a
 * result dropped on the floor is bound and checked (`const result = await ...; if
 * (result.rowCount === 0) throw ...`), `if (!result)` on an object that is always there
 * checks the count instead, mysql2's `[header]` is destructured, pg's `rows.length` without
 * RETURNING becomes `rowCount`. Undefined when the edit would be a guess.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { memberName, typeWrapped, type Node } from '../ast.js';
import type { StaleResult } from '../verdicts/stale-results.js';
import { toFixes, type FixBuilder } from './fence-fix.js';

export interface StaleCheckFix {
  fix: FixBuilder;
  /** The check the suggestion adds or uses, as its message shows it. */
  check: string;
}

const STALE_ERROR = "new Error('stale fence token: the write was refused')";

/** A name for the result that nothing in scope uses yet. */
function freshName(at: Node, sourceCode: SourceCode): string {
  const scope = sourceCode.getScope(at);
  for (const name of ['result', 'writeResult', 'fencedResult', 'staleCheck']) if (!ASTUtils.findVariable(scope, name)) return name;
  return 'fencedWriteResult';
}

/** The zero test for a result named `name`, by shape. */
function zeroTest(finding: StaleResult, name: string): string | undefined {
  const { shape } = finding;
  switch (shape.type) {
    case 'count':
      return `${name}.${shape.read[0]} === 0`;
    case 'rows':
      return `${name}.${shape.read[0]} === 0`;
    case 'number':
      return `${name} === 0`;
    case 'record':
    case 'reply':
      return `!${name}`;
    case 'status':
      return `!${name}.ok`;
    default:
      return undefined;
  }
}

/** `await write;` becomes a bound result and a throw on zero, on the statement's own line and indentation. */
function bindAndCheck(finding: StaleResult, sourceCode: SourceCode): StaleCheckFix | undefined {
  const statement = finding.statement;
  // Only an awaited write: binding a promise that was not awaited would change when it runs.
  if (!statement || statement.expression.type !== AST_NODE_TYPES.AwaitExpression) return undefined;
  const name = freshName(statement, sourceCode);
  const test = zeroTest(finding, name);
  if (!test) return undefined;
  const line = sourceCode.lines[statement.loc.start.line - 1];
  const indent = /^[ \t]*/.exec(line)![0];
  const newline = sourceCode.text.includes('\r\n') ? '\r\n' : '\n';
  const binding = finding.shape.type === 'count' && finding.shape.tuple === 0 ? `[${name}]` : name;
  const expression = sourceCode.getText(statement.expression);
  const text = `const ${binding} = ${expression};${newline}${indent}if (${test}) throw ${STALE_ERROR};`;
  return { fix: toFixes([{ range: statement.range, text }]), check: test };
}

/** `!result` / `result` on a result object: the count decides instead. */
function countInsteadOfTruthiness(finding: StaleResult, sourceCode: SourceCode): StaleCheckFix | undefined {
  const at = finding.at;
  if (!at || finding.shape.type !== 'count' || finding.shape.tuple !== undefined) return undefined;
  const member = finding.shape.read[0];
  let negated = false;
  let inner: Node = at;
  while (inner.type === AST_NODE_TYPES.UnaryExpression && inner.operator === '!') {
    negated = !negated;
    inner = inner.argument;
  }
  if (inner.type !== AST_NODE_TYPES.Identifier) return undefined;
  const check = negated ? `${inner.name}.${member} === 0` : `${inner.name}.${member} > 0`;
  return { fix: toFixes([{ range: at.range, text: check }]), check };
}

/** pg's `result.rows.length` without RETURNING, Mongo's `res.acknowledged`: the count member instead. */
function countInsteadOfMember(finding: StaleResult, sourceCode: SourceCode): StaleCheckFix | undefined {
  const at = finding.at;
  if (!at || at.type !== AST_NODE_TYPES.MemberExpression || finding.shape.type !== 'count' || finding.shape.tuple !== undefined) return undefined;
  const member = finding.shape.read[0];
  // `result.rows.length` -> `result.rowCount`.
  if (memberName(at) === 'length' && at.object.type === AST_NODE_TYPES.MemberExpression && memberName(at.object) === 'rows' && at.object.object.type === AST_NODE_TYPES.Identifier) {
    const check = `${at.object.object.name}.${member}`;
    return { fix: toFixes([{ range: at.range, text: check }]), check };
  }
  // `res.acknowledged` -> `(res.matchedCount > 0)`.
  if (at.object.type === AST_NODE_TYPES.Identifier && memberName(at) === 'acknowledged') {
    const check = `${at.object.name}.${member} > 0`;
    const parenthesise = at.parent?.type === AST_NODE_TYPES.UnaryExpression || at.parent?.type === AST_NODE_TYPES.BinaryExpression;
    return { fix: toFixes([{ range: at.range, text: parenthesise ? `(${check})` : check }]), check };
  }
  return undefined;
}

/** mysql2: `const result = await db.execute(...)` read as the header becomes `const [result] = ...`. */
function destructureHeader(finding: StaleResult, sourceCode: SourceCode): StaleCheckFix | undefined {
  const id = finding.binding;
  if (!id || finding.shape.type !== 'count') return undefined;
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  const reads = variable?.references.filter((r) => r.identifier !== id) ?? [];
  const count = finding.shape.read;
  // Every use reads a header member: destructuring keeps them all meaningful.
  const onlyHeader = reads.every((r) => {
    const read = typeWrapped(r.identifier);
    const parent = read.parent;
    return parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === read && count.includes(memberName(parent) ?? '');
  });
  if (!onlyHeader || reads.length === 0) return undefined;
  const range: TSESTree.Range = id.typeAnnotation ? [id.range[0], id.typeAnnotation.range[0]] : id.range;
  return { fix: toFixes([{ range, text: `[${id.name}]` }]), check: `[${id.name}]` };
}

export function staleCheckFix(finding: StaleResult, sourceCode: SourceCode): StaleCheckFix | undefined {
  if (finding.guessed) return undefined;
  switch (finding.kind) {
    case 'ignored':
      return bindAndCheck(finding, sourceCode);
    case 'misread':
      return destructureHeader(finding, sourceCode) ?? countInsteadOfMember(finding, sourceCode) ?? countInsteadOfTruthiness(finding, sourceCode);
    default:
      return undefined;
  }
}
