import { realpathSync } from 'node:fs';
import type { ProjectGraph } from './plugin-loader.js';

/**
 * Counts the changes the module graph is told of (edits, saves, changes on disk), so a reused
 * slice of a file is one the imported modules have not changed under: the count a file sees
 * leaves out its own edits, which change its text, not what it imports, unless its imports
 * lead back to it (an import cycle), where they change both.
 */
export class ProjectChanges {
  private total = 0;
  private readonly own = new Map<string, number>();
  private readonly realPaths = new Map<string, string>();
  private graph: ProjectGraph | undefined;

  record(file: string | undefined): void {
    this.total++;
    if (file !== undefined) this.own.set(file, (this.own.get(file) ?? 0) + 1);
  }

  /** Changes to modules other than `filename` so far. */
  stampFor(filename: string): number {
    let real = this.realPaths.get(filename);
    if (real === undefined) {
      try {
        real = realpathSync.native(filename);
      } catch {
        real = filename;
      }
      this.realPaths.set(filename, real);
    }
    const reached = this.graph?.dependenciesOf(filename) ?? [];
    if (reached.includes(real) || reached.includes(filename)) return this.total;
    return this.total - (this.own.get(real) ?? 0) - (real === filename ? 0 : this.own.get(filename) ?? 0);
  }

  /** The graph, with every change it is told of counted here first. */
  watch(graph: ProjectGraph): ProjectGraph {
    this.graph = graph;
    return {
      dependenciesOf: (file) => graph.dependenciesOf(file),
      invalidate: (file) => {
        this.record(file);
        graph.invalidate(file);
      },
      setFileText: (file, text) => {
        this.record(file);
        graph.setFileText(file, text);
      },
      clear: () => {
        this.record(undefined);
        graph.clear();
      },
    };
  }
}
