import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BadInputError, errorMessage } from './errors.js';
/**
 * Load a user's adapter module. JavaScript is imported by Node itself; TypeScript goes through
 * tsx's scoped `tsImport`, which compiles it without registering a loader for the whole process.
 */
export async function loadCheckerModule(path, cwd = process.cwd()) {
    const absolute = resolve(cwd, path);
    if (!existsSync(absolute))
        throw new BadInputError(`module not found: ${absolute}`);
    const url = pathToFileURL(absolute).href;
    let loaded;
    try {
        if (/\.(c|m)?tsx?$/.test(absolute)) {
            const { tsImport } = await import('tsx/esm/api');
            loaded = (await tsImport(url, import.meta.url));
        }
        else {
            loaded = (await import(url));
        }
    }
    catch (error) {
        throw new BadInputError(`module ${path} failed to load: ${errorMessage(error)}`);
    }
    const candidate = (typeof loaded.createResource === 'function' ? loaded : loaded.default) ?? {};
    if (typeof candidate.createResource !== 'function') {
        throw new BadInputError(`module ${path} exports no createResource(context) (named or on its default export); see checker/README.md`);
    }
    if (candidate.createAuthority !== undefined && typeof candidate.createAuthority !== 'function') {
        throw new BadInputError(`module ${path}: createAuthority must be a function`);
    }
    return candidate;
}
//# sourceMappingURL=module-loader.js.map