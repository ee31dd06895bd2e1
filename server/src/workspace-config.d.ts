import type { WorkspaceFencelintOptions } from './lint-config.js';
import type { ServerLog } from './server-log.js';
/**
 * fencelint's options from the workspace's own `eslint.config.*`, loaded with ESLint's own
 * loader (`ESLint#calculateConfigForFile`). Loading a config runs workspace code, so callers
 * use this only for a workspace the client reports as trusted. Only `fencelint/*` rule entries
 * and `settings.fencelint` are taken; everything else in the user's config is ignored.
 */
export declare class WorkspaceConfigLoader {
    private readonly log;
    private readonly engines;
    constructor(log: ServerLog);
    optionsFor(filename: string, folder: string): Promise<WorkspaceFencelintOptions | undefined>;
    /** Configs may have changed on disk or in settings: load them afresh next time. */
    clear(): void;
}
