/** Starting a TCP (or TLS) server of a tracker listener: a taken port rejects instead of throwing later. */
import type { AddressInfo, Server } from 'node:net';

/** Listens on `port` (0: any) of `host` and resolves with the port taken. */
export function listenTcp(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
