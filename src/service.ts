/**
 * The composition root of `telematics serve`: opens the store and makes the parts the roles share
 * (metrics, connectors, the ingest queue, the keys), then starts this process's roles (`--role`)
 * in order: the API, the operations listener, the gateway, the writers, the in-process simulation,
 * the workers. Each returns its `close`, pushed on one stack: a stop, or a start that fails part
 * way, closes what started, newest first. Only this file, src/roles/ and the CLI wire concrete parts.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config/settings.js';
import { systemClock, type Clock } from './domain/clock.js';
import { isLoopbackHost } from './domain/dial-policy.js';
import type { RunningGateway } from './gateway/start-gateway.js';
import { ServiceMetrics } from './http/metrics.js';
import { createLogger } from './logger.js';
import { CloseStack } from './roles/close-stack.js';
import { connectorsOf } from './roles/connectors.js';
import { loadKeys } from './roles/load-keys.js';
import { openIngestQueue } from './roles/open-ingest-queue.js';
import { readinessOf } from './roles/readiness.js';
import { warnOfSimAutomakersWithoutSimulation } from './roles/sim-connector-warning.js';
import type { KeyedParts, ServiceParts } from './roles/service-parts.js';
import { migrateServiceStore, openServiceStore } from './roles/service-store.js';
import { startApi, type RunningApi } from './roles/start-api.js';
import { gatewayWanted, startGatewayRole } from './roles/start-gateway-role.js';
import { startOpsListener, type RunningOpsListener } from './roles/start-ops-listener.js';
import { startSimulation } from './roles/start-simulation.js';
import { startWorkers } from './roles/start-workers.js';
import { startWriters } from './roles/start-writers.js';
import { webhookDepsOf, webhookSenderOf } from './roles/webhook-parts.js';
import { demoEnvFile, writeDemoEnv } from './sim/demo-env-file.js';
import type { BackfillProgress, InProcessSimulation } from './sim/run-in-process.js';
import { demoBanner, seedDemo, type DemoSeedOutcome } from './sim/seed-demo.js';
import { userSettingsOf } from './config/component-settings.js';

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
  const closers = new CloseStack();
  try {
    const store = closers.push(openServiceStore(config));
    await migrateServiceStore(store, config, logger);
    const metrics = new ServiceMetrics();
    const connectors = connectorsOf(config, store, clock);
    const queue = closers.push(await openIngestQueue(config, logger, metrics));
    const parts: ServiceParts = { config, clock, logger, store, metrics, connectors, queue, readiness: readinessOf(config, store, queue) };
    // A gateway-only process loads no keys: nothing it does signs, verifies or opens a secret. A
    // workers process does: it signs webhooks with their endpoints' sealed secrets.
    const keyed = config.role.api || config.role.workers ? keyedPartsOf(parts, closers) : undefined;
    const demo = config.demo && keyed && config.role.api ? await seedDemo(store, keyed.keyring, clock, userSettingsOf(config)) : undefined;
    await warnOfSimAutomakersWithoutSimulation(config, store.db, logger);
    const api = keyed && config.role.api ? closers.push(await startApi(keyed)) : undefined;
    const ops = config.opsPort === undefined ? undefined : closers.push(await startOpsListener(parts, config.opsPort));
    const gateway = gatewayWanted(config) ? closers.push(await startGatewayRole(parts)) : undefined;
    logWhereOperationsAre(config, logger, api, ops, gateway);
    if (config.role.writers && queue) closers.push(await startWriters(parts, queue));
    // The configuration allows `sim` only with both roles: its fleet pushes to this API and its
    // cloud is polled by this process's command worker.
    const simulation = config.sim && keyed && api ? closers.push(await startSimulation(keyed, api.url, gateway, options.progress)) : undefined;
    if (config.role.workers && keyed) closers.push(startWorkers(keyed));
    // Last of the start, so the credentials are not pushed off the screen by start-up lines. (With
    // JSON logs, not on a terminal, lines logged just before may still follow it, up to 10 ms late:
    // log-destination.ts.)
    if (demo && api && keyed) printDemo(config, demo, api.url, keyed, gateway, options.print ?? ((text: string) => process.stdout.write(text)));
    return { app: api?.app, url: api?.url, opsUrl: ops?.url, simulation: simulation?.simulation, gateway, close: () => closers.close() };
  } catch (error) {
    await closers.close();
    throw error;
  }
}

/** The keys, and webhook delivery, which signs with them; its sender is closed with the rest. */
function keyedPartsOf(parts: ServiceParts, closers: CloseStack): KeyedParts {
  const { config, logger, store, clock } = parts;
  const keyring = loadKeys(config, logger);
  const sender = closers.push(webhookSenderOf(config, logger));
  return { ...parts, keyring, webhooks: webhookDepsOf(config, store, keyring, clock, sender) };
}

function logWhereOperationsAre(
  config: ServiceConfig, logger: Logger, api: RunningApi | undefined, ops: RunningOpsListener | undefined, gateway: RunningGateway | undefined,
): void {
  if (ops) logger.info({ url: ops.url }, 'operations listener (/metrics, /healthz, /readyz)');
  else if (!api && !gateway) logger.info('no listener: set --ops-port to serve /healthz, /readyz and /metrics');
  else if (!isLoopbackHost(config.host)) logger.warn('/metrics is served on the API port, which listens beyond this machine: set --ops-port to move it to its own listener');
}

/** The demo's credentials and where its trackers connect, on screen and in the env file beside the database. */
function printDemo(
  config: ServiceConfig, demo: DemoSeedOutcome, url: string, keyed: KeyedParts, gateway: RunningGateway | undefined, print: (text: string) => void,
): void {
  const envFile = demoEnvFile(config.database);
  const trackers = { listening: gateway?.listening, console: config.console };
  if (envFile) writeDemoEnv(envFile, demo, url, keyed.keyring, trackers);
  print(demoBanner(demo, url, envFile, trackers));
}
