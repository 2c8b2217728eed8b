/**
 * The settings each component takes, shaped from the configuration: the one place a setting's
 * name in SETTINGS meets the name its component gives it.
 */
import { DEFAULT_USER_SETTINGS, type UserSettings } from '../users/user-deps.js';
import type { OidcSettings } from '../users/oidc-sign-in.js';
import type { ServiceConfig } from './settings.js';
import { isPostgresUrl } from '../domain/database-url.js';
import { trackerListenersOf } from '../gateway/tracker-ports.js';

/** How often `serve` runs the trip pass: a trip is seen ended within the lateness (1 min) plus this. */
export const TRIP_DETECTION_INTERVAL_MS = 5000;

/** How often `serve` runs the geofence evaluator: a transition reaches the outbox within about this. */
export const GEOFENCE_WATCH_INTERVAL_MS = 500;

/** The evaluator's drift rules (D13) as configured; `late` follows the trip lateness, moving the trip setting. */
export function geofenceWatchSettingsOf(config: ServiceConfig) {
  return {
    rules: { marginM: config.geofenceMargin, dwellMs: config.geofenceDwell, dwellRecords: config.geofenceDwellRecords, maxAccuracyM: config.geofenceMaxAccuracy },
    latenessMs: config.tripLateness,
    movingSpeedKmh: config.tripMovingSpeed,
    intervalMs: GEOFENCE_WATCH_INTERVAL_MS,
  };
}

/** The D9 thresholds and detection settings as configured. */
export function tripSettingsOf(config: ServiceConfig) {
  return {
    thresholds: {
      movingSpeedKmh: config.tripMovingSpeed, stopMs: config.tripStop, gapMs: config.tripGap,
      minDurationMs: config.tripMinDuration, minDistanceKm: config.tripMinDistance,
    },
    latenessMs: config.tripLateness,
    retentionMs: config.tripRetentionMs,
    intervalMs: TRIP_DETECTION_INTERVAL_MS,
  };
}

/** The servers of `--ingest-queue`; empty when one of them is not a nats:// or tls:// URL or host:port. */
export function queueServers(text: string): string[] {
  const servers = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return servers.every((s) => /^((nats|tls):\/\/)?[^\s/]+(:\d{1,5})?\/?$/.test(s)) ? servers : [];
}

/** The ingest queue's settings as configured; undefined without `--ingest-queue`. */
export function ingestQueueSettingsOf(config: ServiceConfig) {
  if (config.ingestQueue === undefined) return undefined;
  const servers = queueServers(config.ingestQueue);
  return {
    servers,
    partitions: config.ingestQueuePartitions,
    replicas: config.ingestQueueReplicas ?? (servers.length >= 3 ? 3 : 1),
    maxBytes: config.ingestQueueMaxSize * 1024 * 1024,
    maxAgeMs: config.ingestQueueMaxAge ?? config.telemetryRetentionMs,
    publishTimeoutMs: config.ingestQueuePublishTimeout,
    ackWaitMs: config.ingestQueueAckWait,
    auth: queueAuthOf(config),
    tls: config.ingestQueueTlsCa === undefined && config.ingestQueueTlsCert === undefined
      ? undefined : { caFile: config.ingestQueueTlsCa, certFile: config.ingestQueueTlsCert, keyFile: config.ingestQueueTlsKey },
  };
}

function queueAuthOf(config: ServiceConfig) {
  if (config.ingestQueueUser !== undefined && config.ingestQueuePassword !== undefined) return { kind: 'password', user: config.ingestQueueUser, password: config.ingestQueuePassword } as const;
  if (config.ingestQueueToken !== undefined) return { kind: 'token', token: config.ingestQueueToken } as const;
  if (config.ingestQueueNkeySeed !== undefined) return { kind: 'nkey', seed: config.ingestQueueNkeySeed.trim() } as const;
  if (config.ingestQueueCreds !== undefined) return { kind: 'creds', file: config.ingestQueueCreds } as const;
  return undefined;
}

/** A tracker that has not logged in (sent its IMEI) by then is closed: it holds a descriptor for nothing. */
const TRACKER_LOGIN_TIMEOUT_MS = 10_000;
/** How often a gateway looks for unsent tracker commands: a command waits at most this for its frame. */
const TRACKER_COMMAND_INTERVAL_MS = 250;
/** What one API client address is taken to hold where `--connections-per-address` is 0 (no cap): its default. */
const API_CONNECTIONS_KEPT = 256;

/**
 * Descriptors the default tracker cap leaves to the rest of the process besides its own: one API
 * client address's worth of connections (the most one client may hold) where this process serves
 * the API, and the PostgreSQL pool.
 */
function descriptorsKeptForOthers(config: ServiceConfig): number {
  const api = config.role.api ? (config.connectionsPerAddress > 0 ? config.connectionsPerAddress : API_CONNECTIONS_KEPT) : 0;
  return api + (isPostgresUrl(config.database) ? config.databasePoolSize : 0);
}

/** The tracker gateway's settings as configured. */
export function gatewaySettingsOf(config: ServiceConfig) {
  return {
    host: config.gatewayHost,
    listeners: trackerListenersOf(config),
    intake: { retentionMs: config.telemetryRetentionMs, tripLatenessMs: config.tripLateness },
    movingSpeedKmh: config.tripMovingSpeed,
    loginTimeoutMs: TRACKER_LOGIN_TIMEOUT_MS,
    idleTimeoutMs: config.trackerIdleTimeout,
    commandIntervalMs: TRACKER_COMMAND_INTERVAL_MS,
    connections: { total: config.trackerConnections, perAddress: config.trackerConnectionsPerAddress, keptForOthers: descriptorsKeptForOthers(config) },
  };
}

/** The people's settings: their passwords' hash cost and how long their set-password links work. */
export function userSettingsOf(config: ServiceConfig): UserSettings {
  return { passwordHashCost: config.passwordHashCost, passwordLinkLifetimeMs: config.passwordLinkLifetime, totpIssuer: DEFAULT_USER_SETTINGS.totpIssuer };
}

/** Single sign-on's settings, when `--oidc-issuer` is set (the cross-checks make sure the client id is too). */
export function oidcSettingsOf(config: ServiceConfig): OidcSettings {
  return {
    issuer: config.oidcIssuer!, companyId: config.oidcCompany!, clientId: config.oidcClientId!, clientSecret: config.oidcClientSecret,
    name: config.oidcName ?? new URL(config.oidcIssuer!).hostname, redirectUri: config.oidcRedirectUri,
  };
}
