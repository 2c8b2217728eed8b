/**
 * The `gateway` role: the tracker listeners that are configured (one per protocol in
 * TRACKER_PROTOCOLS whose port is set) and the dispatcher that sends commands to the trackers
 * connected here. Several gateway processes may share one database: each sends only to its own
 * connections, and a command is marked sent by exactly one of them.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { IntakeSettings } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';
import { startPeriodic } from '../workers/periodic.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { IntakeGroups } from './intake-groups.js';
import { readOpenFileLimit } from './open-file-limit.js';
import type { TrackerEndpoints } from './simulated-tracker.js';
import { TrackerConnectionCap, trackerConnectionLimitsOf, type ConfiguredTrackerConnections } from './tracker-connection-cap.js';
import { TrackerCommandDispatcher } from './tracker-command-dispatcher.js';
import { TrackerLookup } from './tracker-lookup.js';
import { portFlagsOf, type TrackerListeners } from './tracker-ports.js';
import type { ListeningTracker, TrackerListener, TrackerProtocolModule } from './tracker-protocol-module.js';
import { TRACKER_PROTOCOLS } from './tracker-protocols.js';
import { TrackerSessions } from './tracker-sessions.js';

export interface GatewaySettings {
  readonly host: string;
  /** Which protocols listen, and on which ports (tracker-ports.ts reads them from the configuration). */
  readonly listeners: TrackerListeners;
  readonly intake: IntakeSettings;
  readonly movingSpeedKmh: number;
  /** A tracker that has not logged in by then is closed. */
  readonly loginTimeoutMs: number;
  /** A logged-in tracker silent for this long is closed (it reconnects when it has data). */
  readonly idleTimeoutMs: number;
  /** How often unsent commands are looked for. */
  readonly commandIntervalMs: number;
  /** `--tracker-connections` (undefined: sized from the open-file limit), `--tracker-connections-per-address` (0: none), and what the rest of the process keeps. */
  readonly connections: ConfiguredTrackerConnections;
}

export interface RunningGateway {
  /** The listeners of the protocols that listen. */
  readonly listening: { readonly [P in DeviceProtocol]?: ListeningTracker };
  readonly sessions: TrackerSessions;
  close(): Promise<void>;
}

export async function startGateway(
  store: StoreConnection, clock: Clock, settings: GatewaySettings, registry: Registry, logger: Logger,
): Promise<RunningGateway> {
  const metrics = new GatewayMetrics(registry);
  const lookup = new TrackerLookup(store, clock, logger, { lastKnownDuringOutage: settings.intake.queue !== undefined });
  const intake = new IntakeGroups(store, clock, settings.intake);
  const sessions = new TrackerSessions();
  const cap = new TrackerConnectionCap(connectionLimits(settings, logger), metrics, logger);
  const context = { host: settings.host, lookup, intake, sessions, metrics, cap, logger, loginTimeoutMs: settings.loginTimeoutMs, idleTimeoutMs: settings.idleTimeoutMs };
  const started: { readonly module: TrackerProtocolModule; readonly listener: TrackerListener }[] = [];
  try {
    for (const module of TRACKER_PROTOCOLS) {
      const listen = settings.listeners[module.protocol];
      if (listen === undefined) continue;
      started.push({ module, listener: await inUseSays(portFlagsOf(module), () => module.listener.listen(listen, context)) });
    }
  } catch (error) {
    for (const { listener } of started) await listener.close();
    throw error;
  }
  const dispatcher = new TrackerCommandDispatcher(store, sessions, clock, { movingSpeedKmh: settings.movingSpeedKmh, intervalMs: settings.commandIntervalMs }, metrics, logger);
  const stopDispatcher = started.some(({ module }) => module.downlink !== null) ? startPeriodic(dispatcher.periodicWorker(), { logger }) : undefined;
  // Simulated devices dial this machine: over loopback when the listeners take every interface.
  const dial = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  return {
    listening: Object.fromEntries(started.map(({ module, listener }) => [
      module.protocol, { port: listener.port, tlsPort: listener.tlsPort, endpoint: module.listener.endpoint(dial, listener.port) },
    ])),
    sessions,
    close: async () => {
      await stopDispatcher?.();
      for (const { listener } of started) await listener.close();
      await dispatcher.settle();
      await intake.settle();
    },
  };
}

/** Where the simulated trackers of this process connect: its own listeners. */
export function trackerEndpointsOf(gateway: RunningGateway): TrackerEndpoints {
  return Object.fromEntries(Object.entries(gateway.listening).map(([protocol, listening]) => [protocol, listening.endpoint]));
}

/**
 * The connection caps, sized from the open-file limit and logged with it: an operator who sees
 * refusals finds here what the cap was and what raising the limit would allow.
 */
function connectionLimits(settings: GatewaySettings, logger: Logger) {
  const limit = readOpenFileLimit();
  const limits = trackerConnectionLimitsOf(settings.connections, limit);
  logger.info({ openFiles: limit ?? 'unknown', trackerConnections: limits.total, perAddress: limits.perAddress }, 'tracker connections capped');
  if (limits.lowered) {
    logger.warn({ configured: settings.connections.total, openFiles: limit, trackerConnections: limits.total }, '--tracker-connections is more than the open-file limit allows with descriptors kept for the API: lowered; raise the limit (LimitNOFILE, ulimit -n) for more');
  }
  // Node raised the soft limit to the hard one before any of this ran (node.cc, PlatformInit);
  // if it could not, the cap is sized from the lower one and the operator should know why.
  if (limit !== undefined && limit.soft < limit.hard) {
    logger.warn({ openFiles: limit }, 'the soft open-file limit is below the hard one although Node raises it at start: the tracker cap is sized from the soft one');
  }
  return limits;
}

/** A port already taken is an operator's fix: say which setting moves it. */
async function inUseSays<T>(setting: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
    if (e.code !== 'EADDRINUSE') throw error;
    throw new Error(`tracker port ${e.address ?? ''}:${e.port ?? '?'} is already in use (another service, or another telematics?): set ${setting} to a free port, or 0 for any`);
  }
}
