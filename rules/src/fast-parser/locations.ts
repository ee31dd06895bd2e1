/** Offsets to ESLint's `{ line, column }` positions (lines from 1, columns in UTF-16 units from 0). */

export interface Position {
  line: number;
  column: number;
}

export interface SourceLocation {
  start: Position;
  end: Position;
}

/** The line breaks ESLint and TypeScript both count: CRLF, LF, CR, U+2028, U+2029. */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/g;

/**
 * Line starts of a text, and positions of offsets. Positions are asked for in nearly increasing
 * order while the tree is walked, so the last line found is tried first.
 */
export class LineIndex {
  private readonly starts: number[] = [0];
  private last = 0;

  constructor(text: string) {
    for (const match of text.matchAll(LINE_BREAK)) this.starts.push(match.index + match[0].length);
  }

  position(offset: number): Position {
    const starts = this.starts;
    let line = this.last;
    if (!(starts[line] <= offset && (line + 1 === starts.length || offset < starts[line + 1]))) {
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset) lo = mid;
        else hi = mid - 1;
      }
      line = lo;
      this.last = lo;
    }
    return { line: line + 1, column: offset - starts[line] };
  }

  location(start: number, end: number): SourceLocation {
    return { start: this.position(start), end: this.position(end) };
  }
}
