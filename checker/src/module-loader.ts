import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CheckerModule } from './adapter.js';
import { BadInputError, errorMessage } from './errors.js';

/**
 * Load a user's adapter module. JavaScript is imported by Node itself; TypeScript goes through
 * tsx's scoped `tsImport`, which compiles it without registering a loader for the whole process.
 */
export async function loadCheckerModule(path: string, cwd = process.cwd()): Promise<CheckerModule> {
  const absolute = resolve(cwd, path);
  if (!existsSync(absolute)) throw new BadInputError(`module not found: ${absolute}`);
  const url = pathToFileURL(absolute).href;
  let loaded: Record<string, unknown>;
  try {
    if (/\.(c|m)?tsx?$/.test(absolute)) {
      const { tsImport } = await import('tsx/esm/api');
      loaded = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    } else {
      loaded = (await import(url)) as Record<string, unknown>;
    }
  } catch (error) {
    throw new BadInputError(`module ${path} failed to load: ${errorMessage(error)}`);
  }
  const candidate = (typeof loaded.createResource === 'function' ? loaded : (loaded.default as Record<string, unknown> | undefined)) ?? {};
  if (typeof candidate.createResource !== 'function') {
    throw new BadInputError(`module ${path} exports no createResource(context) (named or on its default export); see checker/README.md`);
  }
  if (candidate.createAuthority !== undefined && typeof candidate.createAuthority !== 'function') {
    throw new BadInputError(`module ${path}: createAuthority must be a function`);
  }
  return candidate as unknown as CheckerModule;
}
