import path from 'node:path';
import { Linter } from 'eslint';
import { CHECK_THEN_WRITE_RULES, type AnalysisCollector, type AnalysisSnapshot } from './file-analysis.js';

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

/**
 * Runs ESLint's `Linter` on document text. Every exception is caught here: a throwing rule or
 * parser becomes a `failed` outcome, never a crash and never a partial report.
 */
export class LintEngine {
  private readonly linters = new Map<string, Linter>();

  constructor(private readonly collector: AnalysisCollector | undefined) {}

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
    let messages: Linter.LintMessage[];
    try {
      messages = this.linterFor(filename).verify(text, config, { filename });
    } catch (error) {
      this.collector?.reset();
      return { status: 'failed', error: describeError(error) };
    }
    const collected = this.collector?.take(messages.some((m) => m.ruleId !== null && CHECK_THEN_WRITE_RULES.has(m.ruleId)));
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
