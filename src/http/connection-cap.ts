import type { Server, Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { addressKey } from '../domain/client-address.js';

/**
 * At most `cap` open connections per client address: a client opening connections and keeping
 * them busy (slow headers, slow bodies) cannot take the sockets of everyone else. Connections
 * over the cap are closed before a byte is read. Trusted proxies are exempt, since every client
 * behind them shares their address.
 */
export function capConnectionsPerAddress(server: Server, cap: number, exempt: (address: string) => boolean, logger: FastifyBaseLogger): void {
  const open = new Map<string, number>();
  let lastWarning = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || exempt(address)) return;
    // An IPv6 host holds a /64: counted as one.
    const key = addressKey(address);
    const count = (open.get(key) ?? 0) + 1;
    if (count > cap) {
      // One line a minute at most: a flood must not become a flood of log lines.
      const now = Date.now();
      if (now - lastWarning > 60_000) {
        lastWarning = now;
        logger.warn({ address: key, cap }, 'connection refused: too many open connections from one address');
      }
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
