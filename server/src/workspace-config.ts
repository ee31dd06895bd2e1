import { ESLint, type Linter } from 'eslint';
import type { WorkspaceFencelintOptions } from './lint-config.js';
import { workspaceParser } from './parser-choice.js';
import type { Log } from './server-log.js';

/**
 * fencelint's options from the workspace's own `eslint.config.*`, loaded with ESLint's own
 * loader (`ESLint#calculateConfigForFile`). Loading a config runs workspace code, so callers
 * use this only for a workspace the client reports as trusted. Only `fencelint/*` rule entries,
 * `settings.fencelint` and the parser set for the file (with its parser options) are taken;
 * everything else in the user's config is ignored.
 */
export class WorkspaceConfigLoader {
  private readonly engines = new Map<string, ESLint>();

  constructor(private readonly log: Log) {}

  /**
   * `'ignored'` when the workspace config does not lint the file (its `ignores`, or no `files`
   * entry matches): `eslint` gives it no finding, so neither does the editor.
   */
  async optionsFor(filename: string, folder: string): Promise<WorkspaceFencelintOptions | 'ignored' | undefined> {
    let engine = this.engines.get(folder);
    if (!engine) {
      engine = new ESLint({ cwd: folder });
      this.engines.set(folder, engine);
    }
    let config: Linter.Config | undefined;
    try {
      config = (await engine.calculateConfigForFile(filename)) as Linter.Config | undefined;
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      this.log.once(`workspace-config:${folder}:${reason}`, `Could not load the ESLint config of ${folder} (${reason}); using fencelint's bundled defaults.`);
      return undefined;
    }
    if (!config) return 'ignored';
    const rules: Record<string, Linter.RuleEntry> = {};
    for (const [id, entry] of Object.entries(config.rules ?? {})) {
      if (id.startsWith('fencelint/') && entry !== undefined) rules[id] = entry;
    }
    const fencelintSettings = (config.settings as Record<string, unknown> | undefined)?.fencelint;
    return {
      rules,
      settings: typeof fencelintSettings === 'object' && fencelintSettings !== null ? (fencelintSettings as Record<string, unknown>) : undefined,
      parser: workspaceParser(config.languageOptions),
    };
  }

  /** Configs may have changed on disk or in settings: load them afresh next time. */
  clear(): void {
    this.engines.clear();
  }
}
