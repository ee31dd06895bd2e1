import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import type { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

/** Short enough to feel immediate while typing, long enough to join the writes of one burst. */
export const PUSH_QUIET_MS = 20;

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Coalesces edits for push diagnostics. The connection hands over one queued message per
 * event-loop turn, so a burst of `didChange` notifications arrives over several turns: a lint
 * waits until the document's version has stayed the same for two turns, then lints the newest
 * version. At most one lint per document is queued; every edit in between is dropped, and a
 * report whose version was overtaken, by the time the lint ends or by an edit still queued
 * behind it, is discarded instead of published.
 */
export class LintScheduler {
  private readonly queued = new Set<string>();
  /**
   * The report last published per document. `didOpen` also fires a content change, so one
   * open schedules twice; the second lint returns the cached result, and publishing it again
   * would only repeat the same diagnostics for the same version.
   */
  private readonly published = new Map<string, PublishDiagnosticsParams>();
  private readonly lastChange = new Map<string, number>();

  constructor(
    private readonly documents: TextDocuments<TextDocument>,
    private readonly lint: (uri: string) => Promise<PublishDiagnosticsParams | undefined>,
    private readonly publish: (report: PublishDiagnosticsParams) => void,
    /** Push reports wait this long after the last edit (pull requests do not). */
    private readonly quietMs = PUSH_QUIET_MS,
  ) {}

  schedule(uri: string): void {
    if (this.queued.has(uri)) return;
    this.queued.add(uri);
    void this.run(uri);
  }

  /** Resolves once the document has not changed for two event-loop turns (or is gone). */
  async settled(uri: string): Promise<void> {
    for (let round = 0; round < 100; round++) {
      const version = this.documents.get(uri)?.version;
      await nextTick();
      await nextTick();
      if (this.documents.get(uri)?.version === version) return;
    }
  }

  /** Whether `version` is still the document's version two event-loop turns from now. */
  private async stillCurrent(uri: string, version: number | undefined): Promise<boolean> {
    if (version === undefined) return true;
    await nextTick();
    await nextTick();
    return this.documents.get(uri)?.version === version;
  }

  /** A change to the document: the push lint waits for a quiet moment after it. */
  changed(uri: string): void {
    this.lastChange.set(uri, performance.now());
  }

  /**
   * Waits until no edit has arrived for `quietMs`: a client that sends a burst over several
   * writes (gaps of a few milliseconds between them) gets one report, for its final version.
   */
  private async quiet(uri: string): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.settled(uri);
      const since = performance.now() - (this.lastChange.get(uri) ?? 0);
      if (since >= this.quietMs) return;
      await new Promise<void>((resolve) => setTimeout(resolve, this.quietMs - since));
    }
  }

  private async run(uri: string): Promise<void> {
    try {
      await this.quiet(uri);
    } finally {
      this.queued.delete(uri);
    }
    const report = await this.lint(uri);
    // Edits that arrived while the lint ran are still queued on the connection: let them land
    // before deciding, so a burst publishes its final version only (each edit scheduled a run).
    if (report && !(await this.stillCurrent(uri, report.version))) return;
    const document = this.documents.get(uri);
    if (!report || !document) return;
    if (report.version !== undefined && report.version !== document.version) return;
    const last = this.published.get(uri);
    if (last && last.version === report.version && last.diagnostics === report.diagnostics) return;
    this.published.set(uri, report);
    this.publish(report);
  }

  /** The document closed: its next open publishes afresh. */
  forget(uri: string): void {
    this.published.delete(uri);
    this.lastChange.delete(uri);
  }
}
