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
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { editPoints, generateServiceFile } from './generate-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const require = createRequire(path.join(repo, 'server', 'package.json'));
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const EDITS = option('edits', 200);
const RSS_EDITS = option('rss-edits', 5000);
const WARMUP = option('warmup', 20);

const FENCELINT = path.join(repo, 'server', 'dist', 'bundle', 'server.mjs');
const VSCODE_ESLINT = path.join(here, 'node_modules', 'vscode-langservers-extracted', 'bin', 'vscode-eslint-language-server');

/** A temp workspace: the file, an eslint.config.js with typescript-eslint's recommended, and the repo's eslint. */
function makeWorkspace(text) {
  const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-bench-lsp-'));
  mkdirSync(path.join(folder, 'src'));
  writeFileSync(path.join(folder, 'src', 'accounts.ts'), text);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'bench-workspace', private: true, type: 'module' }));
  writeFileSync(
    path.join(folder, 'eslint.config.js'),
    "import tseslint from 'typescript-eslint';\nexport default [{ files: ['**/*.ts'] }, ...tseslint.configs.recommended];\n",
  );
  // eslint 9.39.5 and typescript-eslint 8.72.0 resolve from the workspace, as vscode-eslint requires.
  symlinkSync(path.join(repo, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

function vscodeEslintSettings(folderUri) {
  return {
    validate: 'on', packageManager: 'npm', useESLintClass: false, useFlatConfig: true, experimental: { useFlatConfig: false },
    codeActionOnSave: { mode: 'all' }, format: false, quiet: false, onIgnoredFiles: 'off', options: {}, rulesCustomizations: [],
    run: 'onType', problems: { shortenToSingleLine: false }, nodePath: null, workspaceFolder: { name: 'bench', uri: folderUri },
    codeAction: { disableRuleComment: { enable: true, location: 'separateLine', commentStyle: 'line' }, showDocumentation: { enable: true } },
  };
}

async function startServer(kind, folder, pull) {
  const script = kind === 'fencelint' ? FENCELINT : VSCODE_ESLINT;
  const child = spawn(process.execPath, [script, '--stdio'], { cwd: folder, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', () => {});
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const folderUri = pathToFileURL(folder).href;
  const pushed = new Map();
  let onPush = () => {};
  connection.onRequest('workspace/configuration', (params) =>
    params.items.map((item) => (kind === 'fencelint' ? (item.section === 'fencelint' ? {} : null) : vscodeEslintSettings(folderUri))),
  );
  // Registration, progress and vscode-eslint's own requests: acknowledge them.
  connection.onRequest(() => null);
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    pushed.set(params.version, params.diagnostics);
    onPush();
  });
  connection.onNotification((method, params) => {
    if (process.env.BENCH_DEBUG && method === 'window/logMessage') console.error(`[${kind}] ${params.message}`);
  });
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: folderUri,
    workspaceFolders: [{ uri: folderUri, name: 'bench' }],
    capabilities: {
      workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true }, diagnostics: { refreshSupport: false } },
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
        ...(pull ? { diagnostic: { dynamicRegistration: false } } : {}),
      },
    },
  });
  await connection.sendNotification('initialized', {});
  const waitPush = (version) =>
    new Promise((resolve) => {
      const check = () => {
        if (pushed.has(version)) {
          onPush = () => {};
          resolve(pushed.get(version));
        }
      };
      onPush = check;
      check();
    });
  return { kind, child, connection, pull, waitPush };
}

/** Opens the file, then edits it `count` times; returns per-edit latencies (ms) and the finding counts seen. */
async function runEdits(server, uri, text, count, startVersion) {
  const points = editPoints(text);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const position = (offset) => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= offset) line++;
    return { line, character: offset - lineStarts[line] };
  };
  const latencies = [];
  let findings = 0;
  for (let n = 0; n < count; n++) {
    const version = startVersion + n;
    const offset = points[n % points.length];
    const digit = String((Math.floor(n / points.length) + 1) % 10);
    const at = position(offset);
    const started = process.hrtime.bigint();
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: digit }],
    });
    let diagnostics;
    if (server.pull) diagnostics = (await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })).items;
    else diagnostics = await server.waitPush(version);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    findings = diagnostics.length;
  }
  return { latencies, findings };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(kind, pull, folder, text, withRss) {
  const server = await startServer(kind, folder, pull);
  const uri = pathToFileURL(path.join(folder, 'src', 'accounts.ts')).href;
  await server.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
  let first;
  if (pull) first = (await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })).items;
  else first = await server.waitPush(1);
  const rssOpen = rssMiB(server.child.pid);
  await runEdits(server, uri, text, WARMUP, 2);
  const { latencies, findings } = await runEdits(server, uri, text, EDITS, 2 + WARMUP);
  const rssEdits = rssMiB(server.child.pid);
  let rssMany;
  if (withRss) {
    await runEdits(server, uri, text, RSS_EDITS - EDITS - WARMUP, 2 + WARMUP + EDITS);
    rssMany = rssMiB(server.child.pid);
  }
  await server.connection.sendRequest('shutdown').catch(() => {});
  await server.connection.sendNotification('exit').catch(() => {});
  server.connection.dispose();
  server.child.kill();
  const sources = [...new Set(first.map((d) => d.source))].join(',');
  return {
    kind, mode: pull ? 'pull' : 'push', findings: first.length, findingsAfter: findings, sources,
    p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies), rssOpen, rssEdits, rssMany,
  };
}

const text = generateServiceFile(2000);
const folder = makeWorkspace(text);
const lines = text.split('\n').length - 1;
console.log(`file: ${lines} lines, ${editPoints(text).length} edit points; ${EDITS} measured edits after ${WARMUP} warm-up edits; RSS after ${RSS_EDITS} edits`);
const results = [];
try {
  results.push(await measure('fencelint', true, folder, text, true));
  results.push(await measure('vscode-eslint', true, folder, text, true));
  results.push(await measure('fencelint', false, folder, text, false));
} finally {
  rmSync(folder, { recursive: true, force: true });
}

const f = (n) => (n === undefined ? '-' : n.toFixed(1));
const rows = results.map((r) => [
  r.kind === 'fencelint' ? 'fencelint-language-server' : 'vscode-eslint (typescript-eslint recommended)',
  r.mode, String(r.findings), f(r.p50), f(r.p95), f(r.max), f(r.rssOpen), f(r.rssEdits), f(r.rssMany),
]);
const [fl, ve] = results;
rows.push(['ratio fencelint / vscode-eslint (pull)', '', '', (fl.p50 / ve.p50).toFixed(2), (fl.p95 / ve.p95).toFixed(2), (fl.max / ve.max).toFixed(2), (fl.rssOpen / ve.rssOpen).toFixed(2), (fl.rssEdits / ve.rssEdits).toFixed(2), (fl.rssMany / ve.rssMany).toFixed(2)]);
const header = ['server', 'mode', 'findings', 'p50 ms', 'p95 ms', 'max ms', 'RSS open MiB', `RSS +${WARMUP + EDITS} MiB`, `RSS +${RSS_EDITS} MiB`];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(`node ${process.version}, ${process.platform} ${process.arch}; load average at the end ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);

mkdirSync(path.join(here, 'results'), { recursive: true });
writeFileSync(path.join(here, 'results', `lsp-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ lines, edits: EDITS, rssEdits: RSS_EDITS, results }, null, 2));
