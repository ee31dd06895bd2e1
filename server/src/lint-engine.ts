import path from 'node:path';
import { Linter } from 'eslint';
// @ts-ignore -- the plugin's .d.ts exists only after `npm run build -w rules`.
import { IncrementalLinter } from 'eslint-plugin-fencelint/incremental';
import { CHECK_THEN_WRITE_RULES, COLLECTOR_NAMESPACE, type AnalysisCollector, type AnalysisSnapshot } from './file-analysis.js';
import type { ProjectChanges } from './project-changes.js';

/** Files above this size are not linted: a lint would block every other request. */
export const MAX_LINT_BYTES = 2 * 1024 * 1024;

export type LintOutcome =
  | { status: 'linted'; messages: Linter.LintMessage[]; analysis: AnalysisSnapshot | undefined; analysisFailure?: string }
  /** Not linted on purpose (size, binary content); the reason is one log line. */
  | { status: 'skipped'; reason: string }
  /** The parser rejected the text (a syntax error while typing): no findings. */
  | { status: 'unparsable'; message: string }
  /** A rule or the parser threw. */
  | { status: 'failed'; error: string };

/** Why a text is not worth linting, or undefined when it is. */
export function skipReason(text: string): string | undefined {
  if (text.length > MAX_LINT_BYTES / 4 && Buffer.byteLength(text, 'utf8') > MAX_LINT_BYTES) {
    return `larger than ${MAX_LINT_BYTES / 1024 / 1024} MB`;
  }
  // Source text has no NUL characters; binary content read as text has many.
  if (text.slice(0, 8192).includes('\u0000')) return 'binary content';
  return undefined;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}

/** A text more than this share of whose groups are not stored is linted whole first (see warmLater). */
const COLD_SHARE = 0.5;

type Collected = { analysis: AnalysisSnapshot | undefined; failure: string | undefined };

/** Whether every rule of the config is fencelint's (or the server's own collector): then slices may be reused. */
function onlyFencelintRules(config: Linter.Config[]): boolean {
  return config.every((entry) => Object.keys(entry.rules ?? {}).every((id) => id.startsWith('fencelint/') || id.startsWith(`${COLLECTOR_NAMESPACE}/`)));
}

/** The snapshots of a lint's slices as one: acquire ids renumbered per slice, a shared acquire or write once. */
function mergeSnapshots(collected: Array<Collected | undefined>): Collected {
  let analysis: AnalysisSnapshot | undefined;
  let failure: string | undefined;
  const acquireIdByRange = new Map<string, number>();
  const seen = new Set<string>();
  for (const part of collected) {
    failure ??= part?.failure;
    const snapshot = part?.analysis;
    if (!snapshot) continue;
    analysis ??= { acquires: [], writes: [], checks: [] };
    const ids = new Map<number, number>();
    for (const acquire of snapshot.acquires) {
      const key = JSON.stringify(acquire.range);
      const known = acquireIdByRange.get(key);
      if (known !== undefined) {
        ids.set(acquire.id, known);
        continue;
      }
      const id = analysis.acquires.length;
      acquireIdByRange.set(key, id);
      ids.set(acquire.id, id);
      analysis.acquires.push({ ...acquire, id });
    }
    for (const write of snapshot.writes) {
      const key = `w${JSON.stringify(write.range)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      analysis.writes.push({ ...write, acquireId: ids.get(write.acquireId) ?? write.acquireId });
    }
    for (const check of snapshot.checks) {
      const key = `c${JSON.stringify(check)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      analysis.checks.push(check);
    }
  }
  return { analysis, failure };
}

/**
 * Runs ESLint's `Linter` on document text. Every exception is caught here: a throwing rule or
 * parser becomes a `failed` outcome, never a crash and never a partial report. With only
 * fencelint's rules configured, an edited text is linted by slices (`eslint-plugin-fencelint/incremental`):
 * the groups of statements an edit did not touch keep their messages.
 */
export class LintEngine {
  private readonly linters = new Map<string, Linter>();
  private readonly incremental = new Map<Linter, IncrementalLinter<Collected>>();
  private readonly configIds = new WeakMap<Linter.Config[], number>();
  private nextConfigId = 0;
  /** Slices reused and linted by the last lint (the benchmark reads it through the status). */
  lastSlices: { linted: number; reused: number } | undefined;

  constructor(
    private readonly collector: AnalysisCollector | undefined,
    private readonly changes?: ProjectChanges,
    private readonly reuseSlices = true,
  ) {}

  private incrementalFor(linter: Linter): IncrementalLinter<Collected> {
    let incremental = this.incremental.get(linter);
    if (!incremental) {
      incremental = new IncrementalLinter<Collected>(linter, {
        // A file just opened is linted whole (one lint instead of one per group) and its slices warmed afterwards.
        coldShare: COLD_SHARE,
        beforeLint: () => this.collector?.reset(),
        collect: (messages: Linter.LintMessage[]) => this.collector?.take(messages.some((m) => m.ruleId !== null && CHECK_THEN_WRITE_RULES.has(m.ruleId))),
      });
      this.incremental.set(linter, incremental);
    }
    return incremental!;
  }

  /** Per file, bumped by every lint of it: a warming started for an older text stops. */
  private readonly warmings = new Map<string, number>();

  /**
   * Fills the slices of a text that was linted whole, one group per event-loop turn, so that
   * requests are answered in between and the next edit reuses them. Stops when the file is
   * linted again (its text may have changed) or when nothing is left to warm.
   */
  private warmLater(incremental: IncrementalLinter<Collected>, text: string, config: Linter.Config[], filename: string, contextKey: string): void {
    const generation = this.warmings.get(filename) ?? 0;
    const step = () => {
      if (this.warmings.get(filename) !== generation) return;
      let remaining = 0;
      try {
        remaining = incremental.warm(text, config, filename, contextKey, 1);
      } catch {
        // Warming only saves time later; the next edit lints what is missing.
      }
      if (remaining > 0) setImmediate(step);
      else this.warmings.delete(filename);
    };
    setImmediate(step);
  }

  private configId(config: Linter.Config[]): number {
    let id = this.configIds.get(config);
    if (id === undefined) {
      id = this.nextConfigId++;
      this.configIds.set(config, id);
    }
    return id;
  }

  /** One Linter per filesystem root, so config `files` patterns match every absolute path. */
  private linterFor(filename: string): Linter {
    const root = path.parse(filename).root || '/';
    let linter = this.linters.get(root);
    if (!linter) {
      linter = new Linter({ configType: 'flat', cwd: root });
      this.linters.set(root, linter);
    }
    return linter;
  }

  lint(text: string, filename: string, config: Linter.Config[]): LintOutcome {
    const reason = skipReason(text);
    if (reason) return { status: 'skipped', reason };
    this.collector?.reset();
    this.warmings.set(filename, (this.warmings.get(filename) ?? 0) + 1);
    let messages: Linter.LintMessage[];
    let collected: Collected | undefined;
    try {
      const linter = this.linterFor(filename);
      if (this.reuseSlices && onlyFencelintRules(config)) {
        const contextKey = `${this.configId(config)}\0${this.changes?.stampFor(filename) ?? 0}`;
        const incremental = this.incrementalFor(linter);
        const result = incremental.verify(text, config, filename, contextKey);
        messages = result.messages;
        collected = mergeSnapshots(result.extras);
        this.lastSlices = { linted: result.linted, reused: result.reused };
        if (result.mode === 'cold') this.warmLater(incremental, text, config, filename, contextKey);
      } else {
        messages = linter.verify(text, config, { filename });
        collected = this.collector?.take(messages.some((m) => m.ruleId !== null && CHECK_THEN_WRITE_RULES.has(m.ruleId)));
        this.lastSlices = undefined;
      }
    } catch (error) {
      this.collector?.reset();
      return { status: 'failed', error: describeError(error) };
    }
    const fatal = messages.find((m) => m.fatal);
    if (fatal) return { status: 'unparsable', message: `${fatal.message} (${fatal.line}:${fatal.column})` };
    return {
      status: 'linted',
      messages: messages.filter((m) => m.ruleId !== null && !m.ruleId.startsWith('fencelint-ls/')),
      analysis: collected?.analysis,
      analysisFailure: collected?.failure,
    };
  }

  /**
   * The text with every autofix applied (ESLint's own multi-pass fixer). With
   * `includeSuggestions`, afterwards the first suggestion of each remaining problem is applied
   * too, a pass at a time, never two overlapping edits in one pass.
   */
  fixAll(text: string, filename: string, config: Linter.Config[], includeSuggestions: boolean): string | undefined {
    if (skipReason(text)) return undefined;
    try {
      const linter = this.linterFor(filename);
      let output = linter.verifyAndFix(text, config, { filename, fix: true }).output;
      if (!includeSuggestions) return output;
      for (let pass = 0; pass < 10; pass++) {
        const messages = linter.verify(output, config, { filename });
        const edits = messages
          .filter((m) => !m.fatal && m.suggestions && m.suggestions.length > 0)
          .map((m) => m.suggestions![0].fix)
          .sort((a, b) => a.range[0] - b.range[0]);
        const chosen: Linter.LintMessage['fix'][] = [];
        let lastEnd = -1;
        for (const edit of edits) {
          if (edit.range[0] < lastEnd) continue;
          chosen.push(edit);
          lastEnd = edit.range[1];
        }
        if (chosen.length === 0) break;
        for (const edit of chosen.reverse()) {
          output = output.slice(0, edit!.range[0]) + edit!.text + output.slice(edit!.range[1]);
        }
      }
      return output;
    } catch {
      return undefined;
    }
  }
}
