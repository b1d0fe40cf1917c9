// A TCP proxy in front of the apiserver, so a test can cut the CCM's connections the way a network failure or an
// apiserver restart does: reset every open connection, or refuse new ones for a while. TLS passes through
// untouched (the apiserver's certificate is valid for 127.0.0.1, where the proxy listens too).
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly port: number;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  connections = 0;

  private constructor(server: Server, port: number) {
    this.server = server;
    this.port = port;
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const handlers: ((client: Socket) => void)[] = [];
    const server = createServer((client) => handlers[0]?.(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy: no port');
    const proxy = new TcpProxy(server, address.port);
    handlers.push((client) => proxy.accept(client, targetHost, targetPort));
    return proxy;
  }

  /** Destroys every open connection (both directions), like a reset from the network. */
  resetAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** While refusing, new connections are closed at once and open ones are reset. */
  refuse(on: boolean): void {
    this.refusing = on;
    if (on) this.resetAll();
  }

  get open(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    this.resetAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    this.connections++;
    const upstream = connect(port, host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }
}
