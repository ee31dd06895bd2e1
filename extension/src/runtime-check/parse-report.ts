/** The part of `fencelint-check --json` that the editor shows (see checker/README.md, "Reports"). */
export type Verdict = 'holds' | 'broken' | 'bad-input' | 'interrupted';

export interface TimelineStep {
  t: number;
  actor: string;
  call: string;
  result?: string;
  violation?: { invariant: string; message: string };
}

export interface ScenarioReport {
  id: string;
  title: string;
  status: string;
  reason?: string;
  timeline: TimelineStep[];
}

export interface RuntimeCheckReport {
  verdict: Verdict;
  /** Bad input: the checker's message. */
  error?: string;
  subject?: { text?: string; roles?: string[]; table?: string };
  backend?: string;
  scenarios: ScenarioReport[];
  counterExample?: { invariant: string; message: string; schedule?: string[]; timeline: TimelineStep[] };
  elapsedMs?: number;
  /** `--at` found the write but could not name the role of every parameter (with bad input). */
  rolesNeeded?: RolesNeeded;
}

/** A parameter of the write at the location: its `$n`, the expression bound to it, its role when the checker could name it. */
export interface BoundParam {
  n: number;
  text?: string;
  role?: string;
}

export interface RolesNeeded {
  location: string;
  statement?: string;
  params: BoundParam[];
}

/** Exit status of the checker: 0 holds, 1 broken, 2 bad input, 130/143 stopped by SIGINT/SIGTERM. */
const VERDICT_BY_EXIT: Record<number, Verdict> = { 0: 'holds', 1: 'broken', 2: 'bad-input', 130: 'interrupted', 143: 'interrupted' };
const VERDICTS: readonly string[] = ['holds', 'broken', 'bad-input', 'interrupted'];

/**
 * Reads the checker's output. Anything that is not a report the checker would write (a crash,
 * an older checker without --json, a kill on timeout) becomes a bad-input report carrying
 * what the checker said, so the view never shows a verdict the checker did not give.
 */
export function parseCheckReport(stdout: string, stderr: string, exitCode: number | null): RuntimeCheckReport {
  const fallback = (why: string): RuntimeCheckReport => ({
    // Stopped by a signal before it could write its report: still no verdict, but not bad input.
    verdict: exitCode === 130 || exitCode === 143 ? 'interrupted' : 'bad-input',
    error: [why, stderr.trim()].filter(Boolean).join('\n'),
    scenarios: [],
  });
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch {
    return fallback(`fencelint-check gave no JSON report (exit ${exitCode ?? 'killed'}).`);
  }
  if (typeof raw !== 'object' || raw === null) return fallback('fencelint-check gave an unexpected report.');
  const report = raw as Partial<RuntimeCheckReport>;
  if (typeof report.verdict !== 'string' || !VERDICTS.includes(report.verdict)) {
    return fallback(`fencelint-check gave an unknown verdict: ${JSON.stringify(report.verdict)}.`);
  }
  // The exit status is the checker's contract; a report that disagrees with it is not trusted.
  if (exitCode !== null && VERDICT_BY_EXIT[exitCode] !== report.verdict) {
    return fallback(`fencelint-check exited ${exitCode} but reported "${report.verdict}".`);
  }
  return {
    verdict: report.verdict,
    error: typeof report.error === 'string' ? report.error : undefined,
    subject: report.subject,
    backend: typeof report.backend === 'string' ? report.backend : undefined,
    scenarios: Array.isArray(report.scenarios) ? report.scenarios.filter(isScenario) : [],
    counterExample: report.counterExample && Array.isArray(report.counterExample.timeline) ? report.counterExample : undefined,
    elapsedMs: typeof report.elapsedMs === 'number' ? report.elapsedMs : undefined,
    rolesNeeded: report.verdict === 'bad-input' ? rolesNeededOf(report.rolesNeeded) : undefined,
  };
}

/** The checker's list of parameters, when it is well formed: `$1..$n` in order. */
function rolesNeededOf(value: unknown): RolesNeeded | undefined {
  const needed = value as Partial<RolesNeeded> | null | undefined;
  if (typeof needed !== 'object' || needed === null || typeof needed.location !== 'string' || !Array.isArray(needed.params)) return undefined;
  const params = needed.params as Partial<BoundParam>[];
  const wellFormed = params.every(
    (p, i) => typeof p === 'object' && p !== null && p.n === i + 1 && (p.text === undefined || typeof p.text === 'string') && (p.role === undefined || typeof p.role === 'string'),
  );
  if (!wellFormed || params.length === 0) return undefined;
  return {
    location: needed.location,
    ...(typeof needed.statement === 'string' ? { statement: needed.statement } : {}),
    params: params.map((p) => ({ n: p.n!, ...(p.text !== undefined ? { text: p.text } : {}), ...(p.role !== undefined ? { role: p.role } : {}) })),
  };
}

function isScenario(value: unknown): value is ScenarioReport {
  const s = value as Partial<ScenarioReport> | null;
  return typeof s === 'object' && s !== null && typeof s.title === 'string' && typeof s.status === 'string' && Array.isArray(s.timeline);
}
