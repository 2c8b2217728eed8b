/** The API's HTTP application as `serve` builds it from the configuration. */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfig } from '../config/settings.js';
import { geofenceWatchSettingsOf, oidcSettingsOf, userSettingsOf } from '../config/component-settings.js';
import { parseBasemap, type Basemap } from '../domain/basemap.js';
import type { AppDeps } from '../http/app-deps.js';
import { buildApp } from '../http/build-app.js';
import { EVENT_STREAM_TIMING } from '../http/event-stream-route.js';
import type { SharedRateStore } from '../http/rate-limits.js';
import { RedisRateStore } from '../redis/redis-rate-store.js';
import type { KeyedParts } from './service-parts.js';

/** Every dependency of the HTTP layer, from the configuration and the process's parts. */
export function apiDepsOf(parts: KeyedParts, sharedRateStore?: SharedRateStore): AppDeps {
  const { config } = parts;
  return {
    store: parts.store, keyring: parts.keyring, clock: parts.clock, logger: parts.logger, connectors: parts.connectors, metrics: parts.metrics,
    webhooks: parts.webhooks, ingestQueue: parts.queue, readiness: parts.readiness, sharedRateStore, ingestSummary: undefined,
    tokenSettings: { issuer: config.jwtIssuer, audience: config.jwtAudience },
    bodyLimit: config.bodyLimit,
    telemetryRetentionMs: config.telemetryRetentionMs,
    tripLatenessMs: config.tripLateness,
    commandTimeoutMs: config.commandTimeoutMs,
    rateLimits: { tokenPerClient: config.tokenRateClient, tokenPerAddress: config.tokenRateAddress, commandPerApplication: config.commandRateApp, sharePerAddress: config.shareRateAddress },
    trustProxy: config.trustProxy,
    requestTimeoutMs: config.requestTimeout,
    connectionsPerAddress: config.connectionsPerAddress,
    eventStreams: { ...EVENT_STREAM_TIMING, perApplication: config.eventStreamsPerApp, recheckMs: config.eventStreamRecheck },
    alertRules: { maxPerCompany: config.maxAlertRulesPerCompany, movingSpeedKmh: config.tripMovingSpeed },
    vehicleStates: { offlineAfterMs: config.vehicleOfflineAfter, movingSpeedKmh: config.tripMovingSpeed },
    geofences: { maxPerCompany: config.maxGeofencesPerCompany, drift: geofenceWatchSettingsOf(config) },
    metricsOnApiPort: config.opsPort === undefined,
    docs: config.docs,
    console: config.console
      ? {
        sessions: { idleMs: config.consoleSessionIdle, maxMs: config.consoleSessionMax }, basemap: consoleBasemapOf(config),
        users: userSettingsOf(config), ...(config.oidcIssuer === undefined ? {} : { oidc: oidcSettingsOf(config) }),
      }
      : undefined,
  };
}

/** The app, with the rate limits shared through Redis when `--redis-url` is set. */
export async function buildApiApp(parts: KeyedParts): Promise<FastifyInstance> {
  const { config, logger } = parts;
  const sharedRateStore = config.redisUrl === undefined ? undefined : new RedisRateStore(config.redisUrl);
  if (sharedRateStore && !(await sharedRateStore.ready())) logger.warn('shared rate limits (Redis) not reachable at start: counting in this process until they are');
  const app = await buildApp(apiDepsOf(parts, sharedRateStore));
  if (sharedRateStore) app.addHook('onClose', () => sharedRateStore.close());
  return app;
}

/** The console's basemap setting, a `.pmtiles` path resolved against the working directory. */
function consoleBasemapOf(config: ServiceConfig): Basemap | null {
  const basemap = config.consoleBasemap === undefined ? undefined : parseBasemap(config.consoleBasemap);
  if (basemap === undefined) return null;
  return basemap.kind === 'pmtiles' ? { ...basemap, file: resolve(basemap.file) } : basemap;
}
