/** The part of `fencelint-check --json` that the editor shows (see checker/README.md, "Reports"). */
export type Verdict = 'holds' | 'broken' | 'bad-input';

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
}

/** Exit status of the checker: 0 holds, 1 broken, 2 bad input. */
const VERDICT_BY_EXIT: Record<number, Verdict> = { 0: 'holds', 1: 'broken', 2: 'bad-input' };

/**
 * Reads the checker's output. Anything that is not a report the checker would write (a crash,
 * an older checker without --json, a kill on timeout) becomes a bad-input report carrying
 * what the checker said, so the view never shows a verdict the checker did not give.
 */
export function parseCheckReport(stdout: string, stderr: string, exitCode: number | null): RuntimeCheckReport {
  const fallback = (why: string): RuntimeCheckReport => ({
    verdict: 'bad-input',
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
  if (report.verdict !== 'holds' && report.verdict !== 'broken' && report.verdict !== 'bad-input') {
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
  };
}

function isScenario(value: unknown): value is ScenarioReport {
  const s = value as Partial<ScenarioReport> | null;
  return typeof s === 'object' && s !== null && typeof s.title === 'string' && typeof s.status === 'string' && Array.isArray(s.timeline);
}
