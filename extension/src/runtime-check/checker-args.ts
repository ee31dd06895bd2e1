/**
 * Arguments for `node <bin> ...`: check the SQL write that the call on `line` (1-based, as
 * the checker and people count) sends, with a JSON report on stdout and the SVG timeline in a file.
 */
export function checkerArgs(binJs: string, file: string, line: number, svgPath: string): string[] {
  if (!Number.isInteger(line) || line < 1) throw new RangeError(`line must be a positive integer, got ${line}`);
  return [binJs, '--at', `${file}:${line}`, '--json', '--svg', svgPath];
}
