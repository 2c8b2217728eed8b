/**
 * The Teltonika gateway: TCP and UDP on one port (as the devices' "server port" setting expects),
 * and optionally TLS on its own port for trackers configured for it. A tracker's IMEI is an
 * identifier, not a secret: anyone who knows one can send records as that vehicle over plain
 * TCP or UDP (README, "Trackers"). TLS keeps it off the wire.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { DatagramsBesideSessions } from '../datagrams-beside-sessions.js';
import type { TrackerTransport } from '../gateway-metrics.js';
import { listenTcp } from '../listen-tcp.js';
import type { TrackerListener, TrackerListenerContext, TrackerListenSettings } from '../tracker-protocol-module.js';
import { TeltonikaConnection } from './connection.js';
import { TeltonikaUdpHandler } from './udp-listener.js';

function bind(socket: UdpSocket, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** TCP and UDP on `settings.port`, TLS on its own port when configured; logs where it listens. */
export async function startTeltonikaListener(settings: TrackerListenSettings, context: TrackerListenerContext): Promise<TrackerListener> {
  const { cap, host, ...deps } = context;
  // Every socket, logged in or not, so closing the gateway does not wait out login timeouts.
  const sockets = new Set<Socket>();
  const accept = (transport: TrackerTransport) => (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new TeltonikaConnection(socket, transport, deps);
  };
  const tcp = createServer((socket) => {
    if (cap.admit(socket, { protocol: 'teltonika', transport: 'tcp' })) accept('tcp')(socket);
  });
  const tls = settings.tls
    ? createTlsServer({ cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) }, accept('tls'))
    : undefined;
  // Capped on the plain socket, before the handshake: a refused connection costs no TLS work.
  tls?.on('connection', (socket: Socket) => {
    if (!cap.admit(socket, { protocol: 'teltonika', transport: 'tls' })) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  udp.on('error', (error) => deps.logger.warn({ err: error }, 'Teltonika UDP socket error'));
  const servers: Server[] = [];
  try {
    const port = await listenTcp(tcp, settings.port, host);
    servers.push(tcp);
    cap.guard(tcp, 'teltonika tcp');
    await bind(udp, port, host);
    const besideSessions = new DatagramsBesideSessions(deps.sessions, deps.metrics, deps.logger, () => deps.lookup.now());
    const udpHandler = new TeltonikaUdpHandler(udp, deps.lookup, deps.intake, deps.metrics, deps.logger, besideSessions);
    const tlsPort = tls ? await listenTcp(tls, settings.tls!.port, host) : undefined;
    if (tls) {
      servers.push(tls);
      cap.guard(tls, 'teltonika tls');
    }
    deps.logger.info({ host, port, tlsPort }, 'Teltonika trackers: TCP and UDP listening');
    return {
      port,
      tlsPort,
      close: async () => {
        const closing = servers.map(closeServer);
        deps.sessions.closeAll();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => udp.close(() => resolve()));
        await udpHandler.drained();
        await Promise.all(closing);
      },
    };
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    try { udp.close(); } catch { /* never bound */ }
    throw error;
  }
}
