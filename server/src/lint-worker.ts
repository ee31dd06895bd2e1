import { parentPort, workerData } from 'node:worker_threads';
import { AnalysisCollector } from './file-analysis.js';
import { LintConfigs } from './lint-configs.js';
import { LintEngine, type LintOutcome } from './lint-engine.js';
import { loadBundledParser } from './parser-choice.js';
import { loadPlugins } from './plugin-loader.js';
import type { Log } from './server-log.js';
import type { FencelintSettings } from './settings.js';
import { WorkspaceConfigLoader } from './workspace-config.js';

/** `workerData.role` of the thread that lints large documents (see off-thread-lint.ts). */
export const LINT_WORKER_ROLE = 'fencelint-large-document-lint';

export interface LintWorkerData {
  role: typeof LINT_WORKER_ROLE;
  trusted: boolean;
  workspaceFolders: string[];
}

export type ToWorker =
  | { type: 'lint'; id: number; filename: string; text: string; settings: FencelintSettings }
  /** The unsaved text of an open module (undefined: read the disk again). */
  | { type: 'file-text'; file: string; text: string | undefined }
  | { type: 'invalidate'; file: string }
  | { type: 'clear-graph' }
  | { type: 'clear-configs' };

export type WorkerOutcome = LintOutcome | { status: 'ignored' };

export type FromWorker =
  | { type: 'result'; id: number; outcome: WorkerOutcome; dependencies: string[] }
  | { type: 'log'; level: 'info' | 'error'; key?: string; message: string }
  | { type: 'problem'; message: string }
  | { type: 'unavailable'; error: string };

export function isLintWorker(data: unknown): data is LintWorkerData {
  return typeof data === 'object' && data !== null && (data as { role?: unknown }).role === LINT_WORKER_ROLE;
}

/**
 * The worker thread's side: its own plugin, parser, config cache and module graph, the same
 * code the main thread runs, so a large document gets the findings a small one would. Log
 * lines and settings problems go to the main thread, which shows each once.
 */
export async function runLintWorker(): Promise<void> {
  const port = parentPort;
  if (!port || !isLintWorker(workerData)) return;
  const data = workerData;
  const post = (message: FromWorker) => port.postMessage(message);
  const seen = new Set<string>();
  const log: Log = {
    info: (message) => post({ type: 'log', level: 'info', message }),
    error: (message) => post({ type: 'log', level: 'error', message }),
    once(key, message, level = 'error') {
      if (seen.has(key)) return false;
      seen.add(key);
      post({ type: 'log', level, key, message });
      return true;
    },
  };

  let engine: LintEngine;
  let configs: LintConfigs;
  let dependenciesOf: (file: string) => string[];
  let graph: Awaited<ReturnType<typeof loadPlugins>>['projectGraph'];
  try {
    const plugins = await loadPlugins();
    plugins.onSettingsProblems?.((message) => post({ type: 'problem', message }));
    const bundledParser = await loadBundledParser(log);
    const collector = plugins.getFileAnalysis ? new AnalysisCollector(plugins.getFileAnalysis, plugins.findCheckThenWrites) : undefined;
    engine = new LintEngine(collector);
    configs = new LintConfigs(plugins, new WorkspaceConfigLoader(log), log, {
      trusted: data.trusted,
      workspaceFolders: () => data.workspaceFolders,
      bundledParser,
      onProblem: (message) => post({ type: 'problem', message }),
    }, collector);
    graph = plugins.projectGraph;
    dependenciesOf = (file) => graph?.dependenciesOf(file) ?? [];
  } catch (error) {
    post({ type: 'unavailable', error: error instanceof Error ? error.message : String(error) });
    return;
  }

  port.on('message', async (message: ToWorker) => {
    switch (message.type) {
      case 'lint': {
        let outcome: WorkerOutcome;
        try {
          const config = await configs.configFor(message.filename, message.settings);
          outcome = config === 'ignored' ? { status: 'ignored' } : engine.lint(message.text, message.filename, config);
        } catch (error) {
          outcome = { status: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
        }
        post({ type: 'result', id: message.id, outcome, dependencies: dependenciesOf(message.filename) });
        break;
      }
      case 'file-text':
        graph?.setFileText(message.file, message.text);
        break;
      case 'invalidate':
        graph?.invalidate(message.file);
        break;
      case 'clear-graph':
        graph?.clear();
        break;
      case 'clear-configs':
        configs.clear();
        break;
    }
  });
}
