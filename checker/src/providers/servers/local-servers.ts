import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findLockServerBinaries, type LockServerBinaries } from './binaries.js';
import { freePort } from './free-port.js';
import { httpAnswers, tcpAnswers } from './probes.js';
import { ServerProcess } from './server-process.js';

export type RedisPersistence = 'aof-always' | 'none';

export interface StartedRedis {
  process: ServerProcess;
  url: string;
  persistence: RedisPersistence;
}

export interface StartedEtcd {
  process: ServerProcess;
  endpoint: string;
}

export interface StartedPostgres {
  process: ServerProcess;
  url: string;
}

/**
 * Lock servers started from Debian's binaries, each in its own folder under one temporary
 * directory, on free 127.0.0.1 ports. `stopAll()` ends every one and removes the directory.
 */
export class LocalServers {
  readonly root: string;
  private readonly started: ServerProcess[] = [];

  constructor(readonly binaries: LockServerBinaries = findLockServerBinaries()) {
    this.root = mkdtempSync(join(tmpdir(), 'fencelint-lock-servers-'));
  }

  /** `aof-always`: every write is fsynced to the append-only file before the reply. `none`: memory only. */
  async startRedis(persistence: RedisPersistence): Promise<StartedRedis> {
    if (!this.binaries.redis) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
    const port = await freePort();
    const dir = this.folder(`redis-${persistence}-${port}`);
    const persistenceArgs =
      persistence === 'aof-always' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const server = new ServerProcess({
      name: `redis-server (${persistence === 'aof-always' ? 'AOF, appendfsync always' : 'no persistence'}) on 127.0.0.1:${port}`,
      binary: this.binaries.redis,
      // No config file: Debian's /etc/redis/redis.conf is for the system service.
      args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', ...persistenceArgs],
      cwd: dir,
      logFile: join(dir, 'server.log'),
      ready: () => tcpAnswers(port, 'PING\r\n', '+PONG'),
    });
    await this.track(server);
    return { process: server, url: `redis://127.0.0.1:${port}`, persistence };
  }

  async startEtcd(): Promise<StartedEtcd> {
    if (!this.binaries.etcd) throw new Error('etcd is not installed (Debian: apt-get install etcd-server)');
    const clientPort = await freePort();
    const peerPort = await freePort();
    const dir = this.folder(`etcd-${clientPort}`);
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const server = new ServerProcess({
      name: `etcd on 127.0.0.1:${clientPort}`,
      binary: this.binaries.etcd,
      // A 50 ms heartbeat and 500 ms election make etcd's smallest lease TTL 1 s (3/2 of the election timeout, rounded up).
      args: [
        '--name', 'fencelint', '--data-dir', join(dir, 'data'),
        '--listen-client-urls', client, '--advertise-client-urls', client,
        '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
        '--initial-cluster', `fencelint=${peer}`, '--initial-cluster-state', 'new',
        '--heartbeat-interval', '50', '--election-timeout', '500', '--log-level', 'warn',
      ],
      cwd: dir,
      logFile: join(dir, 'server.log'),
      // etcd 3.4 refuses to start on architectures other than amd64 unless told to.
      ...(process.arch === 'x64' ? {} : { env: { ETCD_UNSUPPORTED_ARCH: process.arch } }),
      ready: () => httpAnswers(`${client}/health`, /"health":\s*"true"/),
    });
    await this.track(server);
    return { process: server, endpoint: `127.0.0.1:${clientPort}` };
  }

  /** A PostgreSQL cluster made with initdb; as root it runs as Debian's `postgres` user, which initdb requires. */
  async startPostgres(): Promise<StartedPostgres> {
    const bin = this.binaries.postgresBinDir;
    if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
    const port = await freePort();
    const dir = this.folder(`postgres-${port}`);
    const data = join(dir, 'data');
    const user = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
    if (process.getuid?.() === 0 && !user) throw new Error('running as root, but there is no postgres user to run PostgreSQL as');
    if (user) {
      chmodSync(this.root, 0o755); // mkdtemp makes it 0700: the postgres user must reach its folder
      chownSync(dir, user.uid, user.gid);
    }
    try {
      execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        cwd: dir,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
      });
    } catch (error) {
      throw new Error(`initdb failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const server = new ServerProcess({
      name: `PostgreSQL on 127.0.0.1:${port}`,
      binary: join(bin, 'postgres'),
      args: ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
      cwd: dir,
      logFile: join(dir, 'server.log'),
      ...(user ? { user } : {}),
      crashSignal: 'SIGQUIT',
      ready: () => postgresAnswers(url),
    });
    await this.track(server);
    return { process: server, url };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((s) => s.stop().catch(() => {})));
    rmSync(this.root, { recursive: true, force: true });
  }

  private folder(name: string): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  private async track(server: ServerProcess): Promise<void> {
    this.started.push(server);
    await server.start();
  }
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
