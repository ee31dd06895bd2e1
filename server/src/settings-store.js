import { normalizeSettings } from './settings.js';
/**
 * Settings per document: fetched once through `workspace/configuration` with the document as
 * scope, cached until the client says the configuration changed or the document closes.
 *
 * Clients without `workspace/configuration` (some editors) get the settings they pushed with
 * `workspace/didChangeConfiguration` or sent as `initializationOptions.settings`.
 */
export class SettingsStore {
    connection;
    log;
    clientPullsConfiguration;
    perDocument = new Map();
    pushed;
    constructor(connection, log, clientPullsConfiguration, initialSettings) {
        this.connection = connection;
        this.log = log;
        this.clientPullsConfiguration = clientPullsConfiguration;
        this.pushed = initialSettings;
    }
    get(uri) {
        let settings = this.perDocument.get(uri);
        if (!settings) {
            settings = this.fetch(uri);
            this.perDocument.set(uri, settings);
        }
        return settings;
    }
    /** `workspace/didChangeConfiguration`: forget every cached value. */
    invalidate(pushedSettings) {
        if (pushedSettings !== undefined && pushedSettings !== null)
            this.pushed = pushedSettings;
        this.perDocument.clear();
    }
    forget(uri) {
        this.perDocument.delete(uri);
    }
    async fetch(uri) {
        let raw = this.pushed;
        if (this.clientPullsConfiguration) {
            try {
                raw = await this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'fencelint' });
            }
            catch (error) {
                this.log.once(`config:${String(error)}`, `Could not read the fencelint settings (${String(error)}); using the defaults.`);
                raw = undefined;
            }
        }
        const { settings, problems } = normalizeSettings(raw);
        for (const problem of problems)
            this.log.once(`setting:${problem}`, `Ignored a setting: ${problem}.`);
        return settings;
    }
}
//# sourceMappingURL=settings-store.js.map