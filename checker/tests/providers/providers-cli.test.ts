import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalServers, type StartedEtcd, type StartedRedis } from '../../src/providers/servers/local-servers.js';
import { runCli } from '../cli.js';
import { describeWithServers } from './lock-servers.js';

/** Exit 2 with a message, within the stated --timeout (2 s) plus the time to load the command. */
async function expectBadInput(args: string[], message: RegExp): Promise<void> {
  const began = Date.now();
  const result = await runCli(['providers', ...args, '--timeout', '2']);
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
  expect(Date.now() - began).toBeLessThan(15_000);
}

describe('fencelint-check providers: bad input', () => {
  let silent: Server;
  let silentPort: number;
  const open = new Set<Socket>();

  beforeAll(async () => {
    // Accepts every connection and never says a word.
    silent = createServer((socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });

  afterAll(() => {
    for (const socket of open) socket.destroy();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('asks for a server when none is given', () => expectBadInput([], /give at least one of --redis-url/));
  it('a Redis that is down', () => expectBadInput(['--redis-url', 'redis://127.0.0.1:1'], /Redis at 127\.0\.0\.1:1: connection refused/));
  it('an etcd that is down', () => expectBadInput(['--etcd-endpoints', '127.0.0.1:1'], /etcd at 127\.0\.0\.1:1: connection refused/));
  it('a PostgreSQL that is down', () => expectBadInput(['--database-url', 'postgres://u@127.0.0.1:1/db'], /PostgreSQL at 127\.0\.0\.1:1\/db: connection refused/));
  it('a Redis port that accepts and never answers', () =>
    expectBadInput(['--redis-url', `redis://127.0.0.1:${silentPort}`], /no answer within 2 s: the port accepts connections/));
  it('an etcd port that accepts and never answers', () =>
    expectBadInput(['--etcd-endpoints', `127.0.0.1:${silentPort}`], /no answer within 2 s/));
  it('a PostgreSQL port that accepts and never answers', () =>
    expectBadInput(['--database-url', `postgres://u@127.0.0.1:${silentPort}/db`], /no answer within 2 s/));
  it('a URL of the wrong kind', () => expectBadInput(['--redis-url', 'http://127.0.0.1:6379'], /not a Redis URL/));
  it('an endpoint without a port', () => expectBadInput(['--etcd-endpoints', 'localhost'], /not an etcd endpoint/));
  it('more than 32 workers', () => expectBadInput(['--redis-url', 'redis://127.0.0.1:1', '--workers', '33'], /--workers wants a whole number from 1 to 32/));
  it('an unknown scenario', () => expectBadInput(['--redis-url', 'redis://127.0.0.1:1', '--scenarios', 'nope'], /--scenarios: unknown nope/));
});

describeWithServers('fencelint-check providers against servers', ['redis', 'etcd'], () => {
  let servers: LocalServers;
  let redis: StartedRedis;
  let etcd: StartedEtcd;

  beforeAll(async () => {
    servers = new LocalServers();
    redis = await servers.startRedis('none');
    etcd = await servers.startEtcd();
  });

  afterAll(() => servers?.stopAll());

  it('TLS to a plain Redis: exit 2, names the mismatch', () =>
    expectBadInput(['--redis-url', redis.url.replace('redis://', 'rediss://')], /Redis at 127\.0\.0\.1:\d+ \(TLS\): .*(TLS|closed the connection|no answer)/));

  it('TLS to a plain etcd: exit 2', () => expectBadInput(['--etcd-endpoints', `https://${etcd.endpoint}`], /cannot use etcd at https:/));

  it('the Redis port given as etcd (wrong port): exit 2', () =>
    expectBadInput(['--etcd-endpoints', redis.url.replace('redis://', '')], /cannot use etcd at 127\.0\.0\.1:\d+/));

  it("a user's Redis: the table, restart not applicable, as text, JSON and Markdown", async () => {
    const args = ['providers', '--redis-url', redis.url, '--providers', 'redis', '--scenarios', 'revoke,restart'];
    const text = await runCli(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^redis\s+pass\s+n\/a/m);
    expect(text.stdout).toMatch(/n\/a  restart\s+restarts the server: runs only against servers this command started \(--start-servers\)/);

    const json = await runCli([...args, '--json']);
    const report = JSON.parse(json.stdout);
    expect(report.verdict).toBe('pass');
    expect(report.providers[0].scenarios.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['revoke', 'pass'],
      ['restart', 'not-applicable'],
    ]);
    expect(report.providers[0].server).toMatch(/no persistence/);

    const markdown = await runCli([...args, '--markdown']);
    expect(markdown.stdout).toMatch(/\| provider \| revoke \| restart \|/);
    expect(markdown.stdout).toMatch(/\| redis \| ✅ pass \| ➖ n\/a \|/);
  }, 60_000);

  it('--start-servers: the Redis without persistence fails the restart, with AOF it passes; exit 1', async () => {
    const result = await runCli(['providers', '--start-servers', '--providers', 'redis,etcd', '--scenarios', 'restart', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    const restart = (label: string) => report.providers.find((p: { provider: string }) => p.provider === label).scenarios[0];
    expect(restart('redis (AOF always)').status).toBe('pass');
    expect(restart('redis (no persistence)')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/token repeats/) });
    expect(restart('etcd (started)').status).toBe('pass');
  }, 120_000);
});
