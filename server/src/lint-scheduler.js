const nextTick = () => new Promise((resolve) => setImmediate(resolve));
/**
 * Coalesces edits for push diagnostics. The connection hands over one queued message per
 * event-loop turn, so a burst of `didChange` notifications arrives over several turns: a lint
 * waits until the document's version has stayed the same for two turns, then lints the newest
 * version. At most one lint per document is queued; every edit in between is dropped, and a
 * report whose version was overtaken is discarded instead of published.
 */
export class LintScheduler {
    documents;
    lint;
    publish;
    queued = new Set();
    constructor(documents, lint, publish) {
        this.documents = documents;
        this.lint = lint;
        this.publish = publish;
    }
    schedule(uri) {
        if (this.queued.has(uri))
            return;
        this.queued.add(uri);
        void this.run(uri);
    }
    /** Resolves once the document has not changed for two event-loop turns (or is gone). */
    async settled(uri) {
        for (let round = 0; round < 100; round++) {
            const version = this.documents.get(uri)?.version;
            await nextTick();
            await nextTick();
            if (this.documents.get(uri)?.version === version)
                return;
        }
    }
    async run(uri) {
        try {
            await this.settled(uri);
        }
        finally {
            this.queued.delete(uri);
        }
        const report = await this.lint(uri);
        const document = this.documents.get(uri);
        if (!report || !document)
            return;
        if (report.version !== undefined && report.version !== document.version)
            return;
        this.publish(report);
    }
}
//# sourceMappingURL=lint-scheduler.js.map