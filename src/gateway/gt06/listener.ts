/**
 * The GT06/Concox gateway: plain TCP on one port, as the devices' `SERVER,…#` setting expects (no
 * GT06 speaks TLS or UDP). A tracker's IMEI is an identifier, not a secret: anyone who knows one
 * can send positions as that vehicle (README, "Trackers"). One set of server flags serves every
 * connection of the listener, so no answer can be taken for a command sent on another connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { listenTcp } from '../listen-tcp.js';
import type { TrackerListener, TrackerListenerContext, TrackerListenSettings } from '../tracker-protocol-module.js';
import { ServerFlags } from './commands.js';
import { Gt06Connection } from './connection.js';

const LABELS = { protocol: 'gt06', transport: 'tcp' } as const;

/** TCP on `settings.port`; logs where it listens. */
export async function startGt06Listener(settings: TrackerListenSettings, context: TrackerListenerContext): Promise<TrackerListener> {
  const { cap, host, ...deps } = context;
  const flags = new ServerFlags();
  // Every socket, logged in or not, so closing the gateway does not wait out login timeouts.
  const sockets = new Set<Socket>();
  const tcp = createServer((socket) => {
    if (!cap.admit(socket, LABELS)) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new Gt06Connection(socket, { ...deps, flags });
  });
  const port = await listenTcp(tcp, settings.port, host);
  cap.guard(tcp, 'gt06 tcp');
  deps.logger.info({ host, port }, 'GT06 trackers: TCP listening');
  return {
    port,
    tlsPort: undefined,
    close: async () => {
      const closing = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}
