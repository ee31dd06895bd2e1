import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import type { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Coalesces edits for push diagnostics. The connection hands over one queued message per
 * event-loop turn, so a burst of `didChange` notifications arrives over several turns: a lint
 * waits until the document's version has stayed the same for two turns, then lints the newest
 * version. At most one lint per document is queued; every edit in between is dropped, and a
 * report whose version was overtaken is discarded instead of published.
 */
export class LintScheduler {
  private readonly queued = new Set<string>();
  /**
   * The report last published per document. `didOpen` also fires a content change, so one
   * open schedules twice; the second lint returns the cached result, and publishing it again
   * would only repeat the same diagnostics for the same version.
   */
  private readonly published = new Map<string, PublishDiagnosticsParams>();

  constructor(
    private readonly documents: TextDocuments<TextDocument>,
    private readonly lint: (uri: string) => Promise<PublishDiagnosticsParams | undefined>,
    private readonly publish: (report: PublishDiagnosticsParams) => void,
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

  private async run(uri: string): Promise<void> {
    try {
      await this.settled(uri);
    } finally {
      this.queued.delete(uri);
    }
    const report = await this.lint(uri);
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
  }
}
