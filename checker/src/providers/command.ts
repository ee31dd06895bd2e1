import { parseArgs } from 'node:util';
import { BadInputError, errorMessage } from '../errors.js';
import { runConformance, overallStatus, type ConformanceRun, type ProviderRow } from './conformance.js';
import { DEFAULT_LOAD, type LoadOptions } from './load.js';
import { PostgresCounterProvider } from './postgres-counter.js';
import { preflightEtcd, preflightPostgres, preflightRedis } from './preflight.js';
import type { ProviderId, ProviderSpec } from './provider.js';
import { createProvider, POSTGRES_PROVIDERS, REDIS_PROVIDERS } from './registry.js';
import { renderProvidersMarkdown, renderProvidersText, type ProvidersReport } from './render.js';
import { ProviderResource } from './resource.js';
import { CONFORMANCE_SCENARIOS } from './scenarios.js';
import { LocalServers } from './servers/local-servers.js';

export const PROVIDERS_USAGE = `Usage:
  fencelint-check providers [--redis-url URL] [--etcd-endpoints LIST] [--database-url URL] [--start-servers] [options]

Runs the stale-write conformance scenarios against lock servers: lease expiry while the holder
is paused, keep-alive, revoke, a server killed and started again, a lost connection, an old
handle's release, and a load run, and prints provider x scenario -> pass / fail / n/a.

Servers:
  --redis-url URL        redis:// or rediss://: ioredis (SET NX PX + INCR), redlock and redis-semaphore
  --etcd-endpoints LIST  host:port[,host:port]: etcd3 leases, the lock key's revision as token
  --database-url URL     PostgreSQL: the fence_authority counter and advisory locks, and the resource
                         the holders write to, in a database created for the run and dropped after
  --start-servers        also start redis-server (AOF appendfsync always, and without persistence),
                         etcd and PostgreSQL from the installed binaries, in a temporary directory on
                         free 127.0.0.1 ports; the restart scenario runs only against these
Options:
  --providers LIST       only these: ${['etcd', ...REDIS_PROVIDERS, ...POSTGRES_PROVIDERS].join(', ')}
  --scenarios LIST       only these: ${CONFORMANCE_SCENARIOS.map((s) => s.id).join(', ')}
  --workers N            load run: concurrent workers, 1 to 32 (default ${DEFAULT_LOAD.workers})
  --rounds N             load run: rounds in all, 1 to 10000 (default ${DEFAULT_LOAD.rounds})
  --load-seconds S       load run: stop after S seconds, 1 to 600 (default ${DEFAULT_LOAD.timeLimitMs / 1000})
  --timeout S            connect and per-operation deadline in seconds (default 5)
  --json                 print the JSON report
  --markdown             print a Markdown report
Without a PostgreSQL server the resource is an embedded PGlite.
Exit status: 0 every scenario passes or does not apply, 1 one fails, 2 bad input or a server that
cannot be used (down, wrong port, TLS mismatch, no answer within --timeout).`;

interface Target {
  spec: ProviderSpec;
  restartServer?: () => Promise<void>;
  serverName: string;
}

export async function runProvidersCommand(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        'redis-url': { type: 'string' },
        'etcd-endpoints': { type: 'string' },
        'database-url': { type: 'string' },
        'start-servers': { type: 'boolean' },
        providers: { type: 'string' },
        scenarios: { type: 'string' },
        workers: { type: 'string' },
        rounds: { type: 'string' },
        'load-seconds': { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
        markdown: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    process.stderr.write(`fencelint-check providers: ${errorMessage(error)}\n\n${PROVIDERS_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${PROVIDERS_USAGE}\n`);
    return 0;
  }
  const json = args.json === true;
  let servers: LocalServers | undefined;
  let resource: ProviderResource | undefined;
  const stopOnSignal = (signal: NodeJS.Signals) => {
    void (servers?.stopAll() ?? Promise.resolve()).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    if (args.json && args.markdown) throw new BadInputError('give one of --json and --markdown');
    const timeoutMs = parseNumber(args.timeout, '--timeout', 0.1, 120, 5) * 1000;
    const load: LoadOptions = {
      workers: parseNumber(args.workers, '--workers', 1, 32, DEFAULT_LOAD.workers, true),
      rounds: parseNumber(args.rounds, '--rounds', 1, 10_000, DEFAULT_LOAD.rounds, true),
      timeLimitMs: parseNumber(args['load-seconds'], '--load-seconds', 1, 600, DEFAULT_LOAD.timeLimitMs / 1000) * 1000,
      pauseEvery: DEFAULT_LOAD.pauseEvery,
    };
    const onlyProviders = parseList(args.providers, '--providers', ['etcd', ...REDIS_PROVIDERS, ...POSTGRES_PROVIDERS]);
    const onlyScenarios = parseList(args.scenarios, '--scenarios', CONFORMANCE_SCENARIOS.map((s) => s.id));
    const redisUrl = args['redis-url'];
    const etcdEndpoints = args['etcd-endpoints'];
    let databaseUrl = args['database-url'];
    if (!redisUrl && !etcdEndpoints && !databaseUrl && !args['start-servers']) {
      throw new BadInputError('give at least one of --redis-url, --etcd-endpoints, --database-url, or --start-servers');
    }
    // Every named server answers before anything runs, each within the deadline.
    if (redisUrl) await preflightRedis(redisUrl, timeoutMs);
    if (etcdEndpoints) await preflightEtcd(etcdEndpoints, timeoutMs);
    if (databaseUrl) await preflightPostgres(databaseUrl, timeoutMs);

    const notes: string[] = [];
    const targets: Target[] = [];
    const wanted = (id: ProviderId) => !onlyProviders || onlyProviders.includes(id);
    const add = (id: ProviderId, address: string, label: string, serverName: string, restartServer?: () => Promise<void>) => {
      if (wanted(id)) targets.push({ spec: { id, address, label, operationTimeoutMs: timeoutMs }, serverName, ...(restartServer ? { restartServer } : {}) });
    };
    if (redisUrl) for (const id of REDIS_PROVIDERS) add(id, redisUrl, id, `the Redis at ${redisUrl.replace(/\/\/[^@]*@/, '//')}`);
    if (etcdEndpoints) add('etcd', etcdEndpoints, 'etcd', `the etcd at ${etcdEndpoints}`);

    if (args['start-servers']) {
      servers = new LocalServers();
      const wantsRedis = REDIS_PROVIDERS.some(wanted);
      if (wantsRedis && servers.binaries.redis) {
        for (const persistence of ['aof-always', 'none'] as const) {
          const started = await servers.startRedis(persistence);
          const suffix = persistence === 'aof-always' ? ' (AOF always)' : ' (no persistence)';
          for (const id of REDIS_PROVIDERS) add(id, started.url, `${id}${suffix}`, started.process.name, () => started.process.restart());
        }
      } else if (wantsRedis) notes.push('redis-server is not installed, so no Redis was started (Debian: apt-get install redis-server)');
      if (wanted('etcd') && servers.binaries.etcd) {
        const started = await servers.startEtcd();
        add('etcd', started.endpoint, 'etcd (started)', started.process.name, () => started.process.restart());
      } else if (wanted('etcd')) notes.push('etcd is not installed, so none was started (Debian: apt-get install etcd-server)');
      if (!databaseUrl && servers.binaries.postgresBinDir) {
        const started = await servers.startPostgres();
        databaseUrl = started.url;
        resource = await ProviderResource.open({ databaseUrl, poolSize: Math.min(load.workers, 16), timeoutMs });
        const scratch = resource.serverUrl!;
        for (const id of POSTGRES_PROVIDERS) add(id, scratch, `${id} (started)`, started.process.name, () => started.process.restart());
      } else if (!databaseUrl) notes.push('PostgreSQL is not installed, so none was started (Debian: apt-get install postgresql); the resource is PGlite');
    }
    if (!resource) {
      resource = await ProviderResource.open({ ...(databaseUrl ? { databaseUrl } : {}), poolSize: Math.min(load.workers, 16), timeoutMs });
      if (args['database-url']) for (const id of POSTGRES_PROVIDERS) add(id, resource.serverUrl!, id, `the PostgreSQL at ${resource.description}`);
    }
    if (!databaseUrl && !args['start-servers']) notes.push('no PostgreSQL given (--database-url): the PostgreSQL providers were not run and the resource is PGlite');
    if (targets.some((t) => !t.restartServer) && (!onlyScenarios || onlyScenarios.includes('restart'))) {
      notes.push('the restart scenario kills the server, so it runs only against servers this command started (--start-servers)');
    }
    if (targets.length === 0) throw new BadInputError('no provider left to run (check --providers against the servers given)');

    const rows: ProviderRow[] = [];
    for (const target of targets) {
      const provider = createProvider(target.spec);
      try {
        if (provider instanceof PostgresCounterProvider) await provider.install();
        const run: ConformanceRun = { provider, serverName: target.serverName, ...(target.restartServer ? { restartServer: target.restartServer } : {}) };
        rows.push(await runConformance(run, resource, { ...(onlyScenarios ? { scenarios: onlyScenarios } : {}), load }));
      } finally {
        await provider.close();
      }
    }
    const report: ProvidersReport = { verdict: overallStatus(rows), resource: resource.description, notes, providers: rows };
    await write(json ? `${JSON.stringify(report, null, 2)}\n` : args.markdown ? `${renderProvidersMarkdown(report)}\n` : `${renderProvidersText(report)}\n`);
    return report.verdict === 'pass' ? 0 : 1;
  } catch (error) {
    const message = error instanceof BadInputError ? error.message : `internal error: ${errorMessage(error)}`;
    if (json) await write(`${JSON.stringify({ verdict: 'bad-input', error: message }, null, 2)}\n`);
    process.stderr.write(`fencelint-check providers: ${message}\n`);
    return 2;
  } finally {
    await resource?.close().catch(() => {});
    await servers?.stopAll();
    process.removeListener('SIGINT', stopOnSignal);
    process.removeListener('SIGTERM', stopOnSignal);
  }
}

function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

function parseNumber(value: string | undefined, flag: string, min: number, max: number, fallback: number, whole = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n))) {
    throw new BadInputError(`${flag} wants ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function parseList<T extends string>(value: string | undefined, flag: string, known: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((v) => v.trim()).filter(Boolean);
  const unknown = items.filter((i) => !known.includes(i as T));
  if (items.length === 0 || unknown.length > 0) throw new BadInputError(`${flag}: unknown ${unknown.join(', ') || '(empty list)'}; known: ${known.join(', ')}`);
  return items as T[];
}
