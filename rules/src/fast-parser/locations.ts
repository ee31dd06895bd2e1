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
 * Line starts of a text, and positions of offsets. A table of the line of every offset makes a
 * position two array reads: positions are asked for every node and token of the file.
 */
export class LineIndex {
  private readonly starts: number[] = [0];
  private readonly lineAt: Uint32Array;

  constructor(text: string) {
    for (const match of text.matchAll(LINE_BREAK)) this.starts.push(match.index + match[0].length);
    // One entry past the end: a node or token may end there.
    this.lineAt = new Uint32Array(text.length + 1);
    const starts = this.starts;
    for (let line = 0; line < starts.length; line++) {
      this.lineAt.fill(line, starts[line], line + 1 < starts.length ? starts[line + 1] : text.length + 1);
    }
  }

  position(offset: number): Position {
    const line = this.lineAt[offset];
    return { line: line + 1, column: offset - this.starts[line] };
  }

  location(start: number, end: number): SourceLocation {
    return { start: this.position(start), end: this.position(end) };
  }
}
