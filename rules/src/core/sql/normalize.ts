/**
 * MySQL-flavoured SQL rewritten into text PostgreSQL's parser accepts, with a map back to the
 * original offsets: `?` and `??` (mysql2) and `:name` placeholders become `$1..$n` in order,
 * backtick identifiers become double-quoted, MySQL strings ("..." or with backslash escapes)
 * become PostgreSQL strings, and `#` comments become `--` comments.
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
  const pieces: Piece[] = [];
  let out = '';
  let copyFrom = 0;
  let next = 1;
  const paramNames: Record<string, number> = {};
  const positionalOffsets: number[] = [];

  const flush = (upTo: number): void => {
    if (upTo > copyFrom) {
      pieces.push({ out: out.length, src: copyFrom, outLen: upTo - copyFrom, srcLen: upTo - copyFrom, copied: true });
      out += source.slice(copyFrom, upTo);
      copyFrom = upTo;
    }
  };
  const replace = (start: number, end: number, text: string): void => {
    flush(start);
    pieces.push({ out: out.length, src: start, outLen: text.length, srcLen: end - start, copied: false });
    out += text;
    copyFrom = end;
  };

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
        replace(i, end, `${escaped ? 'E' : ''}'${pgBody}'`);
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
      replace(i, j, `"${name.replace(/"/g, '""')}"`);
      i = j;
    } else if (c === '-' && source[i + 1] === '-') {
      i = lineEnd(source, i);
    } else if (c === '#') {
      replace(i, i + 1, '--');
      i = lineEnd(source, i);
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === '?') {
      const identifier = source[i + 1] === '?';
      const len = identifier ? 2 : 1;
      const param = `$${next++}`;
      flush(i);
      positionalOffsets.push(out.length);
      replace(i, i + len, identifier ? `"${param}"` : param);
      i += len;
    } else if (c === ':' && source[i + 1] !== ':' && source[i - 1] !== ':' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
      let j = i + 1;
      while (j < n && /\w/.test(source[j])) j++;
      const name = source.slice(i + 1, j);
      paramNames[name] ??= next++;
      replace(i, j, `$${paramNames[name]}`);
      i = j;
    } else {
      i++;
    }
  }
  flush(n);
  pieces.push({ out: out.length, src: n, outLen: 0, srcLen: 0, copied: true });

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
