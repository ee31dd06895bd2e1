import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runConformance, type ProviderRow } from '../../src/providers/conformance.js';
import type { ProviderId } from '../../src/providers/provider.js';
import { createProvider, REDIS_PROVIDERS } from '../../src/providers/registry.js';
import { ProviderResource } from '../../src/providers/resource.js';
import { LocalServers, type StartedRedis } from '../../src/providers/servers/local-servers.js';
import { describeWithServers } from './lock-servers.js';

const LOAD = { workers: 8, rounds: 25, timeLimitMs: 20_000, pauseEvery: 5 };

function status(row: ProviderRow, id: string) {
  return row.scenarios.find((s) => s.id === id);
}

describeWithServers('Redis providers against real redis-server', ['redis'], () => {
  let servers: LocalServers;
  let durable: StartedRedis;
  let volatile: StartedRedis;
  let resource: ProviderResource;

  beforeAll(async () => {
    servers = new LocalServers();
    durable = await servers.startRedis('aof-always');
    volatile = await servers.startRedis('none');
    // The resource on the suite's real PostgreSQL (DATABASE_URL, else the embedded server).
    resource = await ProviderResource.open({ databaseUrl: inject('databaseUrl'), timeoutMs: 5000 });
  });

  afterAll(async () => {
    await resource?.close();
    await servers?.stopAll();
  });

  async function run(id: ProviderId, server: StartedRedis, scenarios?: string[]): Promise<ProviderRow> {
    const provider = createProvider({ id, address: server.url, operationTimeoutMs: 3000 });
    try {
      return await runConformance({ provider, serverName: server.process.name, restartServer: () => server.process.restart() }, resource, {
        ...(scenarios ? { scenarios } : {}),
        load: LOAD,
      });
    } finally {
      await provider.close();
    }
  }

  for (const id of REDIS_PROVIDERS) {
    it(`${id} with AOF appendfsync always passes every scenario, the kill -9 restart included`, async () => {
      const row = await run(id, durable);
      for (const s of row.scenarios) expect({ id: s.id, status: s.status, reason: s.reason }).toMatchObject({ status: 'pass' });
      expect(row.server).toMatch(/AOF, appendfsync always/);
      const load = status(row, 'load')!.figures!;
      expect(load.fenced!.staleAccepted).toBe(0);
      // The paused holders really wrote late: the unfenced statement took their stale writes.
      expect(load.unfenced.staleAccepted).toBeGreaterThan(0);
      expect(load.fenced!.rejected).toBeGreaterThan(0);
    }, 120_000);

    it(`${id} without persistence repeats a token after a restart, and the check reports it`, async () => {
      const row = await run(id, volatile, ['restart', 'expiry-while-paused']);
      const restart = status(row, 'restart')!;
      expect(restart.status).toBe('fail');
      expect(restart.reason).toMatch(/issued token 1, not above 3 issued before: the token repeats/);
      expect(restart.reason).toMatch(/no persistence/);
      expect(status(row, 'expiry-while-paused')!.status).toBe('pass');
    }, 60_000);
  }

  it('the restart scenario is not applicable to a server the run did not start', async () => {
    const provider = createProvider({ id: 'redis', address: durable.url, operationTimeoutMs: 3000 });
    const row = await runConformance({ provider, serverName: 'the Redis at ' + durable.url }, resource, { scenarios: ['restart'], load: LOAD });
    await provider.close();
    expect(status(row, 'restart')).toMatchObject({ status: 'not-applicable', reason: expect.stringMatching(/--start-servers/) });
  });
});
