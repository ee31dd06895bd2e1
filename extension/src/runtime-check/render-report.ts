import type { RuntimeCheckReport, TimelineStep } from './parse-report';

const VERDICT_TEXT: Record<RuntimeCheckReport['verdict'], string> = {
  holds: 'holds: the fence rejects every stale write that was replayed',
  broken: 'broken: a stale write was reproduced',
  'bad-input': 'bad input: nothing was checked',
  interrupted: 'interrupted: the check was stopped before a verdict',
};

/** One line per step: `t=13  A  write(v1, token=41) -> accepted  << stale-write-accepted`. */
export function formatTimeline(steps: readonly TimelineStep[]): string {
  return steps
    .map((step) => {
      const result = step.result ? ` -> ${step.result}` : '';
      const violation = step.violation ? `  << ${step.violation.invariant}` : '';
      return `t=${String(step.t).padEnd(3)} ${step.actor.padEnd(6)} ${step.call}${result}${violation}`;
    })
    .join('\n');
}

/** The report as plain text, for the output channel. */
export function renderReportText(location: string, report: RuntimeCheckReport): string {
  const lines = [`Runtime check of ${location}: ${VERDICT_TEXT[report.verdict]}`];
  if (report.error) lines.push(report.error);
  if (report.subject?.text) lines.push(`subject: ${report.subject.text.replace(/\s+/g, ' ')}`);
  if (report.subject?.roles?.length) lines.push(`roles: ${rolesText(report.subject.roles)}`);
  if (report.backend) lines.push(`backend: ${report.backend}`);
  for (const scenario of report.scenarios) {
    lines.push(`- ${scenario.id}: ${scenario.status}${scenario.reason ? ` (${scenario.reason})` : ''}`);
  }
  if (report.counterExample) {
    lines.push(`counter-example (${report.counterExample.invariant}):`, formatTimeline(report.counterExample.timeline));
  }
  return lines.join('\n');
}

/** `$1=value $2=key $3=token`. */
function rolesText(roles: readonly string[]): string {
  return roles.map((role, i) => `$${i + 1}=${role}`).join(' ');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * The checker writes the SVG itself, but the view still only takes drawing markup from it:
 * no script or foreignObject elements, no event handler attributes, no javascript: links.
 * The view's CSP forbids scripts as well; this keeps the inlined markup inert on its own.
 */
export function sanitizeSvg(svg: string): string {
  const start = svg.search(/<svg[\s>]/i);
  if (start < 0) return '';
  return svg
    .slice(start)
    .replace(/<(script|foreignObject)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<(script|foreignObject)\b[^>]*\/?>/gi, '')
    .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '')
    .replace(/\s+(?:xlink:)?href\s*=\s*("\s*javascript:[^"]*"|'\s*javascript:[^']*')/gi, '');
}

/**
 * The whole view as one HTML document. Every text from the report is escaped; the CSP allows
 * no script at all, only inline styles (the SVG carries style attributes).
 */
export function renderReportHtml(location: string, report: RuntimeCheckReport, svg: string | undefined): string {
  const scenarios = report.scenarios
    .map(
      (s) => `<section class="scenario ${escapeHtml(s.status)}">
<h3>${escapeHtml(s.id)}: <span class="status">${escapeHtml(s.status)}</span></h3>
<p>${escapeHtml(s.title)}</p>${s.reason ? `\n<p class="reason">${escapeHtml(s.reason)}</p>` : ''}${
        s.timeline.length > 0 ? `\n<pre>${escapeHtml(formatTimeline(s.timeline))}</pre>` : ''
      }
</section>`,
    )
    .join('\n');
  const subject = report.subject?.text ? `<p>Statement: <code>${escapeHtml(report.subject.text)}</code></p>` : '';
  const roles = report.subject?.roles?.length ? `<p>Roles: <code>${escapeHtml(rolesText(report.subject.roles))}</code></p>` : '';
  const backend = report.backend ? `<p>Replayed on ${escapeHtml(report.backend)}.</p>` : '';
  const error = report.error ? `<pre class="error">${escapeHtml(report.error)}</pre>` : '';
  const drawing = svg ? `<div class="timeline">${sanitizeSvg(svg)}</div>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline';">
<title>Fencelint runtime check: ${escapeHtml(location)}</title>
<style>
body { font-family: var(--vscode-font-family, sans-serif); padding: 0 1em; }
.verdict.holds { color: var(--vscode-testing-iconPassed, green); }
.verdict.broken, .verdict.bad-input { color: var(--vscode-errorForeground, red); }
.verdict.interrupted { color: var(--vscode-editorWarning-foreground, darkorange); }
pre { background: var(--vscode-textCodeBlock-background, #f4f4f4); padding: .5em; overflow-x: auto; }
.timeline svg { max-width: 100%; height: auto; background: #fff; }
</style>
</head>
<body>
<h2>Runtime check of ${escapeHtml(location)}</h2>
<p class="verdict ${report.verdict}"><strong>${escapeHtml(VERDICT_TEXT[report.verdict])}</strong></p>
${error}${subject}${roles}${backend}${drawing}
${scenarios}
</body>
</html>
`;
}
