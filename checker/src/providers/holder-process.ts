/**
 * A lock holder in a process of its own, so that a pause is a real one: SIGSTOP freezes the
 * holder and everything its library does for it (etcd3's keep-alive stream, redis-semaphore's
 * refresh timer), as a stop-the-world GC pause or a stalled VM would. Driven by holder.ts
 * over the IPC channel; the spec comes as the first argument.
 */
import type { LockClient, ProviderLease, ProviderSpec } from './provider.js';
import { createProvider } from './registry.js';

interface Request {
  id: number;
  op: 'acquire' | 'release' | 'extend' | 'told-lost' | 'close';
  key?: string;
  ttlMs?: number;
  ownerId?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ProviderSpec;
const provider = createProvider(spec);
let client: LockClient | undefined;
let lease: ProviderLease | null = null;

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'acquire':
      client ??= await provider.connect();
      lease = await client.acquire(request.key!, request.ttlMs!, request.ownerId!);
      return lease;
    case 'release':
      return lease && client ? ((await client.release(lease)) ?? null) : false;
    case 'extend':
      return lease && client?.extend ? client.extend(lease) : null;
    case 'told-lost':
      return lease && client?.toldLost ? client.toldLost(lease) : null;
    case 'close':
      await client?.close();
      await provider.close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

process.on('message', (request: Request) => {
  handle(request).then(
    (value) => process.send?.({ id: request.id, ok: true, value }),
    (error: unknown) => process.send?.({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0)); // the parent is gone
