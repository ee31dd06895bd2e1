#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { isLintWorker, runLintWorker } from './lint-worker.js';
import { SERVER_NAME, SERVER_VERSION, startServer } from './server.js';

const USAGE = `Usage: ${SERVER_NAME} --stdio | --node-ipc | --socket=PORT

Runs eslint-plugin-fencelint on open JavaScript and TypeScript documents and reports late-write
hazards over the Language Server Protocol.

  --stdio         talk over standard input and output
  --node-ipc      talk over Node's IPC channel (the process was started with child_process.fork)
  --socket=PORT   connect to 127.0.0.1:PORT, where the client listens (also --socket PORT)
  --version       print the version
  --help          print this text`;

const args = process.argv.slice(2);
if (!isMainThread && isLintWorker(workerData)) {
  // This file is also the entry of the thread that lints large documents (off-thread-lint.ts).
  void runLintWorker();
} else if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
} else if (args.includes('--version')) {
  process.stdout.write(`${SERVER_VERSION}\n`);
} else if (!args.some((a, i) => a === '--stdio' || a === '--node-ipc' || /^--socket=\d+$/.test(a) || (a === '--socket' && /^\d+$/.test(args[i + 1] ?? '')) || /^--pipe=/.test(a))) {
  process.stderr.write(`${SERVER_NAME}: choose a transport.\n\n${USAGE}\n`);
  process.exitCode = 2;
} else {
  // createConnection reads the transport from process.argv itself.
  startServer(createConnection(ProposedFeatures.all), { workerEntry: fileURLToPath(import.meta.url) });
}
