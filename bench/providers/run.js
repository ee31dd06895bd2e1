// Lock provider benchmark. Build first (`npm run build`), then, on a machine with Debian's
// redis-server, etcd-server and postgresql:
//
//   node bench/providers/run.js                      8 workers
//   node bench/providers/run.js --workers 32 --json out.json
//
// Starts redis-server (AOF appendfsync always), etcd and PostgreSQL on free 127.0.0.1 ports in a
// temporary directory (PGlite stands in for a missing PostgreSQL), and runs the conformance load
// run against each provider twice: without pauses (throughput: rounds per second, as a ratio to
// the baseline below) and with every 5th holder stalling past its TTL (stale writes accepted and
// lost updates, through the fenced and the unfenced statement). The baseline is the same rounds
// by the same workers with no lock at all: read both counters, write both, so the ratio is what
// the lock adds. Every run is bounded in rounds and time and stops by itself; every server is
// stopped at the end.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { runLoad } from '../../checker/dist/providers/load.js';
import { createProvider } from '../../checker/dist/providers/registry.js';
import { ProviderResource } from '../../checker/dist/providers/resource.js';
import { LocalServers } from '../../checker/dist/providers/servers/local-servers.js';

function parseArgs(argv) {
  const options = { workers: 8, rounds: 100, pausedRounds: 50, seconds: 40, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--workers') options.workers = Number(argv[++i]);
    else if (flag === '--rounds') options.rounds = Number(argv[++i]);
    else if (flag === '--json') options.json = argv[++i];
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: node bench/providers/run.js [--workers N (1-32)] [--rounds N] [--json FILE]');
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}`);
  }
  if (!Number.isInteger(options.workers) || options.workers < 1 || options.workers > 32) throw new Error('--workers wants 1 to 32');
  return options;
}

/** The same rounds with no lock: what the resource alone costs. */
async function baseline(resource, workers, rounds) {
  const key = 'bench-baseline';
  await resource.seed(key);
  let started = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (started < rounds) {
        const token = ++started;
        const fenced = await resource.read('fenced', key);
        const unfenced = await resource.read('unfenced', key);
        await resource.write('fenced', key, fenced.value + 1, token);
        await resource.write('unfenced', key, unfenced.value + 1, token);
      }
    }),
  );
  return rounds / ((performance.now() - begin) / 1000);
}

const options = parseArgs(process.argv.slice(2));
const servers = new LocalServers();
const results = { workers: options.workers, machine: `${process.platform} ${process.arch}, node ${process.version}`, baseline: 0, providers: [] };
try {
  const targets = [];
  if (servers.binaries.redis) {
    const redis = await servers.startRedis('aof-always');
    for (const id of ['redis', 'redlock', 'redis-semaphore']) targets.push({ id, address: redis.url });
  } else console.log('redis-server not installed: Redis providers skipped');
  if (servers.binaries.etcd) targets.push({ id: 'etcd', address: (await servers.startEtcd()).endpoint });
  else console.log('etcd not installed: etcd skipped');
  let databaseUrl;
  if (servers.binaries.postgresBinDir) databaseUrl = (await servers.startPostgres()).url;
  else console.log('PostgreSQL not installed: the resource is PGlite and the PostgreSQL providers are skipped');
  const resource = await ProviderResource.open({ databaseUrl, poolSize: Math.min(options.workers, 16), timeoutMs: 5000 });
  if (resource.serverUrl) for (const id of ['postgres-counter', 'postgres-advisory']) targets.push({ id, address: resource.serverUrl });

  results.resource = resource.description;
  results.baseline = await baseline(resource, options.workers, options.rounds);
  console.log(`resource: ${resource.description}; ${options.workers} workers`);
  console.log(`baseline (no lock): ${results.baseline.toFixed(1)} rounds/s`);
  console.log('');
  const header = ['provider', 'rounds/s', 'x baseline', 'rounds/s paused', 'fenced stale', 'fenced lost', 'unfenced stale', 'unfenced lost'];
  console.log(header.join(' | '));
  for (const target of targets) {
    const provider = createProvider({ id: target.id, address: target.address, operationTimeoutMs: 5000 });
    try {
      if (target.id === 'postgres-counter') await provider.install();
      const steady = await runLoad(provider, resource, `bench-${target.id}-steady`, {
        workers: options.workers, rounds: options.rounds, timeLimitMs: options.seconds * 1000, pauseEvery: 0,
      });
      const paused = await runLoad(provider, resource, `bench-${target.id}-paused`, {
        workers: options.workers, rounds: options.pausedRounds, timeLimitMs: options.seconds * 1000, pauseEvery: 5,
      });
      const row = {
        provider: target.id,
        library: provider.library,
        roundsPerSecond: steady.roundsPerSecond,
        ratioToBaseline: steady.roundsPerSecond / results.baseline,
        steadyErrors: steady.errors,
        pausedRoundsPerSecond: paused.roundsPerSecond,
        pausedRounds: paused.rounds,
        pauses: paused.pauses,
        fenced: paused.fenced,
        unfenced: paused.unfenced,
        pausedErrors: paused.errors,
      };
      results.providers.push(row);
      console.log(
        [
          target.id,
          row.roundsPerSecond.toFixed(1),
          row.ratioToBaseline.toFixed(2),
          row.pausedRoundsPerSecond.toFixed(1),
          row.fenced ? row.fenced.staleAccepted : 'no token',
          row.fenced ? row.fenced.lostUpdates : 'no token',
          row.unfenced.staleAccepted,
          row.unfenced.lostUpdates,
        ].join(' | '),
      );
    } finally {
      await provider.close();
    }
  }
  await resource.close();
} finally {
  await servers.stopAll();
}
if (options.json) writeFileSync(options.json, `${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
