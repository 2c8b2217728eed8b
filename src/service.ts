/**
 * The composition root of `telematics serve`: opens the store, migrates, loads keys, seeds the
 * demo when asked, builds the HTTP app and listens. Only this file and the CLI wire concrete parts.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { buildApp } from './http/build-app.js';
import { buildOpsApp } from './http/build-ops-app.js';
import { ServiceMetrics } from './http/metrics.js';
import { createLogger } from './logger.js';
import { loadKeyring } from './security/load-keyring.js';
import { migrateToLatest } from './store/migrate.js';
import { openStore } from './store/open-store.js';
import { defaultKeysFile, tripSettingsOf } from './config.js';
import { startTripDetection } from './trips/trip-worker.js';
import { ConnectorRegistry, type ConnectorSettings } from './oem/connector-registry.js';
import { CommandWorker } from './commands/command-worker.js';
import { startIdempotencyKeyExpiry } from './commands/idempotent-creation.js';
import { SimulatedOemCloud } from './sim/simulated-oem-cloud.js';
import { demoBanner, seedDemo } from './sim/seed-demo.js';
import { startTelemetryRetention } from './ingest/telemetry-retention.js';
import { startInProcessSimulation, type InProcessSimulation } from './sim/run-in-process.js';
import { progressBar, type Progress } from './cli/progress-bar.js';

export interface RunningService {
  readonly app: FastifyInstance;
  readonly url: string;
  /** The operations listener's URL, when `--ops-port` is set. */
  readonly opsUrl: string | undefined;
  /** The in-process simulated fleet, when `sim` is on. */
  readonly simulation: InProcessSimulation | undefined;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Where human-facing text (the demo banner) goes. */
  readonly print?: (text: string) => void;
  /** Progress of the simulator's backfill; a bar on stderr by default. */
  readonly progress?: Progress;
}

export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const store = openStore(config.database, { poolSize: config.databasePoolSize, watchRegistry: true });
  try {
    const { applied } = await migrateToLatest(store);
    logger.info({ database: store.description, applied }, 'database ready');
    const keys = loadKeyring({
      jwtKeys: config.jwtKeys, masterKeys: config.masterKeys, keysFile: config.keysFile,
      keysFileIsDefault: config.keysFile !== undefined && config.keysFile === defaultKeysFile(config.database),
    });
    logger.info({ source: keys.source, created: keys.created }, keys.created ? 'keys generated' : 'keys loaded');

    const demo = config.demo ? await seedDemo(store.db, keys.keyring, clock.now()) : undefined;
    // D6: initiation inside the request is bounded by 10 s; a status poll by 5 s.
    const connectorSettings: ConnectorSettings = { initiateTimeoutMs: 10_000, pollTimeoutMs: 5_000 };
    const connectors = new ConnectorRegistry(connectorSettings);
    const metrics = new ServiceMetrics();
    const app = await buildApp({
      store, keyring: keys.keyring, clock, logger,
      tokenSettings: { issuer: config.jwtIssuer, audience: config.jwtAudience },
      bodyLimit: config.bodyLimit,
      telemetryRetentionMs: config.telemetryRetention * 3_600_000,
      tripLatenessMs: config.tripLateness,
      connectors,
      commandTimeoutMs: config.commandTimeout * 1000,
      rateLimits: { tokenPerClient: config.tokenRateClient, tokenPerAddress: config.tokenRateAddress, commandPerApplication: config.commandRateApp },
      trustProxy: config.trustProxy,
      requestTimeoutMs: config.requestTimeout,
      connectionsPerAddress: config.connectionsPerAddress,
      metrics,
      metricsOnApiPort: config.opsPort === undefined,
      docs: config.docs,
    });
    const ops = config.opsPort === undefined ? undefined : await buildOpsApp({ store, logger }, metrics);
    let address: string;
    let opsUrl: string | undefined;
    try {
      address = await app.listen({ port: config.port, host: config.host });
      if (ops) opsUrl = await ops.listen({ port: config.opsPort, host: config.opsHost });
    } catch (error) {
      await app.close();
      await ops?.close();
      throw error;
    }
    if (opsUrl) logger.info({ url: opsUrl }, 'operations listener (/metrics, /healthz, /readyz)');
    else if (!isLoopback(config.host)) logger.warn('/metrics is served on the API port, which listens beyond this machine: set --ops-port to move it to its own listener');
    // Background work starts only once the service is up, so a failed start leaves nothing running.
    const stopRetention = startTelemetryRetention(store, clock, config.telemetryRetention * 3_600_000, logger);
    const stopTrips = startTripDetection(store, clock, tripSettingsOf(config), logger);
    const stopCommands = new CommandWorker(store, connectors, clock, undefined, logger).start();
    const stopKeyExpiry = startIdempotencyKeyExpiry(store, clock, logger);
    const url = address.replace('[::1]', 'localhost');
    if (demo) print(demoBanner(demo, url));
    const simulation = config.sim
      ? await startInProcessSimulation(store.db, keys.keyring, clock, {
        ingestUrl: url, seed: config.simSeed, periodSeconds: config.simPeriod, backfillMs: config.simBackfill, glitchRate: config.simGlitchRate,
      }, logger, options.progress ?? progressBar('simulated fleet backfill'))
      : undefined;
    let cloud: SimulatedOemCloud | undefined;
    if (simulation) {
      // The cloud listens on a real port: without a secret only this process holds, any local
      // process could command the simulated vehicles through it. The key is set before the URL so
      // no command is ever sent without it.
      const simCloudKey = SimulatedOemCloud.generateKey();
      cloud = new SimulatedOemCloud((vin) => simulation.simulator.vehicle(vin), clock, { latencyMs: [1500, 6000], seed: config.simSeed, apiKey: simCloudKey });
      connectorSettings.simCloudKey = simCloudKey;
      connectorSettings.simCloudUrl = await cloud.listen();
      logger.info({ url: connectorSettings.simCloudUrl }, 'simulated automaker cloud listening');
    }
    return {
      app,
      url,
      opsUrl,
      simulation,
      close: async () => {
        await simulation?.stop();
        await app.close();
        await ops?.close();
        await stopCommands();
        await cloud?.close();
        await stopRetention();
        await stopKeyExpiry();
        await stopTrips();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');
