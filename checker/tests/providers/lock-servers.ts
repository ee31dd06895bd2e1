import { describe } from 'vitest';
import { findLockServerBinaries } from '../../src/providers/servers/binaries.js';

export type ServerKind = 'redis' | 'etcd';

const INSTALL: Record<ServerKind, string> = {
  redis: 'redis-server (apt-get install redis-server)',
  etcd: 'etcd (apt-get install etcd-server)',
};

/**
 * These suites start real lock servers from the installed binaries. On a machine without them
 * (a fresh one with only Node) the suite is skipped and says why on stderr; CI installs them and
 * sets FENCELINT_REQUIRE_LOCK_SERVERS=1, which turns a missing binary into a failure instead.
 */
export function describeWithServers(name: string, needs: ServerKind[], body: () => void): void {
  const binaries = findLockServerBinaries();
  const has: Record<ServerKind, boolean> = {
    redis: binaries.redis !== undefined,
    etcd: binaries.etcd !== undefined,
  };
  const missing = needs.filter((k) => !has[k]);
  if (missing.length === 0) {
    describe(name, body);
    return;
  }
  const reason = `not installed here: ${missing.map((k) => INSTALL[k]).join('; ')}`;
  if (process.env.FENCELINT_REQUIRE_LOCK_SERVERS === '1') {
    describe(name, () => {
      throw new Error(`${name}: ${reason} (FENCELINT_REQUIRE_LOCK_SERVERS=1 makes this a failure)`);
    });
    return;
  }
  process.stderr.write(`\n[skipped] ${name}: ${reason}. These tests did NOT run on this machine.\n`);
  describe.skip(`${name} (skipped: ${reason})`, body);
}
