/**
 * `readSqlSource`: the SQL text a JavaScript expression spells, when it is static enough to read:
 * string literals, template literals, postgres.js-style tagged templates (each `${expr}` is a
 * bound parameter; nested `sql\`...\`` fragments are inlined), `'a' + 'b'`, and `const` names bound
 * to one of these in the same file. Offsets in the SQL map back to source indices for fixes.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { analyzeSql } from './analyze.js';
import { isSqlParserLoaded } from './parser.js';
import type { SqlAnalysis, SqlDialect } from './types.js';

export interface SqlSource {
  analysis: SqlAnalysis;
  /** The JS expression the text itself binds to `$n` (template interpolations), if any. */
  paramNode(n: number): TSESTree.Node | undefined;
  /** Offset in `analysis.text` -> index in the file; undefined inside a rewritten or inlined part. */
  toSourceIndex(offset: number): number | undefined;
  kind: 'literal' | 'template' | 'tagged-template' | 'concat';
  /**
   * Parameters that stand for helper calls (`${sql(obj, 'a')}`) or computed fragments: they may
   * expand to identifiers, column lists or whole clauses, so the text may say less than runs.
   */
  dynamicParams: number[];
}

/** How far `const a = b; const b = '...'` chains are followed. */
const MAX_HOPS = 4;

interface Segment {
  /** Start and end in the built SQL text. */
  start: number;
  end: number;
  /** Built-text offset (relative to `start`) -> file index; undefined when not mappable inside. */
  map?: number[];
  /** File indices of the segment's edges (an interpolation's `${` and after its `}`). */
  srcStart: number;
  srcEnd: number;
}

class SqlBuilder {
  text = '';
  readonly segments: Segment[] = [];
  readonly params = new Map<number, TSESTree.Node>();
  readonly dynamic: number[] = [];

  /**
   * @param nextParam first `$n` for interpolations
   * @param fallback write dynamic parts where a parameter cannot stand (after SET, INTO t, FROM, ...)
   *   as the placeholder PostgreSQL accepts there, named `__dynamic_<n>`
   */
  constructor(
    public nextParam: number,
    readonly fallback = false,
  ) {}

  addText(cooked: string, map: number[] | undefined, srcStart: number, srcEnd: number): void {
    this.segments.push({ start: this.text.length, end: this.text.length + cooked.length, map, srcStart, srcEnd });
    this.text += cooked;
  }

  addParam(node: TSESTree.Node, dynamic: boolean): void {
    const n = this.nextParam++;
    this.params.set(n, node);
    if (dynamic) this.dynamic.push(n);
    const text = dynamic && this.fallback ? placeholderFor(this.text, n) : `$${n}`;
    // Interpolation `${expr}`: its edges are the `${` before and the `}` after the expression.
    this.addText(text, undefined, node.range[0] - 2, node.range[1] + 1);
  }

  toSourceIndex(offset: number): number | undefined {
    let found: number | undefined;
    for (const s of this.segments) {
      if (offset < s.start || offset > s.end) continue;
      if (s.map) return s.map[offset - s.start];
      if (offset === s.start) found ??= s.srcStart;
      else if (offset === s.end) found = s.srcEnd;
      else return undefined;
    }
    return found;
  }
}

/**
 * Sources already read, per parsed file and node: the file's analysis and several rules ask
 * about the same calls, and the answer depends on the tree alone. Shared: do not mutate.
 */
const known = new WeakMap<SourceCode, WeakMap<TSESTree.Node, Map<SqlDialect, SqlSource | null>>>();

export function readSqlSource(node: TSESTree.Node, sourceCode: SourceCode, dialect: SqlDialect): SqlSource | undefined {
  let ofFile = known.get(sourceCode);
  if (!ofFile) known.set(sourceCode, (ofFile = new WeakMap()));
  let ofNode = ofFile.get(node);
  const hit = ofNode?.get(dialect);
  if (hit !== undefined) return hit ?? undefined;
  let source: SqlSource | undefined;
  try {
    source = read(node, sourceCode, dialect);
  } catch {
    source = undefined; // odd shapes are simply not SQL we can read
  }
  // Before the parser has loaded nothing reads as SQL; that answer is not kept.
  if (isSqlParserLoaded()) {
    if (!ofNode) ofFile.set(node, (ofNode = new Map()));
    ofNode.set(dialect, source ?? null);
  }
  return source;
}

function read(node: TSESTree.Node, sourceCode: SourceCode, dialect: SqlDialect): SqlSource | undefined {
  const target = resolveConst(unwrapExpression(node), sourceCode, MAX_HOPS);
  if (!target) return undefined;
  const tagged = target.type === AST_NODE_TYPES.TaggedTemplateExpression;
  const kind: SqlSource['kind'] = tagged
    ? 'tagged-template'
    : target.type === AST_NODE_TYPES.Literal
      ? 'literal'
      : target.type === AST_NODE_TYPES.TemplateLiteral
        ? 'template'
        : 'concat';
  const build = (fallback: boolean): SqlBuilder | undefined => {
    // Interpolations of a plain template become parameters numbered past any written placeholder.
    const builder = new SqlBuilder(tagged ? 1 : firstFreeParam(target, dialect), fallback);
    const ok = tagged ? addTagged(builder, target, tagName(target.tag), sourceCode, 0) : addStatic(builder, target, sourceCode, MAX_HOPS);
    return ok ? builder : undefined;
  };
  let builder = build(false);
  if (!builder) return undefined;
  let analysis = analyzeSql(builder.text, dialect);
  if (!analysis && builder.dynamic.length > 0) {
    // `UPDATE ${sql(table)} SET ${sql(row, 'a')}`: retry with identifiers and assignments there.
    builder = build(true)!;
    analysis = analyzeSql(builder.text, dialect);
  }
  if (!analysis && dialect === 'mysql' && builder.params.size === 0) {
    // Postgres quoting with positional `?` placeholders (a wrapper that numbers them before sending),
    // read by neither dialect (MySQL, tried last, quotes names with backticks):
    // read with `$n` in their place. The text then no longer maps onto the file, so no edit is offered.
    const numbered = numberPositional(builder.text);
    const positional = numbered !== undefined ? analyzeSql(numbered, 'postgres') : undefined;
    if (positional) return { analysis: positional, kind, dynamicParams: builder.dynamic, paramNode: () => undefined, toSourceIndex: () => undefined };
  }
  if (!analysis) return undefined;
  const final = builder;
  return {
    analysis,
    kind,
    dynamicParams: final.dynamic,
    paramNode: (n) => final.params.get(n),
    toSourceIndex(offset) {
      const built = analysis.toSourceOffset(offset);
      return built === undefined ? undefined : final.toSourceIndex(built);
    },
  };
}

/** `?` placeholders outside quotes numbered `$1, $2, ...`; undefined when there is none. */
function numberPositional(text: string): string | undefined {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      out += ch;
    } else if (ch === '?') out += `$${++n}`;
    else out += ch;
  }
  return n > 0 ? out : undefined;
}

/**
 * What a dynamic part most likely is, from the SQL before it: a relation after UPDATE/FROM/JOIN/
 * INTO/TABLE/USING, an assignment list after SET, a column list with values after `INSERT INTO t`,
 * a row after VALUES or IN; elsewhere a value (`$n`).
 */
function placeholderFor(before: string, n: number): string {
  const words = before.trimEnd().split(/\s+/);
  const last = (words.at(-1) ?? '').toUpperCase();
  const previous = (words.at(-2) ?? '').toUpperCase();
  const name = `"__dynamic_${n}"`;
  if (last === 'SET') return `${name} = $${n}`;
  if (previous === 'INTO' && last !== '') return `(${name}) VALUES ($${n})`;
  if (['UPDATE', 'FROM', 'JOIN', 'INTO', 'TABLE', 'USING', 'ONLY'].includes(last)) return name;
  if (last === 'VALUES' || last === 'IN') return `($${n})`;
  return `$${n}`;
}

function unwrapExpression(node: TSESTree.Node): TSESTree.Node {
  let current = node;
  while (
    current.type === AST_NODE_TYPES.TSAsExpression ||
    current.type === AST_NODE_TYPES.TSSatisfiesExpression ||
    current.type === AST_NODE_TYPES.TSNonNullExpression ||
    current.type === AST_NODE_TYPES.TSTypeAssertion
  ) {
    current = current.expression;
  }
  return current;
}

/** Follows a `const` identifier to its initializer in this file. */
function resolveConst(node: TSESTree.Node, sourceCode: SourceCode, hops: number): TSESTree.Node | undefined {
  let current = node;
  for (let i = 0; current.type === AST_NODE_TYPES.Identifier; i++) {
    if (i >= hops) return undefined;
    const variable = ASTUtils.findVariable(sourceCode.getScope(current), current.name);
    const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
    if (
      def?.type !== 'Variable' ||
      def.node.type !== AST_NODE_TYPES.VariableDeclarator ||
      def.parent?.kind !== 'const' ||
      def.node.id.type !== AST_NODE_TYPES.Identifier ||
      !def.node.init
    ) {
      return undefined;
    }
    current = unwrapExpression(def.node.init);
  }
  return current;
}

/** Appends a string literal, plain template or concatenation; false for anything dynamic. */
function addStatic(builder: SqlBuilder, node: TSESTree.Node, sourceCode: SourceCode, hops: number): boolean {
  node = unwrapExpression(node);
  if (node.type === AST_NODE_TYPES.Literal) {
    if (typeof node.value !== 'string') return false;
    const { cooked, map } = decodeEscapes(node.raw.slice(1, -1), node.range[0] + 1);
    builder.addText(node.value, cooked === node.value ? map : undefined, node.range[0], node.range[1]);
    return true;
  }
  if (node.type === AST_NODE_TYPES.TemplateLiteral) {
    node.quasis.forEach((quasi, i) => {
      addQuasi(builder, quasi, sourceCode);
      const expr = node.expressions[i];
      if (!expr) return;
      // A constant string inlines (`${TABLE}`); anything else is a value spliced into the text.
      // A choice between constants (`const table = branded ? 'titles' : 'thumbnails'`) reads as its first:
      // both name the same statement's shape.
      const constant = firstOfChoice(resolveConst(unwrapExpression(expr), sourceCode, hops), sourceCode, hops);
      if (constant && isConstantString(constant, sourceCode, hops - 1)) {
        const inner = new SqlBuilder(builder.nextParam);
        addStatic(inner, constant, sourceCode, hops - 1);
        builder.addText(inner.text, undefined, expr.range[0] - 2, expr.range[1] + 1);
      } else builder.addParam(expr, true);
    });
    return true;
  }
  if (node.type === AST_NODE_TYPES.BinaryExpression && node.operator === '+') {
    const left = resolveConst(unwrapExpression(node.left as TSESTree.Node), sourceCode, hops);
    const right = resolveConst(unwrapExpression(node.right), sourceCode, hops);
    return Boolean(left && right && addStatic(builder, left, sourceCode, hops - 1) && addStatic(builder, right, sourceCode, hops - 1));
  }
  return false;
}

/** `c ? 'a' : 'b'` (also through consts) whose branches are both constant strings: its first branch; anything else as it is. */
function firstOfChoice(node: TSESTree.Node | undefined, sourceCode: SourceCode, hops: number): TSESTree.Node | undefined {
  if (node?.type !== AST_NODE_TYPES.ConditionalExpression || hops < 1) return node;
  const branches = [node.consequent, node.alternate].map((b) => firstOfChoice(resolveConst(unwrapExpression(b), sourceCode, hops - 1), sourceCode, hops - 1));
  return branches.every((b) => b !== undefined && isConstantString(b, sourceCode, hops - 1)) ? branches[0] : node;
}

function isConstantString(node: TSESTree.Node, sourceCode: SourceCode, hops: number): boolean {
  if (hops < 0) return false;
  if (node.type === AST_NODE_TYPES.Literal) return typeof node.value === 'string';
  if (node.type === AST_NODE_TYPES.TemplateLiteral) {
    return node.expressions.every((e) => {
      const c = resolveConst(unwrapExpression(e), sourceCode, hops);
      return c !== undefined && isConstantString(c, sourceCode, hops - 1);
    });
  }
  if (node.type === AST_NODE_TYPES.BinaryExpression && node.operator === '+') {
    const l = resolveConst(unwrapExpression(node.left as TSESTree.Node), sourceCode, hops);
    const r = resolveConst(unwrapExpression(node.right), sourceCode, hops);
    return Boolean(l && r && isConstantString(l, sourceCode, hops - 1) && isConstantString(r, sourceCode, hops - 1));
  }
  return false;
}

/**
 * Appends a tagged template: interpolations are bound parameters, except fragments written
 * with the same tag (inline, or through a const), which are inlined.
 */
function addTagged(builder: SqlBuilder, node: TSESTree.TaggedTemplateExpression, tag: string | undefined, sourceCode: SourceCode, depth: number): boolean {
  if (depth > MAX_HOPS) return false;
  const quasi = node.quasi;
  quasi.quasis.forEach((q, i) => {
    addQuasi(builder, q, sourceCode);
    const expr = quasi.expressions[i];
    if (!expr) return;
    const fragment = resolveConst(unwrapExpression(expr), sourceCode, MAX_HOPS);
    if (fragment?.type === AST_NODE_TYPES.TaggedTemplateExpression && isFragmentTag(fragment.tag, tag)) {
      if (fragment === unwrapExpression(expr)) addTagged(builder, fragment, tag, sourceCode, depth + 1);
      else {
        // A fragment from elsewhere in the file: its text counts, but edits cannot land inside it.
        const inner = new SqlBuilder(builder.nextParam, builder.fallback);
        addTagged(inner, fragment, tag, sourceCode, depth + 1);
        for (const [n, p] of inner.params) builder.params.set(n, p);
        builder.dynamic.push(...inner.dynamic);
        builder.nextParam = inner.nextParam;
        builder.addText(inner.text, undefined, expr.range[0] - 2, expr.range[1] + 1);
      }
      return;
    }
    // `${sql(table)}`, `${sql(row, 'a', 'b')}`, `${cond ? sql`...` : sql``}`: helpers and choices.
    const helper =
      (expr.type === AST_NODE_TYPES.CallExpression && isHelperCall(expr, tag)) ||
      expr.type === AST_NODE_TYPES.ConditionalExpression ||
      expr.type === AST_NODE_TYPES.TaggedTemplateExpression;
    builder.addParam(expr, helper);
  });
  return true;
}

function tagName(tag: TSESTree.Node): string | undefined {
  return calleeRoot(tag);
}

/** Last name of a callee or tag: `join` for `Prisma.join`. */
function lastName(node: TSESTree.Node): string | undefined {
  const n = unwrapExpression(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name;
  if (n.type === AST_NODE_TYPES.MemberExpression && n.property.type === AST_NODE_TYPES.Identifier) return n.property.name;
  return undefined;
}

/** A nested template that is SQL text: same tag root (`sql`, `tx`), or a `*.sql` tag (`Prisma.sql`). */
function isFragmentTag(inner: TSESTree.Node, outerRoot: string | undefined): boolean {
  return (outerRoot !== undefined && tagName(inner) === outerRoot) || lastName(inner) === 'sql' || lastName(inner) === 'fragment';
}

/** SQL-building helpers: `sql(x)`, `sql.unsafe(s)`, `Prisma.join(ids)`, `Prisma.raw(s)`. */
const HELPER_NAMES = new Set(['join', 'raw', 'unsafe', 'identifier', 'fragment', 'sql']);
function isHelperCall(call: TSESTree.CallExpression, outerRoot: string | undefined): boolean {
  return (outerRoot !== undefined && calleeRoot(call.callee) === outerRoot) || HELPER_NAMES.has(lastName(call.callee) ?? '');
}

/** `sql` for `sql`, `sql.unsafe`, `tx.sql`; the identifier a callee starts from. */
function calleeRoot(node: TSESTree.Node): string | undefined {
  let current = unwrapExpression(node);
  while (current.type === AST_NODE_TYPES.MemberExpression) current = current.object;
  return current.type === AST_NODE_TYPES.Identifier ? current.name : current.type === AST_NODE_TYPES.ThisExpression ? 'this' : undefined;
}

function addQuasi(builder: SqlBuilder, quasi: TSESTree.TemplateElement, sourceCode: SourceCode): void {
  const cooked = quasi.value.cooked ?? quasi.value.raw;
  // The quasi's text as it is in the file (CRLF kept), between `\`` or `}` and `${` or `\``.
  // Parsers disagree on whether a quasi's range includes those delimiters.
  const text = sourceCode.text;
  let [start, end] = quasi.range;
  if (text[start] === '`' || text[start] === '}') start += 1;
  if (text.startsWith('${', end - 2) && !text.startsWith('${', end)) end -= 2;
  else if (text[end - 1] === '`' && text[end] !== '`') end -= 1;
  const decoded = decodeEscapes(text.slice(start, end), start);
  builder.addText(cooked, decoded.cooked === cooked ? decoded.map : undefined, start, end);
}

/** The smallest `$n` not written in a plain template's text (or past its `?` / `:name` for mysql). */
function firstFreeParam(node: TSESTree.Node, dialect: SqlDialect): number {
  const texts: string[] = [];
  const collect = (n: TSESTree.Node): void => {
    if (n.type === AST_NODE_TYPES.TemplateLiteral) n.quasis.forEach((q) => texts.push(q.value.cooked ?? q.value.raw));
    else if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') texts.push(n.value);
    else if (n.type === AST_NODE_TYPES.BinaryExpression) {
      collect(n.left as TSESTree.Node);
      collect(n.right);
    }
  };
  collect(node);
  const all = texts.join(' ');
  const written = [...all.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  // Over-estimates are harmless: they only leave numbers unused.
  const mysqlCount = dialect === 'mysql' ? (all.match(/[?:]/g)?.length ?? 0) : 0;
  return Math.max(0, mysqlCount, ...written) + 1;
}

/**
 * JS string escapes decoded, with the file index of each decoded character (and of the end).
 * `rawStart` is the file index of `raw[0]`.
 */
export function decodeEscapes(raw: string, rawStart: number): { cooked: string; map: number[] } {
  const map: number[] = [];
  // Most statements have nothing to decode: each character stands for itself.
  if (!raw.includes('\\') && !raw.includes('\r')) {
    for (let k = 0; k <= raw.length; k++) map.push(rawStart + k);
    return { cooked: raw, map };
  }
  let cooked = '';
  const push = (s: string, at: number): void => {
    for (let k = 0; k < s.length; k++) map.push(rawStart + at);
    cooked += s;
  };
  for (let i = 0; i < raw.length; ) {
    const c = raw[i];
    if (c === '\r') {
      // Template text reads CRLF and CR as LF.
      push('\n', i);
      i += raw[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    if (c !== '\\') {
      push(c, i);
      i++;
      continue;
    }
    const e = raw[i + 1];
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };
    if (e in simple) {
      push(simple[e], i);
      i += 2;
    } else if (e === 'x') {
      push(String.fromCharCode(parseInt(raw.slice(i + 2, i + 4), 16)), i);
      i += 4;
    } else if (e === 'u' && raw[i + 2] === '{') {
      const close = raw.indexOf('}', i);
      push(String.fromCodePoint(parseInt(raw.slice(i + 3, close), 16)), i);
      i = close + 1;
    } else if (e === 'u') {
      push(String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16)), i);
      i += 6;
    } else if (e === '\r') {
      i += raw[i + 2] === '\n' ? 3 : 2; // line continuation
    } else if (e === '\n' || e === '\u2028' || e === '\u2029') {
      i += 2;
    } else {
      push(e, i);
      i += 2;
    }
  }
  map.push(rawStart + raw.length);
  return { cooked, map };
}
