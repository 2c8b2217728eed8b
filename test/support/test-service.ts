/**
 * A real service for HTTP tests: a fresh database of the given kind, migrated and loaded with the
 * fixture fleet, the real Fastify app listening on a free loopback port, a clock the test moves,
 * and every log line captured so tests can assert on them.
 */
import type { LookupFunction } from 'node:net';
import { ThreadedWebhookSender } from '../../src/delivery/threaded-webhook-sender.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { allowListOf, webhookDialPolicy } from '../../src/domain/webhook-url.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import type { WebhookDeps } from '../../src/webhooks/webhook-deps.js';
import { DEFAULT_WEBHOOK_TIMING, type WebhookSettings } from '../../src/webhooks/webhook-settings.js';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { buildApp } from '../../src/http/build-app.js';
import type { AppDeps } from '../../src/http/app-deps.js';
import type { RateLimitSettings } from '../../src/http/rate-limits.js';
import { createLogger } from '../../src/logger.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument, type Keyring } from '../../src/security/keyring.js';
import type { TokenSettings } from '../../src/security/access-tokens.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { backgroundWritesSettled } from '../../src/store/write-batcher.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';
import { fixtureFleet, SECRETS } from './fixture-fleet.js';
import { ConnectorRegistry, type ConnectorSettings } from '../../src/oem/connector-registry.js';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { FleetSimulator } from '../../src/sim/fleet-simulator.js';
import { loadSimulatedFleet } from '../../src/sim/load-simulated-fleet.js';
import { SimulatedOemCloud, type CloudOptions } from '../../src/sim/simulated-oem-cloud.js';
import { Registry } from 'prom-client';
import { startGateway, type RunningGateway } from '../../src/gateway/start-gateway.js';
import { TRACKER_PROTOCOLS } from '../../src/gateway/tracker-protocols.js';
import { TrackerCommandLink } from '../../src/gateway/tracker-command-link.js';

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
  /** Commands: how automakers are reached (setting the simulated cloud re-points the service's connectors), and a worker driven by the test clock. */
  readonly connectorSettings: TestConnectorSettings;
  readonly connectors: ConnectorRegistry;
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

/** Connector settings a test may change while the service runs: the simulated cloud's URL and key. */
export interface TestConnectorSettings extends ConnectorSettings {
  simCloudUrl?: string | undefined;
  simCloudKey?: string | undefined;
}

export interface TestServiceOptions {
  /** Request limits; off unless a test is about them. */
  readonly rateLimits?: RateLimitSettings;
  /** HTTP settings a test is about (proxies, timeouts, connection caps, what the API port serves). */
  readonly http?: Partial<Pick<AppDeps, 'trustProxy' | 'requestTimeoutMs' | 'connectionsPerAddress' | 'metricsOnApiPort' | 'docs' | 'ingestSummary' | 'eventStreams' | 'console' | 'sharedRateStore'>>;
  /** Start the tracker gateway too; the numbers override its defaults. */
  /**
   * Webhooks: allowed networks (loopback when absent), a resolver (DNS rebinding tests), settings,
   * and `threaded`: sent from a thread that holds this many posts per endpoint, as `serve` does
   * (the built script runs there: `npm test` builds first; a resolver cannot be given then).
   */
  readonly webhooks?: {
    readonly allowCidrs?: readonly string[]; readonly lookup?: LookupFunction; readonly settings?: Partial<WebhookSettings>; readonly threaded?: { readonly queuedPerLane: number };
  };
  readonly gateway?: boolean | {
    readonly loginTimeoutMs?: number; readonly idleTimeoutMs?: number; readonly tls?: { readonly certFile: string; readonly keyFile: string };
    /** `--tracker-connections` and `--tracker-connections-per-address`; by default sized from the limit, and 1,000. */
    readonly connections?: { readonly total?: number; readonly perAddress?: number };
  };
}

export async function startTestService(kind: DatabaseKind, fleet: unknown = fixtureFleet(), options: TestServiceOptions = {}): Promise<TestService> {
  const database: TestDatabase = await createTestDatabase(kind);
  const store = openStore(database.url, { poolSize: 5, watchRegistry: true });
  await migrateToLatest(store);
  const keyring = keyringFromDocument(generateKeyringDocument(), 'test');
  const clock = new TestClock();
  const validation = validateFleetFile(fleet);
  if (!validation.ok) throw new Error(`fixture fleet invalid: ${JSON.stringify(validation.problems)}`);
  await applyFleet(store.db, validation.fleet, keyring, clock.now());

  const logs: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } });
  const tokenSettings = { issuer: 'telematics', audience: 'telematics-api' };
  const connectors = new ConnectorRegistry({
    initiateTimeoutMs: 2000, pollTimeoutMs: 1000,
    trackers: new TrackerCommandLink(store, clock, { commandTimeoutMs: 120_000 }),
  });
  let simCloud: { url?: string | undefined; key?: string | undefined } = {};
  const connectorSettings: TestConnectorSettings = {
    initiateTimeoutMs: 2000, pollTimeoutMs: 1000,
    get simCloudUrl() { return simCloud.url; },
    set simCloudUrl(url) { simCloud = { ...simCloud, url }; connectors.useSimulatedCloud(simCloud.url, simCloud.key); },
    get simCloudKey() { return simCloud.key; },
    set simCloudKey(key) { simCloud = { ...simCloud, key }; connectors.useSimulatedCloud(simCloud.url, simCloud.key); },
  };
  // Webhooks as `serve` wires them, loopback allowed by default (the tests' receivers listen there).
  const hooks = options.webhooks ?? {};
  const allowList = allowListOf(hooks.allowCidrs ?? ['127.0.0.0/8']);
  const webhookSender = hooks.threaded
    ? new ThreadedWebhookSender({
      threads: 1, allowCidrs: hooks.allowCidrs ?? ['127.0.0.0/8'], userAgent: 'telematics-webhooks/test', queuedPerLane: hooks.threaded.queuedPerLane,
      threadFile: new URL('../../dist/delivery/webhook-send-thread.js', import.meta.url),
    })
    : new WebhookSender({
      policies: { 'https:': webhookDialPolicy(allowList, 'https:'), 'http:': webhookDialPolicy(allowList, 'http:') }, lookup: hooks.lookup, userAgent: 'telematics-webhooks/test',
    });
  const webhooksWith = (keys: Keyring): WebhookDeps => ({
    store, keyring: keys, clock, transport: webhookSender,
    settings: {
      ...DEFAULT_WEBHOOK_TIMING, allowList, hasAllowList: (hooks.allowCidrs ?? ['127.0.0.0/8']).length > 0, retentionMs: 30 * 86_400_000,
      timeoutMs: 2000, pollMs: 20, ...hooks.settings,
    },
  });
  let webhooks = webhooksWith(keyring);
  const appWith = (keys: Keyring) => buildApp({
    store, keyring: keys, clock, tokenSettings, bodyLimit: 1_048_576, telemetryRetentionMs: 192 * 3_600_000, tripLatenessMs: 60_000,
    connectors, commandTimeoutMs: 120_000, logger: createLogger('info', sink), rateLimits: options.rateLimits, webhooks,
    ...options.http,
  });
  let app = await appWith(keyring);
  let dispatcher = new WebhookDispatcher(webhooks, createLogger('info', sink));
  const worker = new CommandWorker(store, connectors, clock, { leaseMs: 15_000, batch: 50, idleIntervalMs: 50 }, createLogger('info', sink));
  let cloud: SimulatedOemCloud | undefined;
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const metrics = new Registry();
  const gatewayOptions = typeof options.gateway === 'object' ? options.gateway : {};
  const gateway = options.gateway ? await startGateway(store, clock, {
    host: '127.0.0.1',
    listeners: {
      ...Object.fromEntries(TRACKER_PROTOCOLS.map(({ protocol }) => [protocol, { port: 0, tls: undefined }])),
      teltonika: { port: 0, tls: gatewayOptions.tls && { port: 0, ...gatewayOptions.tls } },
    },
    intake: { retentionMs: 192 * 3_600_000, tripLatenessMs: 60_000 }, movingSpeedKmh: 3,
    loginTimeoutMs: gatewayOptions.loginTimeoutMs ?? 10_000, idleTimeoutMs: gatewayOptions.idleTimeoutMs ?? 900_000, commandIntervalMs: 50,
    connections: { total: gatewayOptions.connections?.total, perAddress: gatewayOptions.connections?.perAddress ?? 1000 },
  }, metrics, createLogger('info', sink)) : undefined;

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
    const response = await fetch(`${url}${path}`, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
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
    kind, url, databaseUrl: database.url, store, clock, tokenSettings, logs, request, connectorSettings, connectors, worker, gateway, metrics,
    get app() { return app; },
    get keyring() { return currentKeyring; },
    get webhooks() { return webhooks; },
    get dispatcher() { return dispatcher; },
    async restartWithKeyring(next) {
      await app.close();
      currentKeyring = next;
      webhooks = webhooksWith(next);
      dispatcher = new WebhookDispatcher(webhooks, createLogger('info', sink));
      app = await appWith(next);
      await app.listen({ port: Number(new URL(url).port), host: '127.0.0.1' });
    },
    async useSimulatedCloud(options = {}) {
      const vehicles = await loadSimulatedFleet(store.db, keyring, clock.now(), 0, 10_000);
      const simulator = new FleetSimulator(vehicles, { ingestUrl: url, periodSeconds: 10, glitchRate: 0, seed: 3 });
      await cloud?.close();
      // As the service does: the cloud requires a fresh secret that only the connector holds.
      const apiKey = options.apiKey === undefined ? SimulatedOemCloud.generateKey() : options.apiKey;
      cloud = new SimulatedOemCloud((vin) => simulator.vehicle(vin), clock, { latencyMs: [2000, 4000], seed: 5, ...options, apiKey });
      connectorSettings.simCloudKey = apiKey ?? undefined;
      connectorSettings.simCloudUrl = await cloud.listen();
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
