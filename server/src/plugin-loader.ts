import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ESLint, Linter, Rule } from 'eslint';

/** The part of `eslint-plugin-fencelint/core` the server uses; absent until the core exports it. */
export type GetFileAnalysis = (context: Rule.RuleContext) => unknown;
/** `findCheckThenWrites(analysis, sourceCode)` of the core: writes guarded by a separate check. */
export type FindCheckThenWrites = (analysis: unknown, sourceCode: unknown) => unknown;

/**
 * The core's module graph (`projectGraph`): summaries of the project modules a lint reached,
 * which the server keeps in step with open documents and files on disk.
 */
export interface ProjectGraph {
  /** The project files whose summaries the last analysis of `file` used. */
  dependenciesOf(file: string): string[];
  /** Forgets a file changed, created or deleted on disk. */
  invalidate(file: string): void;
  /** The unsaved text of an open document (undefined: read the disk again). */
  setFileText(file: string, text: string | undefined): void;
  /** Forgets everything (a tsconfig or package.json changed). */
  clear(): void;
}
/** `onSettingsProblems(handler)` of the core: where problems in `settings.fencelint` are reported. */
export type OnSettingsProblems = (handler: ((message: string, problems: readonly string[]) => void) | undefined) => void;

export interface ExtraPlugin {
  namespace: string;
  plugin: ESLint.Plugin;
  source: string;
}

export interface LoadedPlugins {
  fencelint: ESLint.Plugin;
  /** Rule entries of the plugin's `recommended` config, keyed by full rule id. */
  recommendedRules: Record<string, Linter.RuleEntry>;
  /** Full rule id (`fencelint/<name>`) -> docs URL from the rule's `meta.docs.url`. */
  docsUrls: Map<string, string>;
  getFileAnalysis: GetFileAnalysis | undefined;
  findCheckThenWrites: FindCheckThenWrites | undefined;
  projectGraph: ProjectGraph | undefined;
  onSettingsProblems: OnSettingsProblems | undefined;
  /** The known name closest to a misspelt one (`closestName` of the core). */
  closestName: (name: string, known: readonly string[]) => string | undefined;
  extra: ExtraPlugin[];
}

/**
 * Environment variable naming extra ESLint plugins (absolute paths to ES modules that
 * default-export a plugin with `meta.namespace`), separated by the platform's path delimiter.
 * Every rule of such a plugin is turned on as an error. It exists so the server's containment
 * of a throwing rule can be tested against a real throwing rule; it is an environment variable
 * and not a setting so that no workspace can make the server load code.
 */
export const EXTRA_PLUGINS_ENV = 'FENCELINT_LS_EXTRA_PLUGINS';

function asPlugin(value: unknown): ESLint.Plugin | undefined {
  const candidate = (value as { default?: unknown })?.default ?? value;
  if (typeof candidate === 'object' && candidate !== null && 'rules' in candidate) return candidate as ESLint.Plugin;
  return undefined;
}

function docsUrlOf(rule: unknown): string | undefined {
  const url = (rule as Rule.RuleModule | undefined)?.meta?.docs?.url;
  return typeof url === 'string' ? url : undefined;
}

/**
 * Loads the plugin with a dynamic import: its module awaits the SQL parser's WebAssembly at the
 * top level, so it cannot be required synchronously.
 */
export async function loadPlugins(env: NodeJS.ProcessEnv = process.env): Promise<LoadedPlugins> {
  // Typed below by the ESLint plugin shape rather than by the package's declarations.
  // @ts-ignore -- the plugin's .d.ts exists only after `npm run build -w rules`.
  const fencelint = asPlugin(await import('eslint-plugin-fencelint'));
  if (!fencelint) throw new Error('eslint-plugin-fencelint did not export an ESLint plugin');

  const recommended = (fencelint.configs as Record<string, Linter.Config> | undefined)?.recommended;
  const recommendedRules = { ...(recommended?.rules ?? {}) } as Record<string, Linter.RuleEntry>;

  const docsUrls = new Map<string, string>();
  for (const [name, rule] of Object.entries(fencelint.rules ?? {})) {
    const url = docsUrlOf(rule);
    if (url) docsUrls.set(`fencelint/${name}`, url);
  }

  let getFileAnalysis: GetFileAnalysis | undefined;
  let findCheckThenWrites: FindCheckThenWrites | undefined;
  let projectGraph: ProjectGraph | undefined;
  let onSettingsProblems: OnSettingsProblems | undefined;
  let closestName: LoadedPlugins['closestName'] = () => undefined;
  try {
    // @ts-ignore -- as above.
    const core = (await import('eslint-plugin-fencelint/core')) as Record<string, unknown>;
    if (typeof core.getFileAnalysis === 'function') getFileAnalysis = core.getFileAnalysis as GetFileAnalysis;
    if (typeof core.findCheckThenWrites === 'function') findCheckThenWrites = core.findCheckThenWrites as FindCheckThenWrites;
    const graph = core.projectGraph as Partial<ProjectGraph> | undefined;
    if (typeof graph?.dependenciesOf === 'function' && typeof graph.invalidate === 'function' && typeof graph.setFileText === 'function' && typeof graph.clear === 'function') {
      projectGraph = graph as ProjectGraph;
    }
    if (typeof core.onSettingsProblems === 'function') onSettingsProblems = core.onSettingsProblems as OnSettingsProblems;
    if (typeof core.closestName === 'function') closestName = core.closestName as LoadedPlugins['closestName'];
  } catch {
    // The core is optional for the server: without it, diagnostics carry no related locations.
  }

  const extra: ExtraPlugin[] = [];
  for (const source of (env[EXTRA_PLUGINS_ENV] ?? '').split(path.delimiter).filter(Boolean)) {
    const plugin = asPlugin(await import(pathToFileURL(path.resolve(source)).href));
    const namespace = plugin?.meta && 'namespace' in plugin.meta ? String((plugin.meta as { namespace?: string }).namespace ?? '') : '';
    if (!plugin || !namespace) throw new Error(`${EXTRA_PLUGINS_ENV}: ${source} does not export a plugin with meta.namespace`);
    for (const [name, rule] of Object.entries(plugin.rules ?? {})) {
      const url = docsUrlOf(rule);
      if (url) docsUrls.set(`${namespace}/${name}`, url);
    }
    extra.push({ namespace, plugin, source });
  }

  return { fencelint, recommendedRules, docsUrls, getFileAnalysis, findCheckThenWrites, projectGraph, onSettingsProblems, closestName, extra };
}
