import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Debian's packages put the server binaries: redis-server and etcd on PATH, PostgreSQL per major version. */
export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The bin directory of the newest Debian PostgreSQL (/usr/lib/postgresql/N/bin) holding initdb and postgres. */
export function findPostgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const bin = join(root, v, 'bin');
      if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  const initdb = findOnPath('initdb');
  return initdb ? join(initdb, '..') : undefined;
}

export interface LockServerBinaries {
  redis?: string;
  etcd?: string;
  postgresBinDir?: string;
}

export function findLockServerBinaries(): LockServerBinaries {
  return { redis: findOnPath('redis-server'), etcd: findOnPath('etcd'), postgresBinDir: findPostgresBinDir() };
}
