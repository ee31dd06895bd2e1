export interface CheckerArgOptions {
  /** The role of each `$n`, in order (asked from the user when the checker could not name them all). */
  roles?: readonly string[];
  /** The checker's own deadline (`--timeout`), in seconds. */
  timeoutSeconds?: number;
}

/**
 * Arguments for `node <bin> ...`: check the SQL write that the call on `line` (1-based, as
 * the checker and people count) sends, with a JSON report on stdout and the SVG timeline in a file.
 */
export function checkerArgs(binJs: string, file: string, line: number, svgPath: string, options: CheckerArgOptions = {}): string[] {
  if (!Number.isInteger(line) || line < 1) throw new RangeError(`line must be a positive integer, got ${line}`);
  const args = [binJs, '--at', `${file}:${line}`, '--json', '--svg', svgPath];
  if (options.roles !== undefined) {
    // One word per role: a comma or a space would shift every role after it.
    const bad = options.roles.find((role) => !/^[A-Za-z]+$/.test(role));
    if (options.roles.length === 0 || bad !== undefined) throw new RangeError(`roles must be words like value,key,token, got ${JSON.stringify(options.roles)}`);
    args.push('--roles', options.roles.join(','));
  }
  if (options.timeoutSeconds !== undefined) {
    if (!(options.timeoutSeconds > 0)) throw new RangeError(`timeoutSeconds must be above 0, got ${options.timeoutSeconds}`);
    args.push('--timeout', String(options.timeoutSeconds));
  }
  return args;
}
