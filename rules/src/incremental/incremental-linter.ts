/**
 * Re-linting edited text: ESLint's `Linter` runs on each group's slice (`slices.ts`), and a
 * group whose slice is unchanged (the same statements at the same lines and columns, the same
 * shared statements, the same caller key) reuses the messages it gave last time. An edit inside
 * one function lints that function's group only. The answer equals a lint of the whole text:
 * a text that cannot be split, or a slice the parser rejects, is linted whole.
 *
 * Only for configurations whose rules are fencelint's: a rule of another plugin may read the
 * whole file. The cache is by content; it holds no state a fresh instance would not rebuild.
 */
import type { Linter } from 'eslint';
import { inGroup, offsetOf, planSlices, positionOf, sliceText, type SliceGroup, type SlicePlan } from './slices.js';

type Message = Linter.LintMessage;

interface StoredEdit {
  from: { line: number; column: number };
  to: { line: number; column: number };
  text: string;
}

interface StoredMessage {
  message: Omit<Message, 'fix' | 'suggestions'>;
  fix?: StoredEdit;
  suggestions?: Array<Omit<Linter.LintSuggestion, 'fix'> & { fix: StoredEdit }>;
}

interface StoredSlice<T> {
  messages: StoredMessage[];
  extra: T | undefined;
}

export interface IncrementalOptions<T> {
  /** Called before each `Linter.verify`, e.g. to reset a collecting rule. */
  beforeLint?: () => void;
  /** What to keep with a slice's messages besides them (e.g. an analysis snapshot). */
  collect?: (messages: Message[]) => T | undefined;
  /** Slices kept; the oldest are dropped first. */
  maxSlices?: number;
  /**
   * When more than this share of a text's groups have no stored slice (a file just opened),
   * `verify` lints the text whole, which is several times cheaper than linting every slice,
   * and `warm` fills the slices afterwards. Default 1: never.
   */
  coldShare?: number;
}

export interface IncrementalResult<T> {
  messages: Message[];
  /** One per lint run or reused slice, in group order. */
  extras: Array<T | undefined>;
  /** `whole`: linted as one text; `slices`: by groups; `cold`: linted whole, its slices still to be warmed. */
  mode: 'whole' | 'slices' | 'cold';
  linted: number;
  reused: number;
}

function messageKey(m: Message | Omit<Message, 'fix' | 'suggestions'>): string {
  return `${m.ruleId}\0${m.line}:${m.column}:${m.endLine}:${m.endColumn}\0${m.severity}\0${m.message}`;
}

export class IncrementalLinter<T = undefined> {
  private readonly slices = new Map<string, StoredSlice<T>>();
  private readonly maxSlices: number;

  constructor(
    private readonly linter: Linter,
    private readonly options: IncrementalOptions<T> = {},
  ) {
    this.maxSlices = options.maxSlices ?? 4000;
  }

  /** Forgets every slice (a module the file imports changed, the configuration changed). */
  clear(): void {
    this.slices.clear();
  }

  get size(): number {
    return this.slices.size;
  }

  /**
   * Messages for `text`, as `linter.verify(text, config, { filename })` gives them (sorted by
   * position). `contextKey` names everything besides the text the answer depends on: the
   * configuration and the state of the modules the file imports.
   */
  verify(text: string, config: Linter.Config[], filename: string, contextKey: string): IncrementalResult<T> {
    const plan = this.planFor(text, filename, contextKey);
    if (!plan) return this.whole(text, config, filename);
    const coldShare = this.options.coldShare ?? 1;
    if (coldShare < 1) {
      const missing = plan.groups.filter((g) => !this.slices.has(g.key)).length;
      if (missing > 1 && missing > coldShare * plan.groups.length) return { ...this.whole(text, config, filename), mode: 'cold' };
    }
    const perGroup: Array<{ group: SliceGroup; stored: StoredSlice<T> }> = [];
    let linted = 0;
    let reused = 0;
    for (const group of plan.groups) {
      let stored = this.slices.get(group.key);
      if (stored) {
        reused++;
        this.slices.delete(group.key);
      } else {
        const messages = this.run(sliceText(text, plan, group), config, filename);
        // The slice does not parse where the whole text does (or neither does): lint it whole.
        if (messages.some((m) => m.fatal)) return this.whole(text, config, filename);
        stored = { messages: messages.map((m) => store(m, plan)), extra: this.options.collect?.(messages) };
        linted++;
      }
      this.slices.set(group.key, stored);
      perGroup.push({ group, stored });
    }
    while (this.slices.size > this.maxSlices) this.slices.delete(this.slices.keys().next().value!);
    return { messages: merge(perGroup, plan), extras: perGroup.map((g) => g.stored.extra), mode: 'slices', linted, reused };
  }

  /**
   * Lints and stores up to `limit` of the text's groups that have no stored slice, so that the
   * next edit reuses them; returns how many are still missing (0: nothing left to warm). A
   * slice the parser rejects stops the warming (that text is linted whole anyway).
   */
  warm(text: string, config: Linter.Config[], filename: string, contextKey: string, limit = 1): number {
    const plan = this.planFor(text, filename, contextKey);
    if (!plan) return 0;
    const missing = plan.groups.filter((g) => !this.slices.has(g.key));
    for (const group of missing.slice(0, limit)) {
      const messages = this.run(sliceText(text, plan, group), config, filename);
      if (messages.some((m) => m.fatal)) return 0;
      this.slices.set(group.key, { messages: messages.map((m) => store(m, plan)), extra: this.options.collect?.(messages) });
    }
    while (this.slices.size > this.maxSlices) this.slices.delete(this.slices.keys().next().value!);
    return Math.max(0, missing.length - limit);
  }

  /** The plan of the last text asked about is kept: warming asks about the same text many times. */
  private lastPlan: { text: string; filename: string; contextKey: string; plan: SlicePlan | undefined } | undefined;

  private planFor(text: string, filename: string, contextKey: string): SlicePlan | undefined {
    const last = this.lastPlan;
    if (last && last.text === text && last.filename === filename && last.contextKey === contextKey) return last.plan;
    const plan = planSlices(text, filename, contextKey);
    this.lastPlan = { text, filename, contextKey, plan };
    return plan;
  }

  private run(text: string, config: Linter.Config[], filename: string): Message[] {
    this.options.beforeLint?.();
    return this.linter.verify(text, config, { filename });
  }

  private whole(text: string, config: Linter.Config[], filename: string): IncrementalResult<T> {
    const messages = this.run(text, config, filename);
    return { messages, extras: [this.options.collect?.(messages)], mode: 'whole', linted: 1, reused: 0 };
  }
}

function storeEdit(fix: { range: [number, number]; text: string }, plan: SlicePlan): StoredEdit {
  return { from: positionOf(fix.range[0], plan.lineStarts), to: positionOf(fix.range[1], plan.lineStarts), text: fix.text };
}

function restoreEdit(edit: StoredEdit, lineStarts: number[]): { range: [number, number]; text: string } {
  return { range: [offsetOf(edit.from.line, edit.from.column, lineStarts), offsetOf(edit.to.line, edit.to.column, lineStarts)], text: edit.text };
}

/** Fix ranges as lines and columns: a group is reused where its lines and columns are unchanged, its offsets need not be. */
function store(m: Message, plan: SlicePlan): StoredMessage {
  const { fix, suggestions, ...message } = m;
  return {
    message,
    fix: fix && storeEdit(fix, plan),
    suggestions: suggestions?.map((s) => ({ ...s, fix: storeEdit(s.fix, plan) })),
  };
}

function restore(stored: StoredMessage, lineStarts: number[]): Message {
  const m: Message = { ...stored.message } as Message;
  if (stored.fix) m.fix = restoreEdit(stored.fix, lineStarts);
  if (stored.suggestions) {
    m.suggestions = stored.suggestions.map((s) => ({ ...s, fix: restoreEdit(s.fix, lineStarts) }));
  }
  return m;
}

/**
 * The groups' messages as one lint's: a finding on a shared statement is given by every slice
 * and kept once; a message of no rule (an unused disable directive) only if every slice gives
 * it, since a directive is used if any group's finding needs it.
 */
function merge<T>(perGroup: Array<{ group: SliceGroup; stored: StoredSlice<T> }>, plan: SlicePlan): Message[] {
  const out: Message[] = [];
  const seenShared = new Set<string>();
  const noRule = new Map<string, { message: StoredMessage; count: number }>();
  for (const { group, stored } of perGroup) {
    const inThisSlice = new Set<string>();
    for (const entry of stored.messages) {
      const m = entry.message;
      const key = messageKey(m);
      if (m.ruleId === null) {
        if (inThisSlice.has(key)) continue;
        inThisSlice.add(key);
        const seen = noRule.get(key);
        if (seen) seen.count++;
        else noRule.set(key, { message: entry, count: 1 });
        continue;
      }
      const offset = offsetOf(m.line, m.column - 1, plan.lineStarts);
      if (group.context.some((c) => c.range[0] <= offset && offset < c.range[1])) continue;
      if (!inGroup(group, offset)) {
        if (seenShared.has(key)) continue;
        seenShared.add(key);
      }
      out.push(restore(entry, plan.lineStarts));
    }
  }
  for (const { message, count } of noRule.values()) if (count === perGroup.length) out.push(restore(message, plan.lineStarts));
  // ESLint's own order: by line, then column.
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}
