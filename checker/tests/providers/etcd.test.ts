import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runConformance } from '../../src/providers/conformance.js';
import { createProvider } from '../../src/providers/registry.js';
import { ProviderResource } from '../../src/providers/resource.js';
import { LocalServers, type StartedEtcd } from '../../src/providers/servers/local-servers.js';
import { describeWithServers } from './lock-servers.js';

describeWithServers('etcd provider against a real etcd', ['etcd'], () => {
  let servers: LocalServers;
  let etcd: StartedEtcd;
  let resource: ProviderResource;

  beforeAll(async () => {
    servers = new LocalServers();
    etcd = await servers.startEtcd();
    // The resource on the suite's real PostgreSQL (DATABASE_URL, else the embedded server).
    resource = await ProviderResource.open({ databaseUrl: inject('databaseUrl'), timeoutMs: 5000 });
  });

  afterAll(async () => {
    await resource?.close();
    await servers?.stopAll();
  });

  it('passes every scenario: lease expiry, keep-alive, revoke, kill -9 and start, partition, old handle, load', async () => {
    const provider = createProvider({ id: 'etcd', address: etcd.endpoint, operationTimeoutMs: 3000 });
    const row = await runConformance({ provider, serverName: etcd.process.name, restartServer: () => etcd.process.restart() }, resource, {
      load: { workers: 8, rounds: 20, timeLimitMs: 30_000, pauseEvery: 5 },
    });
    await provider.close();
    for (const s of row.scenarios) expect({ id: s.id, status: s.status, reason: s.reason }).toMatchObject({ status: 'pass' });
    expect(row.tokenSource).toMatch(/revision/);
    const restart = row.scenarios.find((s) => s.id === 'restart')!;
    expect(restart.reason).toMatch(/before the kill, \d+ after the start/);
    const load = row.scenarios.find((s) => s.id === 'load')!.figures!;
    expect(load.fenced!.staleAccepted).toBe(0);
    expect(load.unfenced.staleAccepted).toBeGreaterThan(0);
  }, 180_000);
});
