/**
 * The `gateway` role: the tracker listeners that are configured (Teltonika TCP+UDP and TLS,
 * OsmAnd HTTP) and the dispatcher that sends commands to the trackers connected here. Several
 * gateway processes may share one database: each sends only to its own connections, and a
 * command is marked sent by exactly one of them.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import type { IntakeSettings } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';
import { startPeriodic } from '../workers/periodic.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { startOsmandListener, type OsmandListener } from './osmand/listener.js';
import { startTeltonikaListener, type TeltonikaListener } from './teltonika/listener.js';
import { readOpenFileLimit } from './open-file-limit.js';
import { TrackerConnectionCap, trackerConnectionLimitsOf } from './tracker-connection-cap.js';
import { TrackerCommandDispatcher } from './tracker-command-dispatcher.js';
import { IntakeGroups } from './intake-groups.js';
import { TrackerLookup } from './tracker-lookup.js';
import { TrackerSessions } from './tracker-sessions.js';

export interface GatewaySettings {
  readonly host: string;
  readonly teltonikaPort: number | undefined;
  readonly teltonikaTls: { readonly port: number; readonly certFile: string; readonly keyFile: string } | undefined;
  readonly osmandPort: number | undefined;
  readonly intake: IntakeSettings;
  readonly movingSpeedKmh: number;
  /** A tracker that has not logged in by then is closed. */
  readonly loginTimeoutMs: number;
  /** A logged-in tracker silent for this long is closed (it reconnects when it has data). */
  readonly idleTimeoutMs: number;
  /** How often unsent commands are looked for. */
  readonly commandIntervalMs: number;
  /** `--tracker-connections` (undefined: sized from the open-file limit) and `--tracker-connections-per-address` (0: none). */
  readonly connections: { readonly total: number | undefined; readonly perAddress: number };
}

export interface RunningGateway {
  readonly teltonikaPort: number | undefined;
  readonly teltonikaTlsPort: number | undefined;
  readonly osmandPort: number | undefined;
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
  let teltonika: TeltonikaListener | undefined;
  let osmand: OsmandListener | undefined;
  try {
    const teltonikaPort = settings.teltonikaPort;
    if (teltonikaPort !== undefined) {
      teltonika = await inUseSays('--teltonika-port / --teltonika-tls-port', () => startTeltonikaListener(
        { host: settings.host, port: teltonikaPort, tls: settings.teltonikaTls },
        { lookup, intake, sessions, metrics, logger, loginTimeoutMs: settings.loginTimeoutMs, idleTimeoutMs: settings.idleTimeoutMs },
        cap,
      ));
      logger.info({ host: settings.host, port: teltonika.port, tlsPort: teltonika.tlsPort }, 'Teltonika trackers: TCP and UDP listening');
    }
    const osmandPort = settings.osmandPort;
    if (osmandPort !== undefined) {
      osmand = await inUseSays('--osmand-port', () => startOsmandListener(settings.host, osmandPort, lookup, intake, metrics, cap, logger));
      logger.info({ host: settings.host, port: osmand.port }, 'OsmAnd trackers: HTTP listening');
    }
  } catch (error) {
    await teltonika?.close();
    throw error;
  }
  const dispatcher = new TrackerCommandDispatcher(store, sessions, clock, { movingSpeedKmh: settings.movingSpeedKmh, intervalMs: settings.commandIntervalMs }, metrics, logger);
  const stopDispatcher = teltonika ? startPeriodic(dispatcher.periodicWorker(), { logger }) : undefined;
  return {
    teltonikaPort: teltonika?.port,
    teltonikaTlsPort: teltonika?.tlsPort,
    osmandPort: osmand?.port,
    sessions,
    close: async () => {
      await stopDispatcher?.();
      await teltonika?.close();
      await osmand?.close();
      await dispatcher.settle();
      await intake.settle();
    },
  };
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
    logger.warn({ configured: settings.connections.total, openFiles: limit?.soft, trackerConnections: limits.total }, '--tracker-connections is more than the open-file limit allows with descriptors kept for the API: lowered; raise the limit (LimitNOFILE, ulimit -n) for more');
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
