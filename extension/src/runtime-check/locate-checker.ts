import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The npm package whose bin runs the runtime check; the .vsix cannot carry it (PGlite is ~10 MB). */
export const CHECKER_PACKAGE = 'fencelint-checker';
export const CHECKER_BIN = 'fencelint-check';

/**
 * The JavaScript file of the workspace's own `fencelint-check` bin, or undefined when the
 * folder does not have `fencelint-checker` installed. Resolved the way Node would resolve it
 * from the folder (so a hoisted or workspace-linked install is found too), and run later with
 * Node itself rather than through `node_modules/.bin`, whose shims differ per platform.
 */
export function locateChecker(folder: string): string | undefined {
  let manifestPath: string;
  try {
    manifestPath = createRequire(join(folder, 'package.json')).resolve(`${CHECKER_PACKAGE}/package.json`);
  } catch {
    return undefined;
  }
  let bin: unknown;
  try {
    bin = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: unknown }).bin;
  } catch {
    return undefined;
  }
  const relative = typeof bin === 'string' ? bin : typeof bin === 'object' && bin !== null ? (bin as Record<string, unknown>)[CHECKER_BIN] : undefined;
  if (typeof relative !== 'string') return undefined;
  const binJs = join(dirname(manifestPath), relative);
  return existsSync(binJs) ? binJs : undefined;
}

/** What to tell the user when `locateChecker` finds nothing. */
export function checkerMissingMessage(folder: string): string {
  return `fencelint: the runtime check needs ${CHECKER_PACKAGE} in this workspace (${folder}). Run: npm install -D ${CHECKER_PACKAGE}`;
}
