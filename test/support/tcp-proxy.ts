/**
 * A TCP proxy the test can cut, to take a database away from a service and give it back (what a
 * restart, a failover or a network partition looks like from the service): `cut()` drops every
 * connection and stops listening, so connects are refused; `restore()` listens again on the same port.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  constructor(targetHost: string, targetPort: number) {
    this.#target = { host: targetHost, port: targetPort };
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    const server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.#port = (server.address() as { port: number }).port;
    return this.#port;
  }

  /** The database is gone: open connections die, new ones are refused. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  restore(): Promise<number> {
    return this.listen();
  }

  close(): Promise<void> {
    return this.cut();
  }
}
