import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 between one client and its server, to lose the connection on
 * purpose. `partition()` stops moving bytes both ways while the sockets stay open (a network
 * partition: the client's keep-alives go nowhere and nothing tells it); `heal()` delivers what
 * waited; `cut()` closes every connection (the server sees the client go).
 */
export class PartitionProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<[Socket, Socket]>();
  private partitioned = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<{ host: string; port: number }> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.partitioned) {
        client.pause();
        upstream.pause();
      }
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return { host: '127.0.0.1', port: this.port };
  }

  partition(): void {
    this.partitioned = true;
    for (const [a, b] of this.pairs) {
      a.unpipe(b);
      b.unpipe(a);
      a.pause();
      b.pause();
    }
  }

  heal(): void {
    this.partitioned = false;
    for (const [a, b] of this.pairs) {
      a.pipe(b);
      b.pipe(a);
      a.resume();
      b.resume();
    }
  }

  cut(): void {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
