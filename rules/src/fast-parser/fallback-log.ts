/**
 * Where the fast parser says that a file went to `@typescript-eslint/parser`: one line per
 * file and reason. ESLint's CLI gets it on stderr; the language server installs its own log.
 */
export interface Fallback {
  filePath: string;
  reason: string;
}

export type FallbackReporter = (fallback: Fallback) => void;

const MAX_REMEMBERED = 2000;
const reported = new Set<string>();

let reporter: FallbackReporter = ({ filePath, reason }) => {
  console.warn(`fencelint fast-parser: ${filePath}: ${reason}; parsed with @typescript-eslint/parser instead.`);
};

/** Replaces the reporter (the language server logs through its connection). */
export function setFallbackReporter(next: FallbackReporter): void {
  reporter = next;
}

export function reportFallback(fallback: Fallback): void {
  const key = `${fallback.filePath}\0${fallback.reason}`;
  if (reported.has(key)) return;
  if (reported.size >= MAX_REMEMBERED) reported.clear();
  reported.add(key);
  reporter(fallback);
}
