// What bench/lsp's scripts share: a temp workspace, the two servers under test started over
// stdio with a real LSP connection, edits, pulls and pushes, CPU and RSS of a server process.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
const require = createRequire(path.join(repo, 'server', 'package.json'));
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');

export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

// BENCH_FENCELINT_SERVER: another build of the server to measure (default: the shipped bundle).
export const FENCELINT = process.env.BENCH_FENCELINT_SERVER ?? path.join(repo, 'server', 'dist', 'bundle', 'server.mjs');
export const VSCODE_ESLINT = path.join(here, 'node_modules', 'vscode-langservers-extracted', 'bin', 'vscode-eslint-language-server');

/**
 * A temp workspace: the files (path under the folder -> text), an eslint.config.js with
 * typescript-eslint's recommended, and the repo's eslint.
 */
export function makeWorkspace(files) {
  const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-bench-lsp-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    writeFileSync(path.join(folder, name), text);
  }
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'bench-workspace', private: true, type: 'module' }));
  writeFileSync(
    path.join(folder, 'eslint.config.js'),
    "import tseslint from 'typescript-eslint';\nexport default [{ files: ['**/*.ts'] }, ...tseslint.configs.recommended];\n",
  );
  // eslint 9.39.5 and typescript-eslint 8.72.0 resolve from the workspace, as vscode-eslint requires.
  symlinkSync(path.join(repo, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time (user + system) the process has used, in ms: robust to other load on the machine. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), in clock ticks of 10 ms on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function vscodeEslintSettings(folderUri) {
  return {
    validate: 'on', packageManager: 'npm', useESLintClass: false, useFlatConfig: true, experimental: { useFlatConfig: false },
    codeActionOnSave: { mode: 'all' }, format: false, quiet: false, onIgnoredFiles: 'off', options: {}, rulesCustomizations: [],
    run: 'onType', problems: { shortenToSingleLine: false }, nodePath: null, workspaceFolder: { name: 'bench', uri: folderUri },
    codeAction: { disableRuleComment: { enable: true, location: 'separateLine', commentStyle: 'line' }, showDocumentation: { enable: true } },
  };
}

/**
 * Starts a server over stdio and initializes it. `refresh`: the client supports
 * `workspace/diagnostic/refresh`, and each refresh request calls `server.onRefresh`.
 */
export async function startServer(kind, folder, pull, env = {}, { refresh = false } = {}) {
  const script = kind === 'fencelint' ? FENCELINT : VSCODE_ESLINT;
  const child = spawn(process.execPath, [script, '--stdio'], { cwd: folder, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  child.stderr.on('data', () => {});
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const folderUri = pathToFileURL(folder).href;
  const pushed = new Map();
  let onPush = () => {};
  connection.onRequest('workspace/configuration', (params) =>
    params.items.map((item) => (kind === 'fencelint' ? (item.section === 'fencelint' ? {} : null) : vscodeEslintSettings(folderUri))),
  );
  const server = { kind, child, connection, pull, lintMs: [], parser: env.FENCELINT_LS_PARSER ?? 'fast', onRefresh: () => {} };
  connection.onRequest('workspace/diagnostic/refresh', () => {
    server.onRefresh();
    return null;
  });
  // Registration, progress and vscode-eslint's own requests: acknowledge them.
  connection.onRequest(() => null);
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    pushed.set(params.version, params.diagnostics);
    onPush();
  });
  // fencelint's status notification carries each lint's wall time inside the server.
  connection.onNotification('fencelint/status', (params) => {
    if (params.state === 'idle' && typeof params.durationMs === 'number') server.lintMs.push(params.durationMs);
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
      workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true }, diagnostics: { refreshSupport: refresh } },
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
        ...(pull ? { diagnostic: { dynamicRegistration: false } } : {}),
      },
    },
  });
  await connection.sendNotification('initialized', {});
  server.waitPush = (version) =>
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
  return server;
}

/** Offsets -> LSP positions for the bench file (its length never changes: edits swap one digit). */
export function positions(text) {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - lineStarts[lo] };
  };
}

/** Opens the file and waits for its first report. */
export async function open(server, uri, text) {
  server.version = 1;
  await server.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
  const first = server.pull ? (await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })).items : await server.waitPush(1);
  server.findings = first.length;
  server.sources = [...new Set(first.map((d) => d.source))].join(',');
}

/**
 * Edit number `n`: one digit at one of the edit points; returns the time to its diagnostics
 * (ms). With `report` false the change is sent and nothing is awaited.
 */
export async function edit(server, uri, points, position, n, report = true) {
  const version = ++server.version;
  const at = position(points[n % points.length]);
  const digit = String((Math.floor(n / points.length) + 1) % 10);
  const started = process.hrtime.bigint();
  await server.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: digit }],
  });
  if (!report) return undefined;
  const diagnostics = server.pull
    ? (await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })).items
    : await server.waitPush(version);
  server.findingsAfter = diagnostics.length;
  server.lastDiagnostics = diagnostics;
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function stop(server) {
  await server.connection.sendRequest('shutdown').catch(() => {});
  await server.connection.sendNotification('exit').catch(() => {});
  server.connection.dispose();
  server.child.kill();
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function printTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}
