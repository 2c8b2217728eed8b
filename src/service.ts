/**
 * The composition root of `telematics serve`: opens the store, migrates, then runs the roles of
 * this process (`--role`): the API (keys, demo seed, HTTP app, the in-process simulation) and/or
 * the background workers, plus the operations listener when `--ops-port` is set. Only this file
 * and the CLI wire concrete parts.
 */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config/settings.js';
import { systemClock, type Clock } from './domain/clock.js';
import { isLoopbackHost } from './domain/dial-policy.js';
import { INITIATE_TIMEOUT_MS } from './domain/initiation.js';
import { buildApp } from './http/build-app.js';
import { parseBasemap, type Basemap } from './domain/basemap.js';
import { RedisRateStore } from './redis/redis-rate-store.js';
import { buildOpsApp } from './http/build-ops-app.js';
import { ServiceMetrics } from './http/metrics.js';
import { createLogger } from './logger.js';
import { loadKeyring } from './security/load-keyring.js';
import type { Keyring } from './security/keyring.js';
import { migrateToLatest } from './store/migrate.js';
import { unreachableMessage } from './store/classify-error.js';
import { openStore } from './store/open-store.js';
import { backgroundWritesSettled } from './store/write-batcher.js';
import type { StoreConnection } from './store/connection.js';
import { defaultKeysFile } from './config/derived-settings.js';
import { gatewaySettingsOf, ingestQueueSettingsOf, tripSettingsOf } from './config/component-settings.js';
import type { IngestQueue } from './queue/ingest-queue.js';
import type { RunningWriters } from './queue/telemetry-writers.js';
import { databaseAnswers } from './http/health-routes.js';
import type { ReadinessCheck } from './http/app-deps.js';
import { startGateway, trackerEndpointsOf, type RunningGateway } from './gateway/start-gateway.js';
import { TrackerCommandLink } from './gateway/tracker-command-link.js';
import { trackerListenersWanted } from './gateway/tracker-ports.js';
import { ConnectorRegistry } from './oem/connector-registry.js';
import type { SimulatedOemCloud } from './sim/simulated-oem-cloud.js';
import { startSimulatedCloud } from './sim/start-simulated-cloud.js';
import { demoBanner, seedDemo } from './sim/seed-demo.js';
import { demoEnvFile, writeDemoEnv } from './sim/demo-env-file.js';
import { startInProcessSimulation, type BackfillProgress, type InProcessSimulation } from './sim/run-in-process.js';
import { startBackgroundWorkers } from './start-background-workers.js';
import { WebhookMetrics } from './delivery/webhook-metrics.js';
import { ThreadedWebhookSender } from './delivery/threaded-webhook-sender.js';
import { WebhookSender } from './delivery/webhook-sender.js';
import { allowListOf, webhookDialPolicy } from './domain/webhook-url.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import type { WebhookDeps } from './webhooks/webhook-deps.js';
import type { WebhookTransport } from './webhooks/webhook-transport.js';
import { DEFAULT_WEBHOOK_TIMING } from './webhooks/webhook-settings.js';
import { describeRoles } from './workers/roles.js';
import type { StopLoop } from './workers/periodic.js';

export interface RunningService {
  /** The API app; undefined when this process does not run the `api` role. */
  readonly app: FastifyInstance | undefined;
  /** The API's URL; undefined without the `api` role. */
  readonly url: string | undefined;
  /** The operations listener's URL, when `--ops-port` is set. */
  readonly opsUrl: string | undefined;
  /** The in-process simulated fleet, when `sim` is on. */
  readonly simulation: InProcessSimulation | undefined;
  /** The tracker listeners, when this process has the gateway role and a tracker port is set. */
  readonly gateway: RunningGateway | undefined;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Where human-facing text (the demo banner) goes. */
  readonly print?: (text: string) => void;
  /** Progress of the simulator's backfill (the CLI draws a bar); not reported without one. */
  readonly progress?: BackfillProgress;
}

export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const store = openStore(config.database, { poolSize: config.databasePoolSize, watchRegistry: true, backgroundCheckpoints: true, sqliteSynchronous: config.sqliteSynchronous });
  let queue: IngestQueue | undefined;
  /** Set once `close` has run (a late start failure runs it): nothing is closed twice. */
  let stopped = false;
  try {
    const { applied } = await migrateToLatest(store).catch((error: unknown) => {
      const message = unreachableMessage(error, store.description);
      throw message === undefined ? error : new Error(message);
    });
    // What a SQLite commit survives, as the connection reads it back (README, "What a commit survives").
    const synchronous = store.sqliteSynchronous === undefined ? {} : { synchronous: store.sqliteSynchronous };
    logger.info({ database: store.description, applied, role: describeRoles(config.role), ...synchronous }, 'database ready');
    // D6: initiation inside the request is bounded by 10 s; a status poll by 5 s.
    const connectors = new ConnectorRegistry({
      initiateTimeoutMs: INITIATE_TIMEOUT_MS, pollTimeoutMs: 5_000,
      trackers: new TrackerCommandLink(store, clock, { commandTimeoutMs: config.commandTimeoutMs }),
    });
    const metrics = new ServiceMetrics();
    queue = await openIngestQueue(config, logger, metrics);
    // A gateway-only process loads no keys: nothing it does signs, verifies or opens a secret. A
    // workers process does: it signs webhooks with their endpoints' sealed secrets.
    const keyring = config.role.api || config.role.workers ? loadKeys(config, logger) : undefined;
    const webhookSender = keyring ? webhookSenderOf(config, logger) : undefined;
    const webhooks = keyring && webhookSender ? webhookDepsOf(config, store, keyring, clock, webhookSender) : undefined;
    const demo = config.demo && keyring && config.role.api ? await seedDemo(store.db, keyring, clock.now()) : undefined;
    const readiness = readinessOf(config, store, queue);
    const app = keyring && webhooks && config.role.api ? await buildApiApp(config, store, keyring, webhooks, connectors, metrics, clock, logger, queue, readiness) : undefined;
    const ops = config.opsPort === undefined ? undefined : await buildOpsApp({ store, logger, readiness }, metrics);
    let address: string | undefined;
    let opsUrl: string | undefined;
    let gateway: RunningGateway | undefined;
    try {
      // The API's Fastify has no logger (build-app.ts): its listening lines are written through ours.
      if (app) address = await app.listen({ port: config.port, host: config.host, listenTextResolver: listeningLine(logger) });
      if (ops) opsUrl = await ops.listen({ port: config.opsPort, host: config.opsHost });
      if (config.role.gateway && trackerListenersWanted(config)) {
        const settings = gatewaySettingsOf(config);
        gateway = await startGateway(store, clock, { ...settings, intake: { ...settings.intake, queue } }, metrics.registry, logger);
      }
    } catch (error) {
      await app?.close();
      await ops?.close();
      throw error;
    }
    if (opsUrl) logger.info({ url: opsUrl }, 'operations listener (/metrics, /healthz, /readyz)');
    else if (!app && !gateway) logger.info('no listener: set --ops-port to serve /healthz, /readyz and /metrics');
    else if (!isLoopbackHost(config.host)) logger.warn('/metrics is served on the API port, which listens beyond this machine: set --ops-port to move it to its own listener');
    let dispatcher: WebhookDispatcher | undefined;
    let stopWorkers: StopLoop | undefined;
    let writers: RunningWriters | undefined;
    let simulation: InProcessSimulation | undefined;
    let cloud: SimulatedOemCloud | undefined;
    const close = async () => {
      stopped = true;
      await simulation?.stop();
      await gateway?.close();
      await app?.close();
      // Status URLs of commands already answered `Pending` (create-command.ts), within a bound: a
      // write held by a lock must not keep the process from stopping.
      const unwritten = await backgroundWritesSettled(store, STATUS_URL_SETTLE_MS);
      if (unwritten > 0) logger.warn({ unwritten }, 'status URLs still being written at stop: those commands are initiated again (same Idempotency-Key) 15 s after they began');
      await ops?.close();
      await writers?.stop();
      await queue?.close();
      await stopWorkers?.();
      // Attempts under way get a few seconds to end and be written; one cut off keeps its lease,
      // which lapses, and is sent again (at least once). Claimed but unsent ones are given back.
      await dispatcher?.stop(WEBHOOK_SETTLE_MS);
      await webhookSender?.close();
      await cloud?.close();
      await store.close();
    };
    const url = address?.replace('[::1]', 'localhost');
    const endpoints = gateway && trackerEndpointsOf(gateway);
    try {
      writers = config.role.writers && queue
        ? await (await import('./queue/telemetry-writers.js')).startTelemetryWriters(queue, store, clock, gatewaySettingsOf(config).intake, logger, queue.metrics)
        : undefined;
      // The configuration allows `sim` only with both roles: its fleet pushes to this API and its
      // cloud is polled by this process's command worker.
      simulation = config.sim && keyring && url
        ? await startInProcessSimulation(store.db, keyring, clock, {
          ingestUrl: url, seed: config.simSeed, periodSeconds: config.simPeriod, backfillMs: config.simBackfill, glitchRate: config.simGlitchRate,
          trackers: endpoints,
        }, logger, options.progress)
        : undefined;
      if (simulation) {
        // Where the last start left it (a restart keeps its commands going), with a new secret only
        // this process holds: it listens on a real port that any local process could reach.
        const { simulator } = simulation;
        const started = await startSimulatedCloud(store.db, clock, (vin) => simulator.vehicle(vin), config.simSeed, logger);
        cloud = started.cloud;
        connectors.useSimulatedCloud(started.url, started.key);
        logger.info({ url: started.url }, 'simulated automaker cloud listening');
      }
      // Background work starts only once the service is up, so a failed start leaves nothing
      // running; and after the in-process simulated cloud listens, so that the command worker's
      // first pass, which initiates again the commands a crash left without a status URL, finds it.
      dispatcher = config.role.workers && webhooks ? new WebhookDispatcher(webhooks, logger, new WebhookMetrics(metrics.registry, store)) : undefined;
      stopWorkers = config.role.workers
        ? startBackgroundWorkers(store, connectors, clock, {
          telemetryRetentionMs: config.telemetryRetentionMs, trips: tripSettingsOf(config),
          eventRetentionMs: config.eventRetentionMs, presence: { offlineAfterMs: config.vehicleOfflineAfter },
        }, logger, dispatcher)
        : undefined;
      if (stopWorkers) logger.info('background workers started');
    } catch (error) {
      // A start that fails this late stops what it had started (listeners, workers) first.
      await close();
      throw error;
    }
    // Last of the start, so the credentials are not pushed off the screen by start-up lines. (With
    // JSON logs, not on a terminal, lines logged just before may still follow it, up to 10 ms late:
    // log-destination.ts.)
    if (demo && url && keyring) {
      const envFile = demoEnvFile(config.database);
      const trackers = { listening: gateway?.listening, console: config.console };
      if (envFile) writeDemoEnv(envFile, demo, url, keyring, trackers);
      print(demoBanner(demo, url, envFile, trackers));
    }
    return { app, url, opsUrl, simulation, gateway, close };
  } catch (error) {
    if (!stopped) {
      await queue?.close();
      await store.close();
    }
    throw error;
  }
}

/**
 * The ingest queue, for a process that queues (api, gateway) or stores (writers) telemetry. Its
 * client is loaded only then: every `telematics` command starts through this module.
 */
async function openIngestQueue(config: ServiceConfig, logger: Logger, metrics: ServiceMetrics): Promise<IngestQueue | undefined> {
  const settings = ingestQueueSettingsOf(config);
  if (!settings || !(config.role.api || config.role.gateway || config.role.writers)) return undefined;
  const [{ IngestQueue }, { QueueMetrics }] = await Promise.all([import('./queue/ingest-queue.js'), import('./queue/queue-metrics.js')]);
  return IngestQueue.open(settings, logger, new QueueMetrics(metrics.registry));
}

/**
 * What /readyz waits for. An edge (api, gateway) with the ingest queue is ready while the queue
 * is: it accepts telemetry while the database is down, which is the queue's point, and its other
 * requests answer 503 by themselves. A writers process needs both; without the queue, the database.
 */
function readinessOf(config: ServiceConfig, store: StoreConnection, queue: IngestQueue | undefined): ReadinessCheck[] {
  if (!queue) return [databaseAnswers(store)];
  const queueReady = () => queue.ready();
  return config.role.writers ? [databaseAnswers(store), queueReady] : [queueReady];
}

function loadKeys(config: ServiceConfig, logger: Logger): Keyring {
  const keys = loadKeyring({
    jwtKeys: config.jwtKeys, masterKeys: config.masterKeys, keysFile: config.keysFile,
    keysFileIsDefault: config.keysFile !== undefined && config.keysFile === defaultKeysFile(config.database),
  });
  logger.info({ source: keys.source, created: keys.created }, keys.created ? 'keys generated' : 'keys loaded');
  return keys.keyring;
}

const WEBHOOK_SETTLE_MS = 5000;
/** Longest a stop waits for status URLs still being written. */
const STATUS_URL_SETTLE_MS = 10_000;
/** Receivers see who calls them; the version is the interface's (openapi.ts). */
const WEBHOOK_USER_AGENT = 'telematics-webhooks/0.1';
/** Sends webhooks from `--webhook-send-threads` threads, or from the dispatcher's own with 0. */
function webhookSenderOf(config: ServiceConfig, logger: Logger): WebhookSender | ThreadedWebhookSender {
  const allowCidrs = config.webhookAllowCidrs ?? [];
  if (config.webhookSendThreads > 0) {
    return new ThreadedWebhookSender({
      threads: config.webhookSendThreads, allowCidrs, userAgent: WEBHOOK_USER_AGENT, queuedPerLane: 2 * DEFAULT_WEBHOOK_TIMING.perEndpointConcurrency,
      onThreadError: (error) => logger.error({ err: error }, 'webhook sending thread failed; what it had under way is sent again'),
    });
  }
  const allowList = allowListOf(allowCidrs);
  return new WebhookSender({
    policies: { 'https:': webhookDialPolicy(allowList, 'https:'), 'http:': webhookDialPolicy(allowList, 'http:') },
    userAgent: WEBHOOK_USER_AGENT,
  });
}

function webhookDepsOf(config: ServiceConfig, store: StoreConnection, keyring: Keyring, clock: Clock, transport: WebhookTransport): WebhookDeps {
  return {
    store, keyring, clock, transport,
    settings: {
      ...DEFAULT_WEBHOOK_TIMING, allowList: allowListOf(config.webhookAllowCidrs ?? []), hasAllowList: (config.webhookAllowCidrs ?? []).length > 0,
      timeoutMs: config.webhookTimeout, maxEndpointsPerApplication: config.webhookEndpointsPerApp, disableAfterMs: config.webhookDisableAfter,
      retentionMs: config.eventRetentionMs,
    },
  };
}

async function buildApiApp(
  config: ServiceConfig, store: StoreConnection, keyring: Keyring, webhooks: WebhookDeps, connectors: ConnectorRegistry, metrics: ServiceMetrics, clock: Clock, logger: Logger,
  ingestQueue: IngestQueue | undefined, readiness: readonly ReadinessCheck[],
): Promise<FastifyInstance> {
  const sharedRateStore = config.redisUrl === undefined ? undefined : new RedisRateStore(config.redisUrl);
  if (sharedRateStore && !(await sharedRateStore.ready())) logger.warn('shared rate limits (Redis) not reachable at start: counting in this process until they are');
  const app = await buildApp({
    store, keyring, clock, logger, webhooks, sharedRateStore, ingestQueue, readiness,
    tokenSettings: { issuer: config.jwtIssuer, audience: config.jwtAudience },
    bodyLimit: config.bodyLimit,
    telemetryRetentionMs: config.telemetryRetentionMs,
    tripLatenessMs: config.tripLateness,
    connectors,
    commandTimeoutMs: config.commandTimeoutMs,
    rateLimits: { tokenPerClient: config.tokenRateClient, tokenPerAddress: config.tokenRateAddress, commandPerApplication: config.commandRateApp },
    trustProxy: config.trustProxy,
    requestTimeoutMs: config.requestTimeout,
    connectionsPerAddress: config.connectionsPerAddress,
    eventStreams: { perApplication: config.eventStreamsPerApp, recheckMs: config.eventStreamRecheck },
    vehicleStates: { offlineAfterMs: config.vehicleOfflineAfter, movingSpeedKmh: config.tripMovingSpeed },
    metrics,
    metricsOnApiPort: config.opsPort === undefined,
    docs: config.docs,
    console: config.console
      ? {
        sessions: { idleMs: config.consoleSessionIdle, maxMs: config.consoleSessionMax },
        basemap: consoleBasemapOf(config),
      }
      : undefined,
  });
  if (sharedRateStore) app.addHook('onClose', () => sharedRateStore.close());
  return app;
}

/** The console's basemap setting, a `.pmtiles` path resolved against the working directory. */
function consoleBasemapOf(config: ServiceConfig): Basemap | null {
  const basemap = config.consoleBasemap === undefined ? undefined : parseBasemap(config.consoleBasemap);
  if (basemap === undefined) return null;
  return basemap.kind === 'pmtiles' ? { ...basemap, file: resolve(basemap.file) } : basemap;
}

/** Fastify's listening line (`Server listening at <address>`, once per address), written to `logger`. */
function listeningLine(logger: Logger): (address: string) => string {
  return (address) => {
    const text = `Server listening at ${address}`;
    logger.info(text);
    return text;
  };
}
