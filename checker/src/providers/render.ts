import type { ProviderRow } from './conformance.js';
import { CONFORMANCE_SCENARIOS, type ConformanceStatus } from './scenarios.js';

export interface ProvidersReport {
  verdict: 'pass' | 'fail';
  resource: string;
  /** Things the run could not do and why (a binary not installed, no PostgreSQL given). */
  notes: string[];
  providers: ProviderRow[];
}

const WORD: Record<ConformanceStatus, string> = { pass: 'pass', fail: 'FAIL', 'not-applicable': 'n/a' };
const MARK: Record<ConformanceStatus, string> = { pass: '✅ pass', fail: '❌ fail', 'not-applicable': '➖ n/a' };

function scenarioIds(report: ProvidersReport): string[] {
  const seen = new Set(report.providers.flatMap((p) => p.scenarios.map((s) => s.id)));
  return CONFORMANCE_SCENARIOS.map((s) => s.id).filter((id) => seen.has(id));
}

export function renderProvidersText(report: ProvidersReport): string {
  const ids = scenarioIds(report);
  const lines = [`fencelint-check providers: ${report.verdict === 'pass' ? 'every scenario passes or does not apply' : 'a provider FAILS a scenario'}`, `resource: ${report.resource}`, ''];
  const width = Math.max(8, ...report.providers.map((p) => p.provider.length));
  lines.push([''.padEnd(width), ...ids].join('  '));
  for (const p of report.providers) {
    lines.push([p.provider.padEnd(width), ...ids.map((id) => WORD[p.scenarios.find((s) => s.id === id)?.status ?? 'not-applicable'].padEnd(id.length))].join('  '));
  }
  for (const p of report.providers) {
    lines.push('', `${p.provider}: ${p.library}; token: ${p.tokenSource ?? 'none'}; server: ${p.server}${p.startedHere ? ' (started by this run)' : ''}`);
    for (const s of p.scenarios) lines.push(`  ${WORD[s.status].padEnd(4)} ${s.id.padEnd(20)} ${s.reason}`);
  }
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}

export function renderProvidersMarkdown(report: ProvidersReport): string {
  const ids = scenarioIds(report);
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `## Lock provider conformance: ${report.verdict === 'pass' ? 'pass' : 'fail'}`,
    '',
    `Resource: ${cell(report.resource)}`,
    '',
    `| provider | ${ids.join(' | ')} |`,
    `|---|${ids.map(() => ':-:').join('|')}|`,
    ...report.providers.map((p) => `| ${cell(p.provider)} | ${ids.map((id) => MARK[p.scenarios.find((s) => s.id === id)?.status ?? 'not-applicable']).join(' | ')} |`),
  ];
  for (const p of report.providers) {
    lines.push('', `### ${cell(p.provider)}`, '', `${cell(p.library)}; token: ${cell(p.tokenSource ?? 'none')}; server: ${cell(p.server)}${p.startedHere ? ' (started by this run)' : ''}`, '', '| scenario | result | reason |', '|---|:-:|---|');
    for (const s of p.scenarios) lines.push(`| ${s.id} | ${MARK[s.status]} | ${cell(s.reason)} |`);
  }
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `- ${cell(n)}`));
  return lines.join('\n');
}
