/**
 * Loading of the PostgreSQL parser (libpg-query, WebAssembly) and calls into it that never throw.
 * libpg-query reports byte offsets into the UTF-8 encoding; everything here is converted to
 * UTF-16 indices, which is what JavaScript strings and ESLint use.
 */
import { loadModule, parseSync, scanSync } from 'libpg-query';
import type { ParseResult } from 'libpg-query';

let loaded = false;
let loading: Promise<void> | undefined;

/** Loads the parser's WebAssembly module once; later calls return the same promise. */
export function loadSqlParser(): Promise<void> {
  loading ??= loadModule().then(() => {
    loaded = true;
  });
  return loading;
}

export function isSqlParserLoaded(): boolean {
  return loaded;
}

/** Parses, or returns undefined when the parser is not loaded or the text is not PostgreSQL. */
export function parseSql(text: string): ParseResult | undefined {
  if (!loaded) return undefined;
  try {
    return parseSync(text);
  } catch {
    return undefined;
  }
}

export interface SqlToken {
  start: number;
  end: number;
  /** Upper-case for keywords, as written otherwise. */
  text: string;
  written: string;
  keyword: boolean;
}

/** Lexical tokens without comments, with UTF-16 offsets. */
export function scanSql(text: string): SqlToken[] {
  if (!loaded) return [];
  let raw;
  try {
    raw = scanSync(text).tokens;
  } catch {
    return [];
  }
  const toIndex = byteToIndex(text);
  const tokens: SqlToken[] = [];
  for (const t of raw) {
    if (t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT') continue;
    const start = toIndex(t.start);
    const end = toIndex(t.end);
    const keyword = t.keywordKind > 0;
    const written = text.slice(start, end);
    tokens.push({ start, end, keyword, written, text: keyword ? written.toUpperCase() : written });
  }
  return tokens;
}

/** Maps UTF-8 byte offsets of `text` to UTF-16 indices (identity for ASCII text). */
export function byteToIndex(text: string): (byte: number) => number {
  if (/^[\u0000-\u007f]*$/.test(text)) return (byte) => byte;
  const starts: number[] = []; // starts[i] = byte offset of UTF-16 index i
  let byte = 0;
  for (let i = 0; i < text.length; i++) {
    starts.push(byte);
    const c = text.charCodeAt(i);
    if (c < 0x80) byte += 1;
    else if (c < 0x800) byte += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      byte += 4;
      starts.push(byte); // low surrogate: no bytes of its own
      i++;
    } else byte += 3;
  }
  const total = byte;
  return (b) => {
    if (b >= total) return text.length + (b - total);
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= b) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
}
