/**
 * Clock-derived fence tokens: follows every clock or random value of a file (found by
 * `clockSourceOf` during ESLint's own traversal) to where it becomes a token, and reads SQL
 * that sets a token column from `now()` / `clock_timestamp()`. Used by `no-clock-token`.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, staticString, type Node } from '../ast.js';
import type { OriginKind } from '../models/clock-sources.js';
import { readSqlCall } from '../sinks/sql-writes.js';
import type { SqlStatementInfo } from '../sql/types.js';
import { describePlace, isTokenColumn, mayHoldFenceTokens, tokenStrength, type TokenPlaceOptions } from '../tokens/token-places.js';
import { ValueFlow, type ValuePlace } from '../tokens/value-flow.js';
import { clockSourceOf, isClockPackage, sqlClockFragmentOf, sqlClockFunction, type ValueOrigin } from '../modules/value-origin.js';

export type ClockTokenFinding =
  | { type: 'value'; node: Node; kind: OriginKind; place: string; source: string; sourceLine: number }
  | { type: 'sql'; loc: TSESTree.SourceLocation; kind: OriginKind; column: string; source: string };

/**
 * SQL that could set a token from the clock: a cheap test of the file before any SQL is parsed.
 * `now(` must not follow a dot, or every `Date.now()` would pass.
 */
const SQL_CLOCK_HINT = /clock_timestamp|(?<![.\w])now\s*\(|current_timestamp|statement_timestamp|transaction_timestamp|unix_timestamp|utc_timestamp|sysdate|gen_random_uuid|uuid_generate|(?<![.\w])rand(?:om)?\s*\(/i;
const SQL_WRITE_HINT = /\b(?:update|insert|merge)\b/i;
/** Methods that send a write's SQL text (pg, mysql2, pg-promise, Prisma raw, knex raw, Sequelize, TypeORM). */
const SQL_WRITE_METHODS = new Set(['query', 'execute', 'exec', 'run', 'raw', 'unsafe', 'none', 'one', 'oneOrNone', 'many', 'manyOrNone', 'any', 'result', 'multi', '$executeRawUnsafe', '$queryRawUnsafe', 'executeQuery', 'sql']);

export interface ClockTokenFinder {
  recordImport(node: TSESTree.ImportDeclaration): void;
  /** Every call and tagged template: clock sources, `require`s of clock packages, SQL that may set a token. */
  recordCall(node: TSESTree.CallExpression | TSESTree.NewExpression | TSESTree.TaggedTemplateExpression): void;
  finish(report: (f: ClockTokenFinding) => void): void;
}

export function findClockTokens(sourceCode: SourceCode, options: TokenPlaceOptions): ClockTokenFinder {
  const localNames = new Set<string>();
  const origins: ValueOrigin[] = [];
  const sqlCandidates: Array<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression> = [];

  const recordRequire = (call: TSESTree.CallExpression) => {
    const source = call.arguments[0] && staticString(call.arguments[0]);
    if (!source || !isClockPackage(source)) return;
    let declarator: Node | undefined = call.parent;
    if (declarator?.type === AST_NODE_TYPES.MemberExpression) declarator = declarator.parent;
    if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator) return;
    if (declarator.id.type === AST_NODE_TYPES.Identifier) localNames.add(declarator.id.name);
    else if (declarator.id.type === AST_NODE_TYPES.ObjectPattern) {
      for (const prop of declarator.id.properties) {
        const value = prop.type === AST_NODE_TYPES.Property ? (prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value) : undefined;
        if (value?.type === AST_NODE_TYPES.Identifier) localNames.add(value.name);
      }
    }
  };

  const checkSql = (node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, report: (f: ClockTokenFinding) => void) => {
    const call = readSqlCall(node, sourceCode);
    if (!call) return;
    for (const statement of call.source.analysis.statements) {
      if (statement.kind !== 'update' && statement.kind !== 'insert' && statement.kind !== 'merge') continue;
      const seen = new Set<string>();
      // An upsert's VALUES first: that is where the clock is written; its `SET c = EXCLUDED.c` only carries it on.
      const inserted = new Set(statement.insertedValues ?? []);
      for (const assignment of [...inserted, ...statement.assignments]) {
        if (seen.has(assignment.column)) continue;
        const strength = isTokenColumn(assignment.column, statement.table, options);
        const fn = strength && sqlClockFunction(assignment.value);
        if (!fn || (fn.kind !== 'clock' && strength !== 'strong')) continue;
        seen.add(assignment.column);
        const at = assignmentOffset(call.source.analysis.text, statement, assignment.column, assignment.value.text, inserted.has(assignment));
        const index = at === undefined ? undefined : sourceIndex(call.source, at.offset);
        const loc =
          index === undefined
            ? { start: call.node.loc.start, end: call.node.loc.start }
            : { start: sourceCode.getLocFromIndex(index), end: sourceCode.getLocFromIndex(Math.min(index + at!.length, sourceCode.text.length)) };
        report({ type: 'sql', loc, kind: fn.kind, column: assignment.column, source: fn.name });
      }
    }
  };

  return {
    recordImport(node) {
      if (!isClockPackage(node.source.value)) return;
      for (const spec of node.specifiers) localNames.add(spec.local.name);
    },
    recordCall(node) {
      if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
        if (node.parent.type !== AST_NODE_TYPES.TemplateLiteral) sqlCandidates.push(node);
        const fragment = sqlClockFragmentOf(node);
        if (fragment) origins.push(fragment);
        return;
      }
      if (node.type === AST_NODE_TYPES.CallExpression) {
        if (node.callee.type === AST_NODE_TYPES.Identifier && node.callee.name === 'require') {
          recordRequire(node);
          return;
        }
        const first = node.arguments[0];
        if (first && SQL_WRITE_METHODS.has(calleeName(node) ?? '') && (first.type === AST_NODE_TYPES.Literal || first.type === AST_NODE_TYPES.TemplateLiteral || first.type === AST_NODE_TYPES.Identifier || first.type === AST_NODE_TYPES.BinaryExpression || first.type === AST_NODE_TYPES.ObjectExpression)) {
          sqlCandidates.push(node);
        }
      }
      const origin = clockSourceOf(node, sourceCode, localNames) ?? (node.type === AST_NODE_TYPES.CallExpression ? sqlClockFragmentOf(node) : undefined);
      if (origin) origins.push(origin);
    },
    finish(report) {
      if ((origins.length === 0 && sqlCandidates.length === 0) || !mayHoldFenceTokens(sourceCode, options)) return;
      if (sqlCandidates.length > 0 && SQL_WRITE_HINT.test(sourceCode.text) && SQL_CLOCK_HINT.test(sourceCode.text)) {
        for (const node of sqlCandidates) checkSql(node, report);
      }
      if (origins.length === 0) return;
      const flow = new ValueFlow(sourceCode);
      const reported = new Set<Node>();
      for (const origin of origins) {
        flow.follow(origin.node, (place: ValuePlace, reach) => {
          const strength = tokenStrength(place, sourceCode, options);
          if (!strength) return false;
          // A time inside a longer string (`host:pid:${Date.now()}`) makes an owner id unique;
          // only a token name says such a string is meant as a token.
          if (reach.inString && strength !== 'strong') return false;
          // Random values and time-ordered ids are tokens only under a name that says so:
          // a random `token` on a lease is usually the owner value a compare-and-delete checks.
          if (origin.kind !== 'clock' && strength !== 'strong') return false;
          if (!reported.has(place.node)) {
            reported.add(place.node);
            report({ type: 'value', node: place.node, kind: origin.kind, place: describePlace(place), source: origin.text, sourceLine: origin.node.loc.start.line });
          }
          return true;
        });
      }
    },
  };
}

/** Where `column = value` (UPDATE) or the column's value (INSERT) sits in the statement text, best effort. */
function assignmentOffset(text: string, statement: SqlStatementInfo, column: string, value: string, inserted: boolean): { offset: number; length: number } | undefined {
  const body = text.slice(statement.range.start, statement.range.end);
  const escaped = column.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const inValues = (): { offset: number; length: number } | undefined => {
    const values = body.search(/\bvalues\b/i);
    const at = values >= 0 ? body.indexOf(value, values) : -1;
    return at >= 0 && body.indexOf(value, at + 1) < 0 ? { offset: statement.range.start + at, length: value.length } : undefined;
  };
  const listed = inserted ? inValues() : undefined;
  if (listed) return listed;
  const set = new RegExp(`(?:^|[\\s,(."])(${escaped})"?\\s*=(?!=)`, 'i').exec(body.slice(Math.max(0, body.search(/\bset\b/i))));
  if (set && /\bset\b/i.test(body)) {
    const base = Math.max(0, body.search(/\bset\b/i));
    return { offset: statement.range.start + base + set.index + set[0].indexOf(set[1]), length: column.length };
  }
  const fromValues = inValues();
  if (fromValues) return fromValues;
  const named = new RegExp(`\\b${escaped}\\b`, 'i').exec(body);
  return named ? { offset: statement.range.start + named.index, length: column.length } : undefined;
}

/** A SQL offset in the file; a name that starts a concatenated piece maps through its first character. */
function sourceIndex(source: { toSourceIndex(offset: number): number | undefined }, offset: number): number | undefined {
  const inside = source.toSourceIndex(offset + 1);
  return inside === undefined ? source.toSourceIndex(offset) : inside - 1;
}
