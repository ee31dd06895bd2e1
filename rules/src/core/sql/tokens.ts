/**
 * Token-level views of a parsed text. libpg-query gives only start locations; the ends of
 * expressions and clauses are found here from the real scanner's tokens.
 */
import { scanSql, type SqlToken } from './parser.js';

const OPENERS = new Set(['(', '[', 'CASE']);
const CLOSERS = new Set([')', ']', 'END']);

export class TokenView {
  private cached: SqlToken[] | undefined;

  constructor(readonly text: string) {}

  get tokens(): SqlToken[] {
    this.cached ??= scanSql(this.text);
    return this.cached;
  }

  /** Index of the token that starts at or contains `offset`, or the first token after it. */
  indexAt(offset: number): number {
    const t = this.tokens;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid].end <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the token that closes the bracket opened at `open` (or the last token). */
  matching(open: number): number {
    const t = this.tokens;
    let depth = 0;
    for (let k = open; k < t.length; k++) {
      if (OPENERS.has(t[k].text)) depth++;
      else if (CLOSERS.has(t[k].text) && --depth === 0) return k;
    }
    return t.length - 1;
  }

  /**
   * Source range of an expression whose nodes start between `first` and `last` (locations from
   * the AST): extended over qualified names, call parentheses, and brackets left open.
   */
  expressionRange(first: number, last: number): { start: number; end: number } | undefined {
    const t = this.tokens;
    if (t.length === 0) return undefined;
    let s = this.indexAt(first);
    let k = this.indexAt(last);
    if (s >= t.length || k >= t.length) return undefined;
    let depth = 0;
    let lowest = 0;
    for (let j = s; j <= k; j++) {
      if (OPENERS.has(t[j].text)) depth++;
      else if (CLOSERS.has(t[j].text)) lowest = Math.min(lowest, --depth);
    }
    for (;;) {
      const next = t[k + 1];
      if (!next) break;
      if (next.text === '.' && t[k + 2]) k += 2;
      else if (next.text === '(' && (t[k].keyword || /^[A-Za-z_"]/.test(t[k].text))) k = this.matching(k + 1);
      else if (depth > 0 && CLOSERS.has(next.text)) {
        k++;
        depth--;
      } else break;
    }
    // A leading parenthesis closed inside the range (`(a + b) * c`) belongs to it too.
    while (lowest < 0 && s > 0 && t[s - 1].text === '(') {
      s--;
      lowest++;
    }
    return { start: t[s].start, end: t[k].end };
  }
}
