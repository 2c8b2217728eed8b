/**
 * A real service for HTTP tests: a fresh database of the given kind, migrated and loaded with the
 * fixture fleet, the real Fastify app listening on a free loopback port, a clock the test moves,
 * and every log line captured so tests can assert on them.
 */
import type { LookupFunction } from 'node:net';
import { Writable } from 'node:stream';
import { Agent, fetch } from 'undici';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { loadConfig, type FlagValues } from '../../src/config/load-config.js';
import { gatewaySettingsOf } from '../../src/config/component-settings.js';
import { SECOND_MS } from '../../src/config/durations.js';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { buildApp } from '../../src/http/build-app.js';
import type { AppDeps, EventStreamSettings } from '../../src/http/app-deps.js';
import { ServiceMetrics } from '../../src/http/metrics.js';
import type { RateLimitSettings } from '../../src/http/rate-limits.js';
import { createLogger } from '../../src/logger.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { apiDepsOf } from '../../src/roles/api-app.js';
import { connectorSettingsOf } from '../../src/roles/connectors.js';
import { readinessOf } from '../../src/roles/readiness.js';
import type { ServiceParts } from '../../src/roles/service-parts.js';
import { webhookDepsOf, webhookSenderOf } from '../../src/roles/webhook-parts.js';
import { generateKeyringDocument, keyringFromDocument, type Keyring } from '../../src/security/keyring.js';
import type { TokenSettings } from '../../src/security/access-tokens.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { backgroundWritesSettled } from '../../src/store/write-batcher.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import type { WebhookDeps } from '../../src/webhooks/webhook-deps.js';
import type { WebhookSettings } from '../../src/webhooks/webhook-settings.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';
import { fixtureFleet, SECRETS } from './fixture-fleet.js';
import { ConnectorRegistry, type ConnectorSettings } from '../../src/oem/connector-registry.js';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { FleetSimulator } from '../../src/sim/fleet-simulator.js';
import { loadSimulatedFleet } from '../../src/sim/load-simulated-fleet.js';
import { SimulatedOemCloud, type CloudOptions } from '../../src/sim/simulated-oem-cloud.js';
import { startGateway, type RunningGateway } from '../../src/gateway/start-gateway.js';
import { TRACKER_PROTOCOLS } from '../../src/gateway/tracker-protocols.js';

/** 2026-11-20T12:00:00Z (09:00:00 at -03:00); tests move it explicitly. */
export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

/** An instant as an ingest `date_time`. */
export const iso = (epochMs: number): string => new Date(epochMs).toISOString();

export class TestClock {
  constructor(public t: number = T0) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  readonly raw?: string;
}

export interface TestService {
  readonly kind: DatabaseKind;
  readonly url: string;
  /** Where the test database is, to open a second connection (another "instance"). */
  readonly databaseUrl: string;
  readonly app: FastifyInstance;
  readonly store: StoreConnection;
  readonly keyring: Keyring;
  readonly clock: TestClock;
  readonly tokenSettings: TokenSettings;
  readonly logs: string[];
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  token(clientId: string, clientSecret: string): Promise<string>;
  /** Commands: how automakers are reached now (a second instance's registry is made from these), the service's registry, and a worker driven by the test clock. */
  readonly connectorSettings: ConnectorSettings;
  readonly connectors: ConnectorRegistry;
  /** Points the service's `sim` OEMs at another automaker (`url` undefined: unreachable), with the key it requires. */
  useSimulatedCloudAt(url: string | undefined, key: string | undefined): void;
  readonly worker: CommandWorker;
  /** Starts the simulated automaker cloud for the sim vehicles stored now (parked, not driving). */
  useSimulatedCloud(options?: Partial<CloudOptions>): Promise<{ cloud: SimulatedOemCloud; simulator: FleetSimulator }>;
  /** POST /ingest/{oem} with the fixture's ingest key unless another is given. */
  ingest(records: readonly unknown[], options?: { oem?: string; key?: string }): Promise<TestResponse>;
  /** Every protocol's tracker listener on a free port, when started with `gateway: true`. */
  readonly gateway: RunningGateway | undefined;
  /** Prometheus registry holding the gateway's metrics. */
  readonly metrics: Registry;
  /** Restarts the HTTP app on the same port and database with other keys (a key rotation). */
  restartWithKeyring(keyring: Keyring): Promise<void>;
  /** What the webhook routes and the dispatcher share (the test clock, the service's keyring). */
  readonly webhooks: WebhookDeps;
  /** Webhook delivery, driven by the test: `runOnce()` fans out and sends what is due now. */
  readonly dispatcher: WebhookDispatcher;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  /** Request limits; off unless a test is about them. */
  readonly rateLimits?: RateLimitSettings;
  /** HTTP settings a test is about (proxies, timeouts, connection caps, what the API port serves, the geofences' and alert rules' caps). */
  readonly http?: Partial<Pick<AppDeps, 'trustProxy' | 'requestTimeoutMs' | 'connectionsPerAddress' | 'metricsOnApiPort' | 'docs' | 'ingestSummary' | 'console' | 'sharedRateStore' | 'geofences' | 'alertRules'>> & {
    readonly eventStreams?: Partial<EventStreamSettings>;
  };
  /**
   * Webhooks: allowed networks (loopback when absent), a resolver (DNS rebinding tests), settings,
   * and `threaded`: sent from a thread that holds this many posts per endpoint, as `serve` does
   * (the built script runs there: `npm test` builds first; a resolver cannot be given then).
   */
  readonly webhooks?: {
    readonly allowCidrs?: readonly string[]; readonly lookup?: LookupFunction; readonly settings?: Partial<WebhookSettings>; readonly threaded?: { readonly queuedPerLane: number };
  };
  /** Start the tracker gateway too; the numbers override its settings. */
  readonly gateway?: boolean | {
    readonly loginTimeoutMs?: number; readonly idleTimeoutMs?: number; readonly tls?: { readonly certFile: string; readonly keyFile: string };
    /** `--tracker-connections` and `--tracker-connections-per-address`; by default sized from the limit, and 1,000. */
    readonly connections?: { readonly total?: number; readonly perAddress?: number };
  };
}

/** What a test may not wait for: an automaker that hangs costs it 1 s, not the service's 5 s (`connectorSettingsOf`). */
const TEST_AUTOMAKER_TIMEOUTS = { initiateTimeoutMs: 2000, pollTimeoutMs: 1000 };
/** A tracker command is written within 50 ms of its creation, so tests need not wait the service's 250 ms. */
const TEST_TRACKER_COMMAND_INTERVAL_MS = 50;
/** The dispatcher looks for due webhooks every 20 ms, so a delivery test waits for its receiver, not for a poll. */
const TEST_WEBHOOK_POLL_MS = 20;

/**
 * The service's settings for a test: the defaults but for the database, and what tests leave off
 * unless they are about it (request limits, the console, a per-address connection cap; webhooks
 * sent from this thread, to loopback, within 2 s), and the tracker listeners on free loopback ports.
 */
function testFlags(databaseUrl: string, options: TestServiceOptions): FlagValues {
  const hooks = options.webhooks ?? {};
  const trackers = typeof options.gateway === 'object' ? options.gateway : {};
  return {
    database: databaseUrl, port: '0',
    tokenRateClient: '0', tokenRateAddress: '0', commandRateApp: '0', shareRateAddress: '0', console: false, connectionsPerAddress: '0',
    webhookAllowCidrs: (hooks.allowCidrs ?? ['127.0.0.0/8']).join(','), webhookTimeout: '2s', webhookSendThreads: hooks.threaded ? '1' : '0',
    ...(options.gateway ? {
      ...Object.fromEntries(TRACKER_PROTOCOLS.map(({ protocol }) => [`${protocol}Port`, '0'])), gatewayHost: '127.0.0.1',
      trackerConnections: trackers.connections?.total, trackerConnectionsPerAddress: trackers.connections?.perAddress,
      ...(trackers.tls ? { teltonikaTlsPort: '0', teltonikaTlsCert: trackers.tls.certFile, teltonikaTlsKey: trackers.tls.keyFile } : {}),
    } : {}),
  };
}

export async function startTestService(kind: DatabaseKind, fleet: unknown = fixtureFleet(), options: TestServiceOptions = {}): Promise<TestService> {
  const database: TestDatabase = await createTestDatabase(kind);
  const config = loadConfig(testFlags(database.url, options), {});
  // A smaller pool than `serve`'s and checkpoints on commit: many test services run at once.
  const store = openStore(database.url, { poolSize: 5, watchRegistry: true });
  await migrateToLatest(store);
  const keyring = keyringFromDocument(generateKeyringDocument(), 'test');
  const clock = new TestClock();
  const validation = validateFleetFile(fleet);
  if (!validation.ok) throw new Error(`fixture fleet invalid: ${JSON.stringify(validation.problems)}`);
  await applyFleet(store.db, validation.fleet, keyring, clock.now());

  const logs: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } });
  const logger = createLogger('info', sink);
  const tokenSettings = { issuer: config.jwtIssuer, audience: config.jwtAudience };
  const baseConnectorSettings = connectorSettingsOf(config, store, clock, TEST_AUTOMAKER_TIMEOUTS);
  const connectors = new ConnectorRegistry(baseConnectorSettings);
  let simCloud: Pick<ConnectorSettings, 'simCloudUrl' | 'simCloudKey'> = {};
  const useSimulatedCloudAt = (url: string | undefined, key: string | undefined) => {
    simCloud = { simCloudUrl: url, simCloudKey: key };
    connectors.useSimulatedCloud(url, key);
  };
  const metrics = new ServiceMetrics();
  const parts: ServiceParts = { config, clock, logger, store, metrics, connectors, queue: undefined, readiness: readinessOf(config, store, undefined) };
  const hooks = options.webhooks ?? {};
  const webhookSender = webhookSenderOf(config, logger, {
    lookup: hooks.lookup, queuedPerLane: hooks.threaded?.queuedPerLane,
    // The tests run from the sources; the thread runs the built script (`npm test` builds first).
    threadFile: hooks.threaded ? new URL('../../dist/delivery/webhook-send-thread.js', import.meta.url) : undefined,
  });
  const webhooksWith = (keys: Keyring): WebhookDeps => {
    const deps = webhookDepsOf(config, store, keys, clock, webhookSender);
    return { ...deps, settings: { ...deps.settings, pollMs: TEST_WEBHOOK_POLL_MS, ...hooks.settings } };
  };
  let webhooks = webhooksWith(keyring);
  const http = options.http ?? {};
  const appWith = (keys: Keyring) => {
    const deps = apiDepsOf({ ...parts, keyring: keys, webhooks });
    return buildApp({ ...deps, rateLimits: options.rateLimits ?? deps.rateLimits, ...http, eventStreams: { ...deps.eventStreams, ...http.eventStreams } });
  };
  let app = await appWith(keyring);
  let dispatcher = new WebhookDispatcher(webhooks, logger);
  const worker = new CommandWorker(store, connectors, clock, { leaseMs: 15_000, batch: 50, idleIntervalMs: 50 }, logger);
  let cloud: SimulatedOemCloud | undefined;
  const url = await app.listen({ port: config.port, host: config.host });
  const trackers = typeof options.gateway === 'object' ? options.gateway : {};
  const gatewaySettings = gatewaySettingsOf(config);
  const gateway = options.gateway ? await startGateway(store, clock, {
    ...gatewaySettings, commandIntervalMs: TEST_TRACKER_COMMAND_INTERVAL_MS,
    loginTimeoutMs: trackers.loginTimeoutMs ?? gatewaySettings.loginTimeoutMs, idleTimeoutMs: trackers.idleTimeoutMs ?? gatewaySettings.idleTimeoutMs,
  }, metrics.registry, logger) : undefined;

  // The tests' own connection pool, so a restart can drop it: a kept-alive connection to the
  // closed server would otherwise be reused if no I/O turn let the pool see it close.
  let connections = new Agent();
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.form !== undefined) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const response = await fetch(`${url}${path}`, { method, headers, redirect: 'manual', dispatcher: connections, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  let currentKeyring = keyring;
  return {
    kind, url, databaseUrl: database.url, store, clock, tokenSettings, logs, request, connectors, worker, gateway, metrics: metrics.registry,
    get app() { return app; },
    useSimulatedCloudAt,
    get connectorSettings() { return { ...baseConnectorSettings, ...simCloud }; },
    get keyring() { return currentKeyring; },
    get webhooks() { return webhooks; },
    get dispatcher() { return dispatcher; },
    async restartWithKeyring(next) {
      await app.close();
      await connections.destroy();
      connections = new Agent();
      currentKeyring = next;
      webhooks = webhooksWith(next);
      dispatcher = new WebhookDispatcher(webhooks, logger);
      app = await appWith(next);
      await app.listen({ port: Number(new URL(url).port), host: '127.0.0.1' });
    },
    async useSimulatedCloud(options = {}) {
      const vehicles = await loadSimulatedFleet(store.db, keyring, clock.now(), 0, config.simPeriod * SECOND_MS);
      const simulator = new FleetSimulator(vehicles, { ingestUrl: url, periodSeconds: config.simPeriod, glitchRate: 0, seed: 3 });
      await cloud?.close();
      // As the service does: the cloud requires a fresh secret that only the connector holds.
      const apiKey = options.apiKey === undefined ? SimulatedOemCloud.generateKey() : options.apiKey;
      cloud = new SimulatedOemCloud((vin) => simulator.vehicle(vin), clock, { latencyMs: [2000, 4000], seed: 5, ...options, apiKey });
      useSimulatedCloudAt(await cloud.listen(), apiKey ?? undefined);
      return { cloud, simulator };
    },
    async token(clientId, clientSecret) {
      const res = await request('POST', '/token', { form: { client_id: clientId, client_secret: clientSecret }, headers: { accept: 'application/json' } });
      if (res.status !== 200) throw new Error(`token for ${clientId}: ${res.status} ${res.text}`);
      return res.body.token as string;
    },
    ingest(records, options = {}) {
      return request('POST', `/ingest/${options.oem ?? 'simmotors'}`, {
        json: { records }, headers: { authorization: `Bearer ${options.key ?? SECRETS.ingest}` },
      });
    },
    async close() {
      await gateway?.close();
      await app.close();
      await connections.destroy();
      await backgroundWritesSettled(store); // as `serve` stops
      dispatcher.close();
      await dispatcher.settle();
      await webhookSender.close();
      await cloud?.close();
      await store.close().catch(() => {});
      await database.drop();
    },
  };
}
