import { createServer, type Server } from 'node:net';

/** A loopback TCP port nothing listens on right now, for a child process to take. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` distinct such ports. Each is held until all are found: ports found one after another,
 * each closed at once, can repeat (a nats-server once got the same port for clients and routes,
 * and exited).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      ports.push(await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
      }));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(r) : r(undefined)))));
  }
}
