import type { ESLint, Rule } from 'eslint';
import type { Range } from 'vscode-languageserver/node';
import type { FindCheckThenWrites, GetFileAnalysis } from './plugin-loader.js';

/**
 * What the server keeps of the core's `getFileAnalysis` for one document version: plain
 * ranges and flags, no AST, so a result can outlive the lint that produced it.
 */
export interface AcquireSnapshot {
  id: number;
  range: Range;
  library: string;
  handle?: string;
  tokens: string[];
  /** Where a real fence token can come from, when none is in scope. */
  advice?: string;
}

export interface WriteSnapshot {
  range: Range;
  sink: string;
  acquireId: number;
  fenced: boolean;
  tokenCompared: boolean;
  tokenStored: boolean;
  /** For read-then-update: the separate check that precedes the write, when the core reports one. */
  checkRange?: Range;
}

/** A write whose safety rests on an earlier, separate check (read-then-update). */
export interface CheckSnapshot {
  writeRange: Range;
  checkRange: Range;
}

export interface AnalysisSnapshot {
  acquires: AcquireSnapshot[];
  writes: WriteSnapshot[];
  checks: CheckSnapshot[];
}

interface EslintLoc {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

function isLoc(value: unknown): value is EslintLoc {
  const loc = value as EslintLoc | undefined;
  return typeof loc?.start?.line === 'number' && typeof loc?.end?.line === 'number';
}

/** ESLint locations are 1-based lines and 0-based columns; LSP ranges are 0-based both. */
export function locToRange(loc: EslintLoc): Range {
  return {
    start: { line: loc.start.line - 1, character: loc.start.column },
    end: { line: loc.end.line - 1, character: loc.end.column },
  };
}

function locOf(site: Record<string, unknown>, key = 'loc'): EslintLoc | undefined {
  const direct = site[key];
  if (isLoc(direct)) return direct;
  const node = site.node as { loc?: unknown } | undefined;
  return key === 'loc' && isLoc(node?.loc) ? node.loc : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

interface TokenTracerLike {
  tokenInScope(at: unknown, site: unknown): string | undefined;
}

/**
 * Token values in scope for an acquire: destructured locals and token properties of its handle,
 * else the token the rule's suggestion would use (the core's tracer), so hover and quick fix agree.
 */
function acquireTokens(site: Record<string, unknown>, tracer: TokenTracerLike | undefined): string[] {
  if (Array.isArray(site.tokens)) return strings(site.tokens);
  const tokens = site.destructured instanceof Map ? [...site.destructured.values()].filter((v): v is string => typeof v === 'string') : [];
  const handle = typeof site.handleKey === 'string' ? site.handleKey : undefined;
  for (const property of strings(site.tokenProperties)) tokens.push(handle ? `${handle}.${property}` : property);
  if (tokens.length === 0 && tracer && site.node) {
    const inScope = tracer.tokenInScope(site.node, site);
    if (inScope) tokens.push(inScope);
  }
  return tokens;
}

/** A write's verdict flags: on the site itself, or on its verdicts (any statement that compares/stores). */
function verdictFlag(site: Record<string, unknown>, flag: 'tokenCompared' | 'tokenStored'): boolean {
  if (typeof site[flag] === 'boolean') return site[flag] as boolean;
  const verdicts = Array.isArray(site.verdicts) ? site.verdicts : site.verdict ? [site.verdict] : [];
  return verdicts.length > 0 && verdicts.every((v: Record<string, unknown>) => v?.[flag] === true);
}

/** Copies the core's `FileAnalysis` into a snapshot; unknown or missing fields are dropped, never guessed. */
export function snapshotAnalysis(analysis: unknown): AnalysisSnapshot {
  const source = (analysis ?? {}) as { acquires?: unknown; writes?: unknown; tracer?: unknown };
  const tracer = typeof (source.tracer as TokenTracerLike | undefined)?.tokenInScope === 'function' ? (source.tracer as TokenTracerLike) : undefined;
  const acquires: AcquireSnapshot[] = [];
  for (const raw of Array.isArray(source.acquires) ? source.acquires : []) {
    const site = raw as Record<string, unknown>;
    const loc = locOf(site);
    if (!loc || typeof site.id !== 'number') continue;
    const handle = site.handleKey ?? site.handle;
    acquires.push({
      id: site.id,
      range: locToRange(loc),
      library: typeof site.library === 'string' ? site.library : 'lock',
      handle: typeof handle === 'string' ? handle : undefined,
      tokens: acquireTokens(site, tracer),
      advice: typeof site.advice === 'string' ? site.advice : undefined,
    });
  }
  const writes: WriteSnapshot[] = [];
  for (const raw of Array.isArray(source.writes) ? source.writes : []) {
    const site = raw as Record<string, unknown>;
    const loc = locOf(site);
    const acquireId = typeof site.acquireId === 'number' ? site.acquireId : (site.acquire as { id?: unknown } | undefined)?.id;
    if (!loc || typeof acquireId !== 'number') continue;
    const check = locOf(site, 'checkLoc') ?? (isLoc((site.check as { loc?: unknown } | undefined)?.loc) ? (site.check as { loc: EslintLoc }).loc : undefined)
      ?? (isLoc((site.check as { node?: { loc?: unknown } } | undefined)?.node?.loc) ? (site.check as { node: { loc: EslintLoc } }).node.loc : undefined);
    writes.push({
      range: locToRange(loc),
      sink: typeof site.sink === 'string' ? site.sink : 'write',
      acquireId,
      fenced: site.fenced === true,
      tokenCompared: verdictFlag(site, 'tokenCompared'),
      tokenStored: verdictFlag(site, 'tokenStored'),
      checkRange: check ? locToRange(check) : undefined,
    });
  }
  return { acquires, writes, checks: [] };
}

/** Copies the core's `findCheckThenWrites` findings: where each guarded write was checked. */
export function snapshotChecks(findings: unknown): CheckSnapshot[] {
  const checks: CheckSnapshot[] = [];
  for (const raw of Array.isArray(findings) ? findings : []) {
    const finding = raw as { check?: { loc?: unknown }; write?: { node?: { loc?: unknown } } };
    const checkLoc = finding.check?.loc;
    const writeLoc = finding.write?.node?.loc;
    if (isLoc(checkLoc) && isLoc(writeLoc)) checks.push({ writeRange: locToRange(writeLoc), checkRange: locToRange(checkLoc) });
  }
  return checks;
}

/**
 * An internal rule that runs in the same `Linter` pass as the plugin's rules and hands the
 * core's per-file analysis (cached per SourceCode, so computed once) to the server. The server
 * never parses diagnostic messages to learn where an acquire is.
 */
export class AnalysisCollector {
  private latest: AnalysisSnapshot | undefined;
  private failure: string | undefined;
  /** Finds the read-then-update checks of the last lint; run only when a finding needs them. */
  private pendingChecks: (() => CheckSnapshot[]) | undefined;
  readonly plugin: ESLint.Plugin;

  constructor(getFileAnalysis: GetFileAnalysis, findCheckThenWrites?: FindCheckThenWrites) {
    const collector = this;
    const rule: Rule.RuleModule = {
      meta: { type: 'problem', schema: [], docs: { description: 'Hands the file analysis to the language server.' } },
      create(context) {
        return {
          'Program:exit'() {
            try {
              const analysis = getFileAnalysis(context);
              collector.latest = snapshotAnalysis(analysis);
              const { sourceCode } = context;
              if (findCheckThenWrites) collector.pendingChecks = () => snapshotChecks(findCheckThenWrites(analysis, sourceCode));
            } catch (error) {
              // The analysis only decorates diagnostics; its failure must not drop them.
              collector.failure = error instanceof Error ? error.message : String(error);
            }
          },
        };
      },
    };
    this.plugin = { meta: { name: 'fencelint-language-server-internal' }, rules: { 'collect-analysis': rule } };
  }

  /** Call before each lint; `take` afterwards returns what this lint collected. */
  reset(): void {
    this.latest = undefined;
    this.failure = undefined;
    this.pendingChecks = undefined;
  }

  /**
   * What this lint collected. `withChecks`: also find the read-then-update checks (a second
   * walk over the analysis, so only when a finding of that kind is there to point at them).
   */
  take(withChecks: boolean): { analysis: AnalysisSnapshot | undefined; failure: string | undefined } {
    if (withChecks && this.latest && this.pendingChecks) {
      try {
        this.latest.checks = this.pendingChecks();
      } catch (error) {
        this.failure = error instanceof Error ? error.message : String(error);
      }
    }
    const result = { analysis: this.latest, failure: this.failure };
    this.reset();
    return result;
  }
}

/** Rules whose findings rest on an earlier, separate check: their diagnostics point at it. */
export const CHECK_THEN_WRITE_RULES: ReadonlySet<string> = new Set(['fencelint/no-check-then-write']);

export const COLLECTOR_NAMESPACE = 'fencelint-ls';
export const COLLECTOR_RULE = `${COLLECTOR_NAMESPACE}/collect-analysis`;
