import path from 'node:path';
import type { Linter } from 'eslint';
import { buildLintConfig, knownRuleEntries } from './lint-config.js';
import type { ParserChoice } from './parser-choice.js';
import type { LoadedPlugins } from './plugin-loader.js';
import type { Log } from './server-log.js';
import { settingsKey, type FencelintSettings } from './settings.js';
import type { WorkspaceConfigLoader } from './workspace-config.js';

/** Tells workspace parsers apart in the config cache (a parser object itself does not stringify). */
const parserIds = new WeakMap<object, number>();
let nextParserId = 1;
function parserKey(choice: ParserChoice): string {
  let id = parserIds.get(choice.parser);
  if (id === undefined) parserIds.set(choice.parser, (id = nextParserId++));
  return String(id);
}

export interface LintConfigOptions {
  trusted: boolean;
  workspaceFolders: () => string[];
  /** The parser of the bundled configuration (the fast parser unless it cannot load). */
  bundledParser?: ParserChoice;
  /** A setting that was ignored (a misspelt rule name): shown once to the user. */
  onProblem?: (problem: string) => void;
}

/**
 * The flat config for a file: from the editor settings and, when opted in for a trusted
 * workspace, fencelint's part of the workspace's own ESLint config. Built once per distinct
 * settings, folder and workspace options. The main thread and the large-file worker each hold one.
 */
export class LintConfigs {
  private readonly configs = new Map<string, Linter.Config[]>();

  constructor(
    private readonly plugins: LoadedPlugins,
    private readonly workspaceConfig: WorkspaceConfigLoader,
    private readonly log: Log,
    private readonly options: LintConfigOptions,
    private readonly withCollector: Parameters<typeof buildLintConfig>[3],
  ) {}

  /** Settings or configs changed: every built config is out of date. */
  clear(): void {
    this.configs.clear();
    this.workspaceConfig.clear();
  }

  private folderOf(filename: string): string {
    const folders = this.options.workspaceFolders().filter((f) => filename.startsWith(f.endsWith(path.sep) ? f : f + path.sep));
    return folders.sort((a, b) => b.length - a.length)[0] ?? path.dirname(filename);
  }

  /** The config for the file, or `'ignored'` when the workspace's own ESLint config does not lint it. */
  async configFor(filename: string, settings: FencelintSettings): Promise<Linter.Config[] | 'ignored'> {
    let workspace;
    let key = settingsKey(settings);
    if (settings.useWorkspaceConfig) {
      if (this.options.trusted) {
        const folder = this.folderOf(filename);
        const options = await this.workspaceConfig.optionsFor(filename, folder);
        if (options === 'ignored') return 'ignored';
        workspace = options;
        const parser = workspace?.parser;
        key += `\0${folder}\0${JSON.stringify(workspace ? { ...workspace, parser: parser && { key: parserKey(parser), options: parser.parserOptions } } : null)}`;
      } else {
        this.log.once('untrusted-workspace-config', 'fencelint.useWorkspaceConfig is ignored: the workspace is not trusted. Using the bundled defaults.', 'info');
      }
    }
    let config = this.configs.get(key);
    if (!config) {
      const own = knownRuleEntries(this.plugins, settings.rules, 'fencelint.rules');
      const theirs = workspace && knownRuleEntries(this.plugins, workspace.rules, 'the workspace ESLint config');
      for (const problem of [...own.problems, ...(theirs?.problems ?? [])]) this.options.onProblem?.(problem);
      settings = { ...settings, rules: own.entries };
      if (workspace && theirs) workspace = { ...workspace, rules: theirs.entries };
      config = buildLintConfig(this.plugins, settings, workspace, this.withCollector, this.options.bundledParser);
      this.configs.set(key, config);
    }
    return config;
  }
}
