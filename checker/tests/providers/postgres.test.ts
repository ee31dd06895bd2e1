import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runConformance, type ProviderRow } from '../../src/providers/conformance.js';
import { PostgresCounterProvider } from '../../src/providers/postgres-counter.js';
import { createProvider } from '../../src/providers/registry.js';
import { ProviderResource } from '../../src/providers/resource.js';
import { LocalServers } from '../../src/providers/servers/local-servers.js';

const LOAD = { workers: 8, rounds: 25, timeLimitMs: 20_000, pauseEvery: 5 };

// A server started here (so the restart scenario can kill it) when the machine has Debian's
// PostgreSQL; otherwise the suite's own server (DATABASE_URL, else the embedded one), without the restart.
describe('PostgreSQL providers against a real server', () => {
  let servers: LocalServers | undefined;
  let resource: ProviderResource;
  let restartServer: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    let url = inject('databaseUrl');
    const local = new LocalServers();
    if (local.binaries.postgresBinDir) {
      servers = local;
      const started = await servers.startPostgres();
      url = started.url;
      restartServer = () => started.process.restart();
    } else {
      await local.stopAll();
    }
    resource = await ProviderResource.open({ databaseUrl: url, timeoutMs: 5000, poolSize: 8 });
  });

  afterAll(async () => {
    await resource?.close();
    await servers?.stopAll();
  });

  const status = (row: ProviderRow, id: string) => row.scenarios.find((s) => s.id === id)!;

  it('the fence_authority counter passes every scenario', async () => {
    const provider = createProvider({ id: 'postgres-counter', address: resource.serverUrl!, operationTimeoutMs: 3000 }) as PostgresCounterProvider;
    await provider.install();
    const row = await runConformance({ provider, serverName: 'PostgreSQL', ...(restartServer ? { restartServer } : {}) }, resource, { load: LOAD });
    await provider.close();
    for (const s of row.scenarios) {
      if (s.id === 'restart' && !restartServer) expect(s.status).toBe('not-applicable');
      else expect({ id: s.id, status: s.status, reason: s.reason }).toMatchObject({ status: 'pass' });
    }
    expect(status(row, 'load').figures!.fenced!.staleAccepted).toBe(0);
    expect(status(row, 'load').figures!.unfenced.staleAccepted).toBeGreaterThan(0);
  }, 120_000);

  it('advisory locks are reported as carrying no token', async () => {
    const provider = createProvider({ id: 'postgres-advisory', address: resource.serverUrl!, operationTimeoutMs: 3000 });
    const row = await runConformance({ provider, serverName: 'PostgreSQL', ...(restartServer ? { restartServer } : {}) }, resource, {
      scenarios: ['expiry-while-paused', 'keep-alive', 'revoke', 'connection-loss', 'old-handle-release', 'load'],
      load: LOAD,
    });
    await provider.close();
    expect(row.tokenSource).toBeNull();
    expect(status(row, 'expiry-while-paused')).toMatchObject({ status: 'not-applicable', reason: expect.stringMatching(/no TTL/) });
    expect(status(row, 'keep-alive').status).toBe('pass');
    expect(status(row, 'revoke')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/no fence token/) });
    expect(status(row, 'connection-loss')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/connection closed.*no fence token/) });
    expect(status(row, 'old-handle-release').status).toBe('pass');
    expect(status(row, 'load')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/fenced: the lock carries no fence token/) });
  }, 120_000);
});
