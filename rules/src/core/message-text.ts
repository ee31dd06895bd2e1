/**
 * Source text quoted inside a one-line message: folded to one line exactly as written
 * (`(redlock as any).acquire`, never `(redlockasany).acquire`) and cut to a length that
 * keeps the whole message within about 120 columns.
 */

import { basename, extname } from 'node:path';

/** Longest code span a message quotes, in characters, the backticks excluded. */
export const MAX_QUOTE = 32;

/** Folds source text to one line: a line break inside a call chain (`a\n  .b`) disappears, other runs of blanks become one space. */
export function foldToLine(text: string): string {
  return text
    .replace(/\s*\n\s*(?=[.?)\]])/g, '')
    .replace(/([([])\s*\n\s*/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Folded and shortened with an ellipsis, for text copied from the source or from settings. */
export function shorten(text: string, max = MAX_QUOTE): string {
  const flat = foldToLine(text);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A Markdown code span of shortened text: `` `redlock.acquire` ``. */
export function codeSpan(text: string, max = MAX_QUOTE): string {
  return `\`${shorten(text, max).replace(/`/g, "'")}\``;
}

/** ` (line 12)`, or nothing when the place is on the line being reported: a message never names its own line. */
export function lineSuffix(line: number, reportedLine: number): string {
  return line === reportedLine ? '' : ` (line ${line})`;
}

/** Longest file name a message names another place by (`lock-helpers.ts:12`). */
const MAX_FILE_NAME = 20;

/**
 * A file as a message names it: its base name, its stem cut with an ellipsis when long, the
 * extension kept (`distributed-lock….ts` for `distributed-lock.decorator.ts`).
 */
export function fileLabel(file: string): string {
  const name = basename(file);
  if (name.length <= MAX_FILE_NAME) return name;
  const ext = extname(name);
  return `${name.slice(0, MAX_FILE_NAME - ext.length - 1)}…${ext}`;
}
