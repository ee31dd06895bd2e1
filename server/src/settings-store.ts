import type { Connection } from 'vscode-languageserver/node';
import { normalizeSettings, type FencelintSettings } from './settings.js';
import type { ServerLog } from './server-log.js';

/**
 * Settings per document: fetched once through `workspace/configuration` with the document as
 * scope, cached until the client says the configuration changed or the document closes.
 *
 * Clients without `workspace/configuration` (some editors) get the settings they pushed with
 * `workspace/didChangeConfiguration` or sent as `initializationOptions.settings`.
 */
export class SettingsStore {
  private readonly perDocument = new Map<string, Promise<FencelintSettings>>();
  private pushed: unknown;

  constructor(
    private readonly connection: Connection,
    private readonly log: ServerLog,
    private readonly clientPullsConfiguration: boolean,
    initialSettings: unknown,
  ) {
    this.pushed = initialSettings;
  }

  get(uri: string): Promise<FencelintSettings> {
    let settings = this.perDocument.get(uri);
    if (!settings) {
      settings = this.fetch(uri);
      this.perDocument.set(uri, settings);
    }
    return settings;
  }

  /** `workspace/didChangeConfiguration`: forget every cached value. */
  invalidate(pushedSettings?: unknown): void {
    if (pushedSettings !== undefined && pushedSettings !== null) this.pushed = pushedSettings;
    this.perDocument.clear();
  }

  forget(uri: string): void {
    this.perDocument.delete(uri);
  }

  private async fetch(uri: string): Promise<FencelintSettings> {
    let raw: unknown = this.pushed;
    if (this.clientPullsConfiguration) {
      try {
        raw = await this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'fencelint' });
      } catch (error) {
        this.log.once(`config:${String(error)}`, `Could not read the fencelint settings (${String(error)}); using the defaults.`);
        raw = undefined;
      }
    }
    const { settings, problems } = normalizeSettings(raw);
    for (const problem of problems) this.log.once(`setting:${problem}`, `Ignored a setting: ${problem}.`);
    return settings;
  }
}
