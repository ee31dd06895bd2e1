/**
 * SQL rewritten into text PostgreSQL's parser accepts, with a map back to the original offsets.
 * mysql: `?` and `??` (mysql2) and `:name` placeholders become `$1..$n` in order, backtick
 * identifiers become double-quoted, MySQL strings ("..." or with backslash escapes) become
 * PostgreSQL strings, and `#` comments become `--` comments.
 * postgres: pg-promise named variables (`${name}`, `$(name)`, `$<name>`...) become `$n`.
 */

import { scanSql } from './parser.js';

export interface NormalizedSql {
  text: string;
  paramNames: Record<string, number>;
  /** Offsets in `text` of the `$n` that stand for positional `?` / `??` placeholders. */
  positionalOffsets: number[];
  toSourceOffset(offset: number): number | undefined;
}

/** Pieces of the output, in order; `copied` pieces are the source text unchanged. */
interface Piece {
  out: number;
  src: number;
  outLen: number;
  srcLen: number;
  copied: boolean;
}

export function identityNormalization(text: string): NormalizedSql {
  return {
    text,
    paramNames: {},
    positionalOffsets: [],
    toSourceOffset: (offset) => (offset >= 0 && offset <= text.length ? offset : undefined),
  };
}

export function normalizeMysql(source: string): NormalizedSql {
  const w = new Rewriter(source);
  let next = 1;
  const paramNames: Record<string, number> = {};
  const positionalOffsets: number[] = [];

  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === "'" || c === '"') {
      const end = skipMysqlString(source, i);
      const body = source.slice(i + 1, end - 1);
      const escaped = body.includes('\\');
      if (c === '"' || escaped) {
        const pgBody = c === '"' ? doubleQuotedBody(body) : body;
        w.replace(i, end, `${escaped ? 'E' : ''}'${pgBody}'`);
      }
      i = end;
    } else if (c === '`') {
      let j = i + 1;
      let name = '';
      while (j < n) {
        if (source[j] === '`') {
          if (source[j + 1] === '`') {
            name += '`';
            j += 2;
            continue;
          }
          j++;
          break;
        }
        name += source[j++];
      }
      w.replace(i, j, `"${name.replace(/"/g, '""')}"`);
      i = j;
    } else if (c === '-' && source[i + 1] === '-') {
      i = lineEnd(source, i);
    } else if (c === '#') {
      w.replace(i, i + 1, '--');
      i = lineEnd(source, i);
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === '?') {
      const identifier = source[i + 1] === '?';
      const len = identifier ? 2 : 1;
      const param = `$${next++}`;
      positionalOffsets.push(w.replace(i, i + len, identifier ? `"${param}"` : param));
      i += len;
    } else if (c === ':' && source[i + 1] !== ':' && source[i - 1] !== ':' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
      let j = i + 1;
      while (j < n && /\w/.test(source[j])) j++;
      const name = source.slice(i + 1, j);
      paramNames[name] ??= next++;
      w.replace(i, j, `$${paramNames[name]}`);
      i = j;
    } else {
      i++;
    }
  }
  return w.finish(paramNames, positionalOffsets);
}

const PG_PROMISE_OPEN: Record<string, string> = { '{': '}', '(': ')', '<': '>', '[': ']', '/': '/' };
const PG_PROMISE_VARIABLE = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(\^|~|#|:raw|:value|:name|:alias|:json|:csv|:list)?\s*$/;

/**
 * pg-promise named variables in PostgreSQL text (`${name}`, `$(name)`, `$<name>`, `$[name]`,
 * `$/name/`, with `:name`/`~` for identifiers and other modifiers) become `$n` (a repeated name
 * keeps its n, numbered past any `$n` written) or, for identifiers, a quoted name.
 * Text without them is returned unchanged.
 */
export function normalizePostgres(source: string): NormalizedSql {
  if (!/\$[{(<[/]/.test(source)) return identityNormalization(source);
  const w = new Rewriter(source);
  const paramNames: Record<string, number> = {};
  let next = Math.max(0, ...[...source.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))) + 1;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === "'" || c === '"') {
      // PostgreSQL strings and identifiers: the closing quote doubled is an escaped quote.
      let j = i + 1;
      const escapes = c === "'" && /[eE]/.test(source[i - 1] ?? '');
      while (j < n) {
        if (escapes && source[j] === '\\') j += 2;
        else if (source[j] === c) {
          if (source[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      i = j + 1;
    } else if (c === '-' && source[i + 1] === '-') {
      i = lineEnd(source, i);
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === '$' && PG_PROMISE_OPEN[source[i + 1]]) {
      const close = source.indexOf(PG_PROMISE_OPEN[source[i + 1]], i + 2);
      const match = close > 0 ? PG_PROMISE_VARIABLE.exec(source.slice(i + 2, close)) : null;
      if (!match) {
        i++;
        continue;
      }
      const [, name, modifier] = match;
      if (modifier === ':name' || modifier === ':alias' || modifier === '~') w.replace(i, close + 1, `"${name}"`);
      else {
        paramNames[name] ??= next++;
        w.replace(i, close + 1, `$${paramNames[name]}`);
      }
      i = close + 1;
    } else if (c === '$') {
      // Dollar-quoted string: $tag$ ... $tag$
      const tag = /^\$[A-Za-z_]?\w*\$/.exec(source.slice(i))?.[0];
      if (tag && !/^\$\d/.test(tag)) {
        const close = source.indexOf(tag, i + tag.length);
        i = close < 0 ? n : close + tag.length;
      } else i++;
    } else {
      i++;
    }
  }
  return w.finish(paramNames, []);
}

/** Builds rewritten text from the source, remembering where each piece came from. */
class Rewriter {
  private readonly pieces: Piece[] = [];
  private out = '';
  private copyFrom = 0;

  constructor(private readonly source: string) {}

  private flush(upTo: number): void {
    if (upTo > this.copyFrom) {
      this.pieces.push({ out: this.out.length, src: this.copyFrom, outLen: upTo - this.copyFrom, srcLen: upTo - this.copyFrom, copied: true });
      this.out += this.source.slice(this.copyFrom, upTo);
      this.copyFrom = upTo;
    }
  }

  /** Replaces source[start, end) by `text`; returns the output offset of `text`. */
  replace(start: number, end: number, text: string): number {
    this.flush(start);
    const at = this.out.length;
    this.pieces.push({ out: at, src: start, outLen: text.length, srcLen: end - start, copied: false });
    this.out += text;
    this.copyFrom = end;
    return at;
  }

  finish(paramNames: Record<string, number>, positionalOffsets: number[]): NormalizedSql {
    this.flush(this.source.length);
    const { pieces, out } = this;
    pieces.push({ out: out.length, src: this.source.length, outLen: 0, srcLen: 0, copied: true });
    return {
      text: out,
      paramNames,
      positionalOffsets,
      toSourceOffset(offset) {
        if (offset < 0 || offset > out.length) return undefined;
        let lo = 0;
        let hi = pieces.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (pieces[mid].out <= offset) lo = mid;
          else hi = mid - 1;
        }
        // An offset on a boundary belongs to the piece that starts there; both sides agree on it.
        const p = pieces[lo];
        if (p.copied) return p.src + (offset - p.out);
        if (offset === p.out) return p.src;
        if (offset === p.out + p.outLen) return p.src + p.srcLen;
        return undefined;
      },
    };
  }
}

/** End (exclusive) of the MySQL string starting at `start`: backslash escapes and doubled quotes. */
function skipMysqlString(s: string, start: number): number {
  const q = s[start];
  let j = start + 1;
  while (j < s.length) {
    if (s[j] === '\\') j += 2;
    else if (s[j] === q) {
      if (s[j + 1] === q) j += 2;
      else return j + 1;
    } else j++;
  }
  return s.length;
}

/** Body of a MySQL "..." string as the body of a PostgreSQL '...' string. */
function doubleQuotedBody(body: string): string {
  let result = '';
  for (let j = 0; j < body.length; j++) {
    const ch = body[j];
    if (ch === '\\') {
      result += body.slice(j, j + 2);
      j++;
    } else if (ch === '"' && body[j + 1] === '"') {
      result += '"';
      j++;
    } else result += ch === "'" ? "''" : ch;
  }
  return result;
}

function lineEnd(s: string, i: number): number {
  const nl = s.indexOf('\n', i);
  return nl < 0 ? s.length : nl;
}

/**
 * For a single MySQL `UPDATE`/`DELETE` ending in `[ORDER BY ...] LIMIT n`, the same text with that
 * tail replaced by spaces (so every offset stays valid); undefined for anything else.
 */
export function blankMysqlWriteLimit(text: string): string | undefined {
  const tokens = scanSql(text);
  if (tokens.length === 0 || (tokens[0].text !== 'UPDATE' && tokens[0].text !== 'DELETE')) return undefined;
  let end = tokens.length;
  if (tokens[end - 1].text === ';') end--;
  let depth = 0;
  let tail: number | undefined;
  for (let k = 0; k < end; k++) {
    const t = tokens[k];
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (t.text === ';') return undefined; // several statements
    else if (depth === 0 && t.keyword && (t.text === 'ORDER' || t.text === 'LIMIT') && tail === undefined) tail = k;
  }
  const limit = tokens[end - 2];
  if (tail === undefined || limit?.text !== 'LIMIT' || !/^(\d+|\$\d+)$/.test(tokens[end - 1].text)) return undefined;
  const from = tokens[tail].start;
  const to = tokens[end - 1].end;
  return text.slice(0, from) + text.slice(from, to).replace(/[^\n]/g, ' ') + text.slice(to);
}

const MYSQL_INTERVAL_UNIT = /^(?:MICROSECOND|SECOND|MINUTE|HOUR|DAY|WEEK|MONTH|QUARTER|YEAR)$/i;

/**
 * MySQL's `INTERVAL 15 SECOND` / `INTERVAL $1 MINUTE` (not PostgreSQL syntax) replaced by its
 * amount padded with spaces, so the statement parses and every offset stays valid: what is
 * read off it (the columns set, the parameters and clock functions reaching them) is the same.
 * Undefined when the text has no such interval.
 */
export function blankMysqlIntervals(text: string): string | undefined {
  const tokens = scanSql(text);
  let out: string | undefined;
  for (let k = 0; k + 2 < tokens.length; k++) {
    const [interval, amount, unit] = [tokens[k], tokens[k + 1], tokens[k + 2]];
    if (interval.text !== 'INTERVAL' || !/^(?:\d+(?:\.\d+)?|\$\d+)$/.test(amount.text) || !MYSQL_INTERVAL_UNIT.test(unit.text)) continue;
    const base = out ?? text;
    const replacement = amount.text.padEnd(unit.end - interval.start, ' ');
    out = base.slice(0, interval.start) + replacement + base.slice(unit.end);
    k += 2;
  }
  return out;
}
