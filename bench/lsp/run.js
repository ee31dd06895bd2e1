// Latency from didChange to diagnostics: fencelint's language server next to vscode-eslint's
// own server (vscode-langservers-extracted) running typescript-eslint's `recommended` on the
// same generated 2,000-line file, in the same run. Then the servers' RSS after many edits.
//
//   npm ci --prefix bench/lsp            # once: installs vscode-langservers-extracted
//   npm run build -w rules && npm run build -w server
//   node bench/lsp/run.js [--edits 200] [--rss-edits 5000] [--warmup 20]
//
// Each edit replaces one digit in a function (inside or outside a lock scope), sends
// textDocument/didChange, and asks for the document's diagnostics at once (LSP 3.17 pull,
// what VS Code does); the time is measured from sending the change to receiving the report.
// Edits are sequential: this measures one edit's latency, not a burst's. fencelint is also
// measured in push mode (didChange until publishDiagnostics for that version).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { whereAnEditGoes, whereTheTimeGoes } from './breakdown.js';
import { editPoints, generateServiceFile } from './generate-file.js';
import { cpuMs, edit, here, makeWorkspace, open, option, percentile, positions, printTable, rssMiB, startServer, stop } from './servers.js';

const EDITS = option('edits', 200);
const RSS_EDITS = option('rss-edits', 5000);
const WARMUP = option('warmup', 20);
// In the RSS phase, pull diagnostics after every Nth edit only (1 = after each edit, a lint per edit).
const RSS_PULL_EVERY = option('rss-pull-every', 1);

const text = generateServiceFile(2000);
const folder = makeWorkspace({ 'src/accounts.ts': text });
const lines = text.split('\n').length - 1;
const points = editPoints(text);
const position = positions(text);
const uri = pathToFileURL(path.join(folder, 'src', 'accounts.ts')).href;
console.log(`file: ${lines} lines, ${points.length} edit points, ${(text.match(/acquire\(|\.lock\(/g) ?? []).length} lock scopes`);
console.log(`${EDITS} measured edits after ${WARMUP} warm-up edits each, the servers taking turns edit by edit; RSS after ${RSS_EDITS} edits, diagnostics pulled after every ${RSS_PULL_EVERY === 1 ? '' : `${RSS_PULL_EVERY}th `}edit`);

const f = (n) => (n === undefined ? '-' : n.toFixed(1));
const label = (s) => (s.kind === 'vscode-eslint' ? 'vscode-eslint (typescript-eslint recommended)' : s.parser === 'fast' ? 'fencelint-language-server' : 'fencelint-language-server, @typescript-eslint/parser');
const result = { lines, edits: EDITS, warmup: WARMUP, rssEdits: RSS_EDITS, rssPullEvery: RSS_PULL_EVERY, latency: [], rss: [] };
const servers = [];
try {
  // Latency: all three servers are up; each edit goes to each server in turn, so a change in
  // the machine's load hits them alike.
  // The fourth server is fencelint with @typescript-eslint/parser in place of the fast parser: its
  // findings after every edit must equal the fast parser's.
  servers.push(
    await startServer('fencelint', folder, true),
    await startServer('vscode-eslint', folder, true),
    await startServer('fencelint', folder, false),
    await startServer('fencelint', folder, true, { FENCELINT_LS_PARSER: 'typescript-eslint' }),
  );
  for (const server of servers) {
    await open(server, uri, text);
    server.rssOpen = rssMiB(server.child.pid);
    server.latencies = [];
  }
  for (let n = 0; n < WARMUP; n++) for (const server of servers) await edit(server, uri, points, position, n);
  for (const server of servers) server.cpuStart = cpuMs(server.child.pid);
  for (const server of servers) server.lintMs.length = 0;
  let differing = 0;
  for (let n = WARMUP; n < WARMUP + EDITS; n++) {
    for (const server of servers) server.latencies.push(await edit(server, uri, points, position, n));
    if (JSON.stringify(servers[0].lastDiagnostics) !== JSON.stringify(servers[3].lastDiagnostics)) differing++;
  }
  for (const server of servers) server.cpuPerEdit = (cpuMs(server.child.pid) - server.cpuStart) / EDITS;
  const [fl, ve, , flTs] = servers;
  result.identicalToTypescriptEslintParser = differing === 0;
  const rows = servers.map((s) => {
    const row = { server: label(s), mode: s.pull ? 'pull' : 'push', findings: s.findings, p50: percentile(s.latencies, 50), p95: percentile(s.latencies, 95), max: Math.max(...s.latencies), cpuPerEdit: s.cpuPerEdit, rssOpen: s.rssOpen, rssAfter: rssMiB(s.child.pid) };
    result.latency.push(row);
    return [row.server, row.mode, String(row.findings), f(row.p50), f(row.p95), f(row.max), f(row.cpuPerEdit), f(row.rssOpen), f(row.rssAfter)];
  });
  const r = (a, b) => (a / b).toFixed(2);
  const ratioRow = (name, a, b) => [name, '', '', r(percentile(a.latencies, 50), percentile(b.latencies, 50)), r(percentile(a.latencies, 95), percentile(b.latencies, 95)), r(Math.max(...a.latencies), Math.max(...b.latencies)), r(a.cpuPerEdit, b.cpuPerEdit), r(a.rssOpen, b.rssOpen), r(rssMiB(a.child.pid), rssMiB(b.child.pid))];
  rows.push(ratioRow('ratio fencelint / vscode-eslint (pull)', fl, ve), ratioRow('ratio fast parser / @typescript-eslint/parser (fencelint, pull)', fl, flTs));
  console.log();
  printTable(['server', 'mode', 'findings', 'p50 ms', 'p95 ms', 'max ms', 'CPU ms/edit', 'RSS open MiB', `RSS +${WARMUP + EDITS} MiB`], rows);
  console.log(`\nfindings with the fast parser ${differing === 0 ? 'identical to' : `differ from (${differing} of ${EDITS} edits)`} those with @typescript-eslint/parser after every measured edit`);
  // Where an edit's time goes: the lint inside the server (its status notification) and the rest
  // (protocol, text sync, the scheduler's two-turn wait).
  const lintP50 = percentile(fl.lintMs, 50);
  console.log(`fencelint (fast parser): lint inside the server p50 ${f(lintP50)} ms, p95 ${f(percentile(fl.lintMs, 95))} ms of the ${f(percentile(fl.latencies, 50))} / ${f(percentile(fl.latencies, 95))} ms seen by the client; the rest (protocol, scheduling) p50 ${f(percentile(fl.latencies, 50) - lintP50)} ms`);
  result.lintInServer = { fast: { p50: lintP50, p95: percentile(fl.lintMs, 95) }, typescriptEslint: { p50: percentile(flTs.lintMs, 50), p95: percentile(flTs.lintMs, 95) } };
  result.breakdown = await whereTheTimeGoes(text, path.join(folder, 'src', 'accounts.ts'));
  result.editBreakdown = await whereAnEditGoes(text, path.join(folder, 'src', 'accounts.ts'), points);

  // RSS: the two pull servers go on to RSS_EDITS edits in all, again taking turns.
  await stop(servers.pop());
  await stop(servers.pop());
  if (RSS_EDITS > WARMUP + EDITS) {
    for (let n = WARMUP + EDITS; n < RSS_EDITS; n++) {
      const report = (n + 1) % RSS_PULL_EVERY === 0 || n === RSS_EDITS - 1;
      for (const server of servers) await edit(server, uri, points, position, n, report);
      if ((n + 1) % 1000 === 0) console.log(`  ${n + 1} edits: RSS ${servers.map((s) => `${s.kind} ${f(rssMiB(s.child.pid))} MiB`).join(', ')}`);
    }
    const rssRows = servers.map((s) => {
      const row = { server: label(s), rssOpen: s.rssOpen, rssAfter: rssMiB(s.child.pid), findingsAfter: s.findingsAfter };
      result.rss.push(row);
      return [row.server, f(row.rssOpen), f(row.rssAfter), String(row.findingsAfter)];
    });
    rssRows.push(['ratio fencelint / vscode-eslint', r(result.rss[0].rssOpen, result.rss[1].rssOpen), r(result.rss[0].rssAfter, result.rss[1].rssAfter), '']);
    console.log();
    printTable(['server', 'RSS open MiB', `RSS after ${RSS_EDITS} edits MiB`, 'findings at the end'], rssRows);
  }
} finally {
  await Promise.all(servers.map(stop));
  rmSync(folder, { recursive: true, force: true });
}
console.log(`\nnode ${process.version}, ${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores; load average at the end ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
mkdirSync(path.join(here, 'results'), { recursive: true });
writeFileSync(path.join(here, 'results', `lsp-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
