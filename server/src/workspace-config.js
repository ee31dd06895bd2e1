import { ESLint } from 'eslint';
/**
 * fencelint's options from the workspace's own `eslint.config.*`, loaded with ESLint's own
 * loader (`ESLint#calculateConfigForFile`). Loading a config runs workspace code, so callers
 * use this only for a workspace the client reports as trusted. Only `fencelint/*` rule entries
 * and `settings.fencelint` are taken; everything else in the user's config is ignored.
 */
export class WorkspaceConfigLoader {
    log;
    engines = new Map();
    constructor(log) {
        this.log = log;
    }
    async optionsFor(filename, folder) {
        let engine = this.engines.get(folder);
        if (!engine) {
            engine = new ESLint({ cwd: folder });
            this.engines.set(folder, engine);
        }
        let config;
        try {
            config = (await engine.calculateConfigForFile(filename));
        }
        catch (error) {
            const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
            this.log.once(`workspace-config:${folder}:${reason}`, `Could not load the ESLint config of ${folder} (${reason}); using fencelint's bundled defaults.`);
            return undefined;
        }
        if (!config)
            return undefined;
        const rules = {};
        for (const [id, entry] of Object.entries(config.rules ?? {})) {
            if (id.startsWith('fencelint/') && entry !== undefined)
                rules[id] = entry;
        }
        const fencelintSettings = config.settings?.fencelint;
        return {
            rules,
            settings: typeof fencelintSettings === 'object' && fencelintSettings !== null ? fencelintSettings : undefined,
        };
    }
    /** Configs may have changed on disk or in settings: load them afresh next time. */
    clear() {
        this.engines.clear();
    }
}
//# sourceMappingURL=workspace-config.js.map