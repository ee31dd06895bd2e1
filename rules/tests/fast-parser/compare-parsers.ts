/**
 * Compares what the fast parser and `@typescript-eslint/parser` hand ESLint for one text: the
 * tree (every node, every property), the tokens, the comments and the scopes.
 */
import type { TSESTree } from '@typescript-eslint/utils';

/** Properties only one parser sets and no rule reads: oxc's offsets, ESLint's parent links. */
const IGNORED_KEYS = new Set(['parent', 'start', 'end']);

/** typescript-estree's deprecated aliases are getters that warn when read; their targets are compared. */
function isDeprecatedAlias(node: object, key: string): boolean {
  return typeof Object.getOwnPropertyDescriptor(node, key)?.get === 'function';
}

export interface Difference {
  path: string;
  detail: string;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof RegExp) return String(value);
  const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Deep comparison; a missing property equals an `undefined` one. Stops after `limit` differences. */
export function compareValues(fast: unknown, reference: unknown, path = 'Program', limit = 5): Difference[] {
  const found: Difference[] = [];
  const walk = (a: unknown, b: unknown, at: string): void => {
    if (found.length >= limit || a === b) return;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
      found.push({ path: at, detail: `fast ${describe(a)}, reference ${describe(b)}` });
      return;
    }
    if (a instanceof RegExp || b instanceof RegExp) {
      if (String(a) !== String(b)) found.push({ path: at, detail: `fast ${describe(a)}, reference ${describe(b)}` });
      return;
    }
    if (Array.isArray(a) !== Array.isArray(b)) {
      found.push({ path: at, detail: 'array on one side only' });
      return;
    }
    if (Array.isArray(a)) {
      const other = b as unknown[];
      if (a.length !== other.length) found.push({ path: at, detail: `length ${a.length}, reference ${other.length}` });
      for (let i = 0; i < Math.min(a.length, other.length); i++) walk(a[i], other[i], `${at}[${i}]`);
      return;
    }
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const label = typeof x.type === 'string' && Array.isArray(x.range) ? `${at}<${x.type}@${(x.range as number[]).join('-')}>` : at;
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (IGNORED_KEYS.has(key) || isDeprecatedAlias(y, key)) continue;
      walk(x[key], y[key], `${label}.${key}`);
    }
  };
  walk(fast, reference, path);
  return found;
}

interface ScopeLike {
  type: string;
  block: { type: string; range: [number, number] };
  variables: Array<{ name: string; defs: Array<{ type: string }>; references: unknown[] }>;
  references: Array<{ identifier: { name: string; range: [number, number] }; resolved: { name: string } | null; isWrite(): boolean }>;
  through: unknown[];
  childScopes: unknown[];
}

/** Scopes as plain data: kind, block, variables with their definitions and uses, references and where they resolve. */
export function scopeSummary(scopeManager: { scopes: ScopeLike[] }): unknown[] {
  return scopeManager.scopes.map((scope) => ({
    type: scope.type,
    block: `${scope.block.type}@${scope.block.range.join('-')}`,
    variables: scope.variables.map((v) => `${v.name}:${v.defs.map((d) => d.type).join('/')}:${v.references.length}`),
    references: scope.references.map((r) => `${r.identifier.name}@${r.identifier.range[0]}${r.isWrite() ? 'w' : ''}->${r.resolved?.name ?? '-'}`),
    through: scope.through.length,
    children: scope.childScopes.length,
  }));
}

export interface ParsedForComparison {
  ast: TSESTree.Program;
  scopeManager: unknown;
}

/** Every difference between two parses of the same text, by part. */
export function compareParses(fast: ParsedForComparison, reference: ParsedForComparison): Difference[] {
  const { tokens: fastTokens, comments: fastComments, ...fastTree } = fast.ast;
  const { tokens: refTokens, comments: refComments, ...refTree } = reference.ast;
  return [
    ...compareValues(fastTree, refTree, 'Program'),
    ...compareValues(fastTokens, refTokens, 'tokens'),
    ...compareValues(fastComments, refComments, 'comments'),
    ...compareValues(scopeSummary(fast.scopeManager as never), scopeSummary(reference.scopeManager as never), 'scopes'),
  ];
}
