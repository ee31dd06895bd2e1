import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { redact } from '../backend/postgres.js';
import { BadInputError, errorMessage } from '../errors.js';
import { formatSeconds, withDeadline } from './deadline.js';
import { parseEtcdEndpoints } from './etcd.js';
import { parseRedisUrl } from './redis-connection.js';

/**
 * One round trip to each server the user named, before any scenario runs, each within
 * `timeoutMs`: a server that is down, on the wrong port, speaking TLS when the client does not
 * (or the other way round), or accepting the connection and never answering, becomes one clear
 * BadInputError (exit 2) instead of a hang or a wall of retries.
 */
export async function preflightRedis(url: string, timeoutMs: number): Promise<void> {
  let endpoint;
  try {
    endpoint = parseRedisUrl(url);
  } catch (error) {
    throw new BadInputError(`--redis-url: ${errorMessage(error)}`);
  }
  const where = `Redis at ${endpoint.host}:${endpoint.port}${endpoint.tls ? ' (TLS)' : ''}`;
  let lastError: unknown;
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    ...(endpoint.tls ? { tls: {} } : {}),
  });
  redis.on('error', (error) => (lastError = error));
  try {
    await withDeadline(redis.connect().then(() => redis.ping()), timeoutMs, where);
  } catch (error) {
    throw new BadInputError(`cannot use ${where}: ${explain(lastError ?? error, timeoutMs, endpoint.tls ? 'rediss' : 'redis')}`);
  } finally {
    redis.disconnect();
  }
}

export async function preflightEtcd(endpoints: string, timeoutMs: number): Promise<void> {
  let hosts: string[];
  try {
    hosts = parseEtcdEndpoints(endpoints);
  } catch (error) {
    throw new BadInputError(`--etcd-endpoints: ${errorMessage(error)}`);
  }
  const where = `etcd at ${hosts.join(',')}`;
  const client = new Etcd3({
    hosts,
    dialTimeout: timeoutMs,
    defaultCallOptions: () => ({ deadline: Date.now() + timeoutMs }),
    faultHandling: { global: noop, host: () => noop },
  });
  try {
    await withDeadline(client.maintenance.status(), timeoutMs + 500, where);
  } catch (error) {
    throw new BadInputError(`cannot use ${where}: ${explain(error, timeoutMs, hosts.some((h) => h.startsWith('https')) ? 'https' : 'http')}`);
  } finally {
    client.close();
  }
}

export async function preflightPostgres(url: string, timeoutMs: number): Promise<void> {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error('it must start with postgres://');
  } catch (error) {
    throw new BadInputError(`--database-url "${redact(url)}" is not a PostgreSQL URL: ${errorMessage(error)}`);
  }
  const where = `PostgreSQL at ${redact(url)}`;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await withDeadline(
      client.connect().then(() => client.query('SELECT 1')),
      timeoutMs + 500,
      where,
    );
  } catch (error) {
    throw new BadInputError(`cannot use ${where}: ${explain(error, timeoutMs, /sslmode=(require|verify)/.test(url) ? 'tls' : 'plain')}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** One line a user can act on, from whatever the client library threw. */
function explain(error: unknown, timeoutMs: number, scheme: string): string {
  const message = errorMessage(error);
  const code = (error as { code?: string })?.code ?? '';
  if (code === 'ECONNREFUSED' || /ECONNREFUSED|Connection refused|No connection established/i.test(message)) return 'connection refused: nothing listens there (server down or wrong port)';
  if (code === 'ENOTFOUND' || /ENOTFOUND|getaddrinfo/.test(message)) return 'the host name does not resolve';
  if (/wrong version number|SSL routines|tls|ssl|certificate|handshake/i.test(message)) {
    return `TLS handshake failed (${message.split('\n')[0]}): the client and the server disagree on TLS; ${scheme === 'rediss' || scheme === 'https' || scheme === 'tls' ? 'the server may not speak TLS (drop rediss:// / https:// / sslmode)' : 'the server may want TLS (rediss://, https://, sslmode=require)'}`;
  }
  if (error && (error as Error).name === 'NoAnswerError' || /timeout|timed out|deadline|no answer/i.test(message)) {
    return `no answer within ${formatSeconds(timeoutMs)}: the port accepts connections but does not answer this protocol (another kind of server, or it expects TLS${scheme === 'rediss' || scheme === 'https' ? ' and gets none, or the reverse' : ''})`;
  }
  if (/Connection is closed|ECONNRESET|socket hang up|Connection terminated|closed/i.test(message)) return `the server closed the connection (${message.split('\n')[0]}): another kind of server, or a TLS mismatch`;
  return message.split('\n')[0];
}
