import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileChangeType, type FileEvent } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { LINTED_EXTENSIONS } from './lint-config.js';
import type { ProjectGraph } from './plugin-loader.js';

/** Globs the server asks the client to watch: source modules, the files that steer import resolution, ESLint configs. */
export const WATCHED_GLOBS = [
  `**/*.{${LINTED_EXTENSIONS.map((e) => e.slice(1)).join(',')}}`,
  '**/{tsconfig,jsconfig}*.json',
  '**/package.json',
  '**/eslint.config.{js,mjs,cjs,ts,mts,cts}',
];

/** Quiet time after the last keystroke in a module before the files that depend on it are linted again. */
export const TYPING_SETTLE_MS = 200;

export type WatchedFileKind = 'module' | 'project-config' | 'other';

/** What a watched file is to the server: a source module, a file that steers resolution, or anything else (ESLint configs among them). */
export function watchedFileKind(file: string): WatchedFileKind {
  if (/[\\/]node_modules[\\/]/.test(file)) return /[\\/]package\.json$/.test(file) ? 'project-config' : 'other';
  const name = path.basename(file);
  if (/^(?:tsconfig|jsconfig).*\.json$/.test(name) || name === 'package.json') return 'project-config';
  if (/^eslint\.config\.[cm]?[jt]s$/.test(name)) return 'other';
  if (/\.d\.[cm]?ts$/i.test(name)) return 'other';
  return (LINTED_EXTENSIONS as readonly string[]).includes(path.extname(name).toLowerCase()) ? 'module' : 'other';
}

export interface ProjectSyncHooks {
  /** The open documents. */
  documents(): TextDocument[];
  /** The file name a document is linted under (undefined: not linted, or not a file). */
  filenameOf(document: TextDocument): string | undefined;
  /** Drops the cached result of a document: its text is the same, what it depends on is not. */
  forget(uri: string): void;
  /** Shows the client fresh findings for these documents (a refresh request to pull clients, a new push otherwise). */
  refresh(uris: string[]): void;
  /** Whether a document is linted while typing (`fencelint.run: onType`) rather than on save only. */
  lintsOnType(uri: string): Promise<boolean>;
}

function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/**
 * Keeps the core's module graph in step with the editor, and the findings of open files in step
 * with the modules they import. The graph reads an open document's unsaved text rather than the
 * disk; a module that changes (an edit, a save, a change on disk) is invalidated, and every open
 * file whose last analysis used its summary is linted again. Edits refresh dependents once the
 * typing stops; saves and changes on disk at once.
 */
export class ProjectSync {
  /** Real path per document URI (imports resolve to real paths). */
  private readonly realPaths = new Map<string, string>();
  /** Per module (real path): the hash of the text the dependents were last linted against. */
  private readonly seenText = new Map<string, string>();
  /** Modules edited since their dependents were last refreshed. */
  private readonly pending = new Set<string>();
  /** Documents linted on save only whose modules changed unsaved: refreshed at the next save or change on disk. */
  private readonly awaitingSave = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly graph: ProjectGraph,
    private readonly hooks: ProjectSyncHooks,
    private readonly settleMs = TYPING_SETTLE_MS,
  ) {}

  private realPathOf(uri: string, filename?: string): string | undefined {
    const known = this.realPaths.get(uri);
    if (known) return known;
    if (!filename) {
      if (!uri.startsWith('file:')) return undefined;
      filename = fileURLToPath(uri);
    }
    let real = filename;
    try {
      real = realpathSync.native(filename);
    } catch {
      // Not on disk yet (a new, unsaved file): its own path is the best name.
    }
    this.realPaths.set(uri, real);
    return real;
  }

  private moduleOf(document: TextDocument): string | undefined {
    const filename = this.hooks.filenameOf(document);
    return filename && watchedFileKind(filename) === 'module' ? this.realPathOf(document.uri, filename) : undefined;
  }

  /** An opened document: its text is what the graph reads for it from now on. */
  opened(document: TextDocument): void {
    this.changed(document);
  }

  /** An edited document: the graph reads the new text; its dependents are linted again once typing stops. */
  changed(document: TextDocument): void {
    const file = this.moduleOf(document);
    if (!file) return;
    const text = document.getText();
    this.graph.setFileText(file, text);
    if (!this.seenText.has(file)) {
      // First sight: the dependents were linted against the disk.
      this.seenText.set(file, this.diskHash(file) ?? '');
    }
    this.pending.add(file);
    this.schedule();
  }

  /** A saved document: its dependents see the saved text now. */
  saved(document: TextDocument): void {
    const file = this.moduleOf(document);
    if (!file) return;
    this.graph.setFileText(file, document.getText());
    this.pending.add(file);
    void this.flush(true);
  }

  /** A closed document: the graph reads the disk again (the same text, unless it was closed unsaved). */
  closed(document: TextDocument): void {
    const file = this.moduleOf(document);
    this.realPaths.delete(document.uri);
    this.awaitingSave.delete(document.uri);
    if (!file) return;
    this.graph.setFileText(file, undefined);
    this.pending.add(file);
    void this.flush(true);
  }

  /**
   * `workspace/didChangeWatchedFiles`. Source modules and resolution files are handled here;
   * returns whether any other watched file (an ESLint config) changed, for the caller to handle.
   */
  filesChanged(changes: FileEvent[]): { otherChanged: boolean } {
    const open = new Set(this.hooks.documents().map((d) => this.moduleOf(d)).filter((f): f is string => !!f));
    let otherChanged = false;
    let everything = false;
    for (const change of changes) {
      if (!change.uri.startsWith('file:')) continue;
      const file = fileURLToPath(change.uri);
      const kind = watchedFileKind(file);
      if (kind === 'other') {
        otherChanged = true;
        continue;
      }
      if (kind === 'project-config') {
        // A tsconfig's paths or a workspace package can send any import elsewhere.
        this.graph.clear();
        everything = true;
        continue;
      }
      let real = file;
      try {
        real = realpathSync.native(file);
      } catch {
        // Deleted: the path it had is the one the graph knows.
      }
      // An open document's text is the editor's, not the disk's: its own edits refresh its dependents.
      if (open.has(real)) continue;
      this.graph.invalidate(real);
      // A module that appears or disappears can change where other imports resolve.
      if (change.type !== FileChangeType.Changed) everything = true;
      else this.pending.add(real);
    }
    if (everything) this.refreshAll();
    else void this.flush(true);
    return { otherChanged };
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush(false);
    }, this.settleMs);
    this.timer.unref?.();
  }

  private diskHash(file: string): string | undefined {
    try {
      return hashText(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** The hash of what the graph reads for `file` now: the open document's text, else the disk. */
  private currentHash(file: string): string {
    const document = this.hooks.documents().find((d) => this.moduleOf(d) === file);
    return (document ? hashText(document.getText()) : this.diskHash(file)) ?? '';
  }

  /**
   * Lints again the open documents that depend on a changed module. `saved`: the change is a
   * save or on disk, so documents linted on save only are refreshed too.
   */
  private async flush(saved: boolean): Promise<void> {
    if (saved && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const changed: string[] = [];
    for (const file of this.pending) {
      const hash = this.currentHash(file);
      if (this.seenText.get(file) === hash) continue;
      this.seenText.set(file, hash);
      changed.push(file);
    }
    this.pending.clear();
    const deferred = saved ? [...this.awaitingSave] : [];
    if (saved) this.awaitingSave.clear();
    if (changed.length === 0 && deferred.length === 0) return;
    const dependents: string[] = [];
    for (const document of this.hooks.documents()) {
      const filename = this.hooks.filenameOf(document);
      if (!filename) continue;
      const own = this.realPathOf(document.uri, filename);
      const uses = this.graph.dependenciesOf(filename);
      if (!deferred.includes(document.uri) && !changed.some((file) => file !== own && uses.includes(file))) continue;
      if (!saved && !(await this.hooks.lintsOnType(document.uri))) {
        this.awaitingSave.add(document.uri);
        continue;
      }
      this.hooks.forget(document.uri);
      dependents.push(document.uri);
    }
    if (dependents.length > 0) this.hooks.refresh(dependents);
  }

  /** Every open document is linted again (resolution may have changed anywhere). */
  private refreshAll(): void {
    this.pending.clear();
    this.awaitingSave.clear();
    const uris = this.hooks.documents().map((d) => d.uri);
    for (const uri of uris) this.hooks.forget(uri);
    if (uris.length > 0) this.hooks.refresh(uris);
  }

  /** Stops the typing timer (shutdown). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
