// The 2,000-line service with its lock helpers in another module (`src/locks.ts`): edit latency
// for fencelint's language server next to vscode-eslint's (typescript-eslint recommended) in the
// same run, then the time from saving a changed helper module to refreshed diagnostics in the
// open service that imports it.
//
//   npm ci --prefix bench/lsp && npm run build -w rules && npm run build -w server
//   node bench/lsp/modules.js [--edits 200] [--warmup 20] [--saves 40]
//
// Edits are those of run.js (one digit inside a function, incremental didChange, then a pull).
// A save: the helper module's text changes in the editor (didChange), is written to disk, and
// didSave is sent; the client pulls the module's own diagnostics, as VS Code does after a save,
// and, when the server asks with `workspace/diagnostic/refresh`, pulls the service's again. The
// time runs from didSave to the service's refreshed report. The saves alternate between the real
// helpers and a version whose `lockResource` takes no lock, so each refreshed report must show
// the other number of findings: a refresh that read the old helper would be caught.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { editPoints, generateServiceWithHelpers } from './generate-file.js';
import { cpuMs, edit, makeWorkspace, open, option, percentile, positions, printTable, startServer, stop } from './servers.js';

const EDITS = option('edits', 200);
const WARMUP = option('warmup', 20);
const SAVES = option('saves', 40);

const { service, helpers } = generateServiceWithHelpers(2000);
const withoutRedlock = helpers.replace(/return redlock\.acquire\(\[`lock:\$\{key\}`\], ttlMs\);/, 'return { key, ttlMs, release: async () => {} };');
if (withoutRedlock === helpers) throw new Error('the helper variant without redlock did not apply');
const folder = makeWorkspace({ 'src/accounts.ts': service, 'src/locks.ts': helpers });
const serviceFile = path.join(folder, 'src', 'accounts.ts');
const helperFile = path.join(folder, 'src', 'locks.ts');
const serviceUri = pathToFileURL(serviceFile).href;
const helperUri = pathToFileURL(helperFile).href;
const points = editPoints(service);
const position = positions(service);
const f = (n) => (n === undefined ? '-' : n.toFixed(1));
const r = (a, b) => (a / b).toFixed(2);
const pull = async (server, uri) => (await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })).items;

console.log(`service: ${service.split('\n').length - 1} lines, ${points.length} edit points; helpers: src/locks.ts, ${helpers.split('\n').length - 1} lines`);
const result = { edits: EDITS, warmup: WARMUP, saves: SAVES, latency: [], saveToRefresh: undefined };
const servers = [];
try {
  servers.push(await startServer('fencelint', folder, true, {}, { refresh: true }), await startServer('vscode-eslint', folder, true));
  const [fl, ve] = servers;
  for (const server of servers) {
    await open(server, serviceUri, service);
    server.latencies = [];
  }
  const initial = fl.findings;
  for (let n = 0; n < WARMUP; n++) for (const server of servers) await edit(server, serviceUri, points, position, n);
  for (const server of servers) server.cpuStart = cpuMs(server.child.pid);
  for (let n = WARMUP; n < WARMUP + EDITS; n++) for (const server of servers) server.latencies.push(await edit(server, serviceUri, points, position, n));
  for (const server of servers) server.cpuPerEdit = (cpuMs(server.child.pid) - server.cpuStart) / EDITS;
  const rows = servers.map((s) => {
    const row = { server: s.kind === 'fencelint' ? 'fencelint-language-server' : 'vscode-eslint (typescript-eslint recommended)', findings: s.findings, p50: percentile(s.latencies, 50), p95: percentile(s.latencies, 95), max: Math.max(...s.latencies), cpuPerEdit: s.cpuPerEdit };
    result.latency.push(row);
    return [row.server, String(row.findings), f(row.p50), f(row.p95), f(row.max), f(row.cpuPerEdit)];
  });
  rows.push(['ratio fencelint / vscode-eslint', '', r(percentile(fl.latencies, 50), percentile(ve.latencies, 50)), r(percentile(fl.latencies, 95), percentile(ve.latencies, 95)), r(Math.max(...fl.latencies), Math.max(...ve.latencies)), r(fl.cpuPerEdit, ve.cpuPerEdit)]);
  console.log(`\nedit latency, service with its lock helpers in src/locks.ts (${EDITS} edits after ${WARMUP} warm-up, pull, taking turns)`);
  printTable(['server', 'findings', 'p50 ms', 'p95 ms', 'max ms', 'CPU ms/edit'], rows);

  // Save to refresh, fencelint only: vscode-eslint lints each file by itself and never refreshes another.
  await stop(servers.pop());
  let helperVersion = 1;
  await fl.connection.sendNotification('textDocument/didOpen', { textDocument: { uri: helperUri, languageId: 'typescript', version: 1, text: helpers } });
  await pull(fl, helperUri);
  const times = [];
  const counts = new Set();
  let wrong = 0;
  for (let n = 0; n < SAVES; n++) {
    const text = n % 2 === 0 ? withoutRedlock : helpers;
    await fl.connection.sendNotification('textDocument/didChange', { textDocument: { uri: helperUri, version: ++helperVersion }, contentChanges: [{ text }] });
    writeFileSync(helperFile, text);
    const refreshed = new Promise((resolve) => {
      fl.onRefresh = () => {
        fl.onRefresh = () => {};
        resolve(pull(fl, serviceUri));
      };
    });
    const started = process.hrtime.bigint();
    await fl.connection.sendNotification('textDocument/didSave', { textDocument: { uri: helperUri } });
    void pull(fl, helperUri);
    const diagnostics = await refreshed;
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    counts.add(diagnostics.length);
    // Without redlock in lockResource, the writes under it have no lock to be fenced against.
    if ((n % 2 === 0) === (diagnostics.length === initial)) wrong++;
  }
  result.saveToRefresh = { p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times), findings: [...counts].sort((a, b) => a - b), wrong };
  result.editP50 = percentile(fl.latencies, 50);
  console.log(`\nsave of src/locks.ts to refreshed diagnostics in src/accounts.ts (fencelint, ${SAVES} saves): p50 ${f(result.saveToRefresh.p50)} ms, p95 ${f(result.saveToRefresh.p95)} ms, max ${f(result.saveToRefresh.max)} ms; ratio to an edit's p50 in the service ${r(result.saveToRefresh.p50, result.editP50)}`);
  console.log(`findings in the refreshed reports: ${result.saveToRefresh.findings.join(' / ')} (without / with the lock in lockResource); ${wrong === 0 ? 'every refresh showed the saved helper' : `${wrong} refreshes showed a stale helper`}`);
} finally {
  await Promise.all(servers.map(stop));
  rmSync(folder, { recursive: true, force: true });
}
const os = await import('node:os');
console.log(`\nnode ${process.version}, ${os.cpus().length} cores; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
