import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on 127.0.0.1 in front of a shared server (the test PostgreSQL or Redis), which a test can take
 * away (connections refused, as while the server restarts), freeze (connections held open, nothing passed on,
 * as a hung server or a lost network) and bring back on the same port, without touching the server itself.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  /** The relay's port (0 until the first `up()`), kept across `down()` and `up()`. */
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A relay in front of the host and port of `url` (`postgres://...`, `redis://...`). */
  static forUrl(url: string, defaultPort: number): TcpRelay {
    const parsed = new URL(url);
    return new TcpRelay(parsed.hostname, Number(parsed.port || defaultPort));
  }

  /** `url` with its host and port replaced by the relay's. */
  urlThrough(url: string): string {
    const parsed = new URL(url);
    parsed.host = `127.0.0.1:${this.port}`;
    return parsed.toString();
  }

  /** Listens (again) and passes data on both ways. */
  async up(): Promise<void> {
    this.frozen = false;
    const server = createServer((client) => {
      const upstream = netConnect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (d) => {
        if (!this.frozen) upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (!this.frozen) client.write(d);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  /** Stops listening and cuts every connection: new ones are refused until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** Keeps connections open but passes nothing on (until `down()`). */
  freeze(): void {
    this.frozen = true;
  }
}
