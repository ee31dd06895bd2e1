/**
 * The suggestion for a write that compares the token but does not store it: store the very
 * value it compares, in the same write (`SET fence_token = $3` next to `fence_token < $3`,
 * `fenceToken: t` in Prisma's `data`, `fence_token = :t` in DynamoDB's `UpdateExpression`,
 * `redis.call('SET', KEYS[2], ARGV[2])` in a script). Needs no token in scope: the compared
 * value is the token. Undefined when the edit cannot be made exactly.
 */
import { AST_NODE_TYPES } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { propertyValue, type Node } from '../ast.js';
import type { AnyWriteSite } from '../file-analysis.js';
import type { ConditionalWrite } from '../verdicts/conditional-writes.js';
import { appendProperty, knexFenceFix, sqlFenceFix, toFixes, type FixBuilder } from './fence-fix.js';

export interface StoreFix {
  fix: FixBuilder;
  /** What is stored, and where, as the suggestion's message shows them. */
  value: string;
  column: string;
}

function text(node: Node | undefined, sourceCode: SourceCode): string | undefined {
  return node ? sourceCode.getText(node) : undefined;
}

/** `{ fenceToken: t }` for `key` and `t`, shorthand when they are the same name. */
function property(key: string, value: string): string {
  return key === value ? key : `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${value}`;
}

function sqlStore(site: Extract<AnyWriteSite, { sink: 'sql' }>, write: ConditionalWrite, sourceCode: SourceCode): StoreFix | undefined {
  const verdict = write.unstored;
  const comparison = verdict?.comparison;
  if (!verdict || !comparison || !verdict.column || comparison.value.params.length !== 1) return undefined;
  const value = text(site.call.param(comparison.value.params[0]), sourceCode);
  if (!value) return undefined;
  const fix = sqlFenceFix({ ...site, verdicts: [verdict] }, value, verdict.column, sourceCode);
  return fix ? { fix, value, column: verdict.column } : undefined;
}

function objectStore(site: Extract<AnyWriteSite, { sink: 'object' }>, sourceCode: SourceCode): StoreFix | undefined {
  const { write, verdict } = site;
  const column = verdict.column;
  if (!column) return undefined;
  if (write.api === 'dynamodb') return dynamoStore(site, sourceCode);
  const value = text(verdict.value, sourceCode);
  if (!value || !write.values) return undefined;
  return { fix: toFixes([appendProperty(write.values, property(column, value), sourceCode)]), value, column };
}

/** `UpdateExpression: 'SET #v = :v'` becomes `'SET #v = :v, #ft = :t'`, with the condition's own attribute and placeholder. */
function dynamoStore(site: Extract<AnyWriteSite, { sink: 'object' }>, sourceCode: SourceCode): StoreFix | undefined {
  const { verdict, write } = site;
  const attribute = verdict.expressionAttribute;
  const placeholder = verdict.placeholder;
  const expression = propertyValue(write.filter, 'UpdateExpression');
  if (!attribute || !placeholder || !expression || expression.type !== AST_NODE_TYPES.Literal || typeof expression.value !== 'string') return undefined;
  const raw = sourceCode.getText(expression);
  // Only a literal whose source is its value between quotes maps offsets one to one.
  if (raw.slice(1, -1) !== expression.value) return undefined;
  const set = /\bSET\b/i.exec(expression.value);
  if (!set) return undefined;
  // The SET clause ends where the next clause keyword starts, or at the end.
  const rest = expression.value.slice(set.index + 3);
  const next = /\s(?:REMOVE|ADD|DELETE)\b/i.exec(rest);
  const end = set.index + 3 + (next ? next.index : rest.trimEnd().length);
  const at = expression.range[0] + 1 + end;
  return { fix: toFixes([{ range: [at, at], text: `, ${attribute} = ${placeholder}` }]), value: placeholder, column: attribute };
}

/** A script that compares `ARGV[n]` with `GET KEYS[k]` stores it with `SET KEYS[k] ARGV[n]` after its last write. */
function scriptStore(site: Extract<AnyWriteSite, { sink: 'api' }>, sourceCode: SourceCode): StoreFix | undefined {
  const script = site.write.script;
  const verdict = site.verdict;
  const last = script?.facts.lastWrite;
  if (!script || !verdict?.arg || !verdict.key || !last) return undefined;
  const compared = script.facts.ordered.find((c) => c.arg === verdict.arg);
  if (!compared || (compared.stored.command !== 'get' && compared.stored.command !== 'hget')) return undefined;
  const literal = script.textNode;
  const raw = sourceCode.getText(literal);
  if (raw.slice(1, -1) !== script.text) return undefined;
  // Lua strings in the quote the JS literal does not use.
  const q = raw.startsWith("'") ? '"' : "'";
  const call =
    compared.stored.command === 'hget'
      ? `redis.call(${q}HSET${q}, KEYS[${verdict.key}], ${compared.stored.field ?? `${q}token${q}`}, ARGV[${verdict.arg}])`
      : `redis.call(${q}SET${q}, KEYS[${verdict.key}], ARGV[${verdict.arg}])`;
  const separator = literal.type === AST_NODE_TYPES.TemplateLiteral && last.ownLine ? `\n${last.indent}` : ' ';
  const at = literal.range[0] + 1 + last.end;
  return { fix: toFixes([{ range: [at, at], text: `${separator}${call}` }]), value: `ARGV[${verdict.arg}]`, column: `KEYS[${verdict.key}]` };
}

/** The store-the-token suggestion for any family, or undefined. */
export function tokenStoreFix(write: ConditionalWrite, sourceCode: SourceCode): StoreFix | undefined {
  const { site } = write;
  switch (site.sink) {
    case 'sql':
      return sqlStore(site, write, sourceCode);
    case 'knex': {
      const value = text(site.verdict.value, sourceCode);
      const column = site.verdict.column;
      if (!value || !column) return undefined;
      const fix = knexFenceFix(site, value, column, sourceCode);
      return fix ? { fix, value, column } : undefined;
    }
    case 'object':
      return objectStore(site, sourceCode);
    case 'api':
      return scriptStore(site, sourceCode);
  }
}
