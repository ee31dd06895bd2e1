import type { CounterExample, ExploreResult } from './explore.js';
import type { ScenarioResult } from './scenarios.js';
import type { TableSource } from './table-setup.js';
import { renderTimeline } from './timeline.js';

export type Verdict = 'holds' | 'broken';

export interface CheckReport {
  verdict: Verdict;
  subject: {
    kind: 'sql' | 'module';
    /** The statement as executed, or the module's path. */
    text: string;
    roles?: string[];
    table?: string;
    tableSource?: TableSource;
    tokenColumn?: string;
    authority: string;
  };
  backend: string;
  scenarios: ScenarioResult[];
  exploration: ExploreResult[];
  /** The shortest broken schedule: from the exploration when it found one, else the first broken scenario. */
  counterExample?: CounterExample;
  elapsedMs: number;
}

export function verdictOf(scenarios: ScenarioResult[], exploration: ExploreResult[]): Verdict {
  return scenarios.some((s) => s.status === 'broken') || exploration.some((e) => e.counterExample) ? 'broken' : 'holds';
}

export function counterExampleOf(scenarios: ScenarioResult[], exploration: ExploreResult[]): CounterExample | undefined {
  const explored = exploration
    .map((e) => e.counterExample)
    .filter((c): c is CounterExample => c !== undefined)
    .sort((a, b) => a.schedule.length - b.schedule.length)[0];
  if (explored) return explored;
  const scenario = scenarios.find((s) => s.status === 'broken');
  if (!scenario) return undefined;
  const v = scenario.violations[0];
  return {
    invariant: v.invariant,
    message: v.message,
    schedule: scenario.timeline.map((e) => `${e.actor}:${e.action}`),
    timeline: scenario.timeline,
  };
}

/** The report as text: verdict, then each scenario with its timeline when it broke. */
export function renderText(report: CheckReport, options: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  const s = report.subject;
  lines.push(`fencelint-check: ${report.verdict === 'holds' ? 'the fence holds' : 'the fence is BROKEN'}`);
  lines.push(`  subject:   ${s.kind === 'sql' ? oneLine(s.text) : `module ${s.text}`}`);
  if (s.roles) lines.push(`  roles:     ${s.roles.map((r, i) => `$${i + 1}=${r}`).join(' ')}`);
  if (s.table) lines.push(`  table:     ${s.table} (${describeSource(s.tableSource)})${s.tokenColumn ? `, token column ${s.tokenColumn}` : ', no token column'}`);
  lines.push(`  authority: ${s.authority}`);
  lines.push(`  backend:   ${report.backend}`);
  lines.push('');
  report.scenarios.forEach((sc, i) => {
    const mark = sc.status === 'holds' ? 'ok  ' : sc.status === 'broken' ? 'FAIL' : 'n/a ';
    lines.push(`${mark} ${i + 1}. ${sc.id}: ${sc.title}`);
    if (sc.status === 'not-applicable') lines.push(`       ${sc.reason}`);
    else if (sc.status === 'broken' || options.verbose) {
      if (sc.status === 'broken') lines.push(`       ${sc.reason}`);
      lines.push(indent(renderTimeline(sc.timeline), 7), '');
    }
  });
  for (const e of report.exploration) {
    const mark = e.counterExample ? 'FAIL' : 'ok  ';
    lines.push(
      `${mark} ${report.scenarios.length + 1}. explore ${e.workers} workers: ${e.states} states, ${e.schedules} schedules (bound: ${e.bound.maxExpires} expiries, ${e.bound.maxRestarts} restart)`,
    );
    if (e.counterExample) {
      lines.push(`       minimal counter-example (${e.counterExample.schedule.length} steps): ${e.counterExample.message}`);
      lines.push(indent(renderTimeline(e.counterExample.timeline), 7), '');
    }
  }
  return lines.join('\n');
}

function describeSource(source: TableSource | undefined): string {
  switch (source) {
    case 'schema-file':
      return 'from --schema';
    case 'migrations':
      return "from the project's SQL migrations";
    case 'catalog':
      return "structure copied from the database's own table, no rows";
    case 'inferred':
      return 'inferred from the statement';
    default:
      return 'unknown';
  }
}

function indent(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');
}

function oneLine(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}
