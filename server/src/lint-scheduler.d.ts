import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import type { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
/**
 * Coalesces edits for push diagnostics. The connection hands over one queued message per
 * event-loop turn, so a burst of `didChange` notifications arrives over several turns: a lint
 * waits until the document's version has stayed the same for two turns, then lints the newest
 * version. At most one lint per document is queued; every edit in between is dropped, and a
 * report whose version was overtaken is discarded instead of published.
 */
export declare class LintScheduler {
    private readonly documents;
    private readonly lint;
    private readonly publish;
    private readonly queued;
    constructor(documents: TextDocuments<TextDocument>, lint: (uri: string) => Promise<PublishDiagnosticsParams | undefined>, publish: (report: PublishDiagnosticsParams) => void);
    schedule(uri: string): void;
    /** Resolves once the document has not changed for two event-loop turns (or is gone). */
    settled(uri: string): Promise<void>;
    private run;
}
