import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.js';
import type { Keyring } from '../security/keyring.js';
import type { TokenSettings } from '../security/access-tokens.js';
import type { StoreConnection } from '../store/connection.js';
import type { ConnectorRegistry } from '../oem/connector-registry.js';
import type { RateLimitSettings, SharedRateStore } from './rate-limits.js';
import type { TrustProxy } from '../domain/trust-proxy.js';
import type { ServiceMetrics } from './metrics.js';
import type { IngestSummary } from './ingest-summary.js';
import type { WebhookDeps } from '../webhooks/webhook-deps.js';
import type { StateSettings } from '../domain/vehicle-state.js';
import type { ConsoleSettings } from './console/console-settings.js';
import type { TelemetrySink } from '../intake/accept-telemetry.js';
import type { GeofenceSettings } from '../geofences/geofence-deps.js';
import type { AlertRuleSettings } from '../alerts/manage-alert-rules.js';

/** What the HTTP layer needs; the composition root provides it (src/roles/api-app.ts). */
export interface AppDeps {
  readonly store: StoreConnection;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly tokenSettings: TokenSettings;
  readonly bodyLimit: number;
  /** How long telemetry is kept, ms (7 days plus a margin). */
  readonly telemetryRetentionMs: number;
  /** Records younger than this are left to the next trip detection pass. */
  readonly tripLatenessMs: number;
  /** How automakers are reached for commands. */
  readonly connectors: ConnectorRegistry;
  readonly commandTimeoutMs: number;
  readonly logger: FastifyBaseLogger;
  /** Request limits; a null rate is no limit. */
  readonly rateLimits: RateLimitSettings;
  /** Where the limits are counted for every process (Redis); undefined: in this process. */
  readonly sharedRateStore: SharedRateStore | undefined;
  /** Which X-Forwarded-For hops to believe (behind reverse proxies); false: none. */
  readonly trustProxy: TrustProxy;
  /** Longest a client may take to send a whole request, ms. */
  readonly requestTimeoutMs: number;
  /** Open connections per client address; 0 for no cap. */
  readonly connectionsPerAddress: number;
  /** Shared with the operations listener and the gateway: the routes count into the registry this app serves. */
  readonly metrics: ServiceMetrics;
  /** False when /metrics is served by the operations listener instead of the API port. */
  readonly metricsOnApiPort: boolean;
  /** /docs and /openapi.json. */
  readonly docs: boolean;
  /** Where successful ingests are counted for the minute's log line; undefined: one of the app's own, logging every minute. */
  readonly ingestSummary: IngestSummary | undefined;
  /** GET /events/stream. */
  readonly eventStreams: EventStreamSettings;
  /** How GET /vehicle-data/latest names a vehicle's state. */
  readonly vehicleStates: StateSettings;
  /** The web console at /console (and / redirecting there); undefined: not served. */
  readonly console: ConsoleSettings | undefined;
  /** /webhook-endpoints. */
  readonly webhooks: WebhookDeps;
  /** /geofences. */
  readonly geofences: GeofenceSettings;
  /** /alert-rules. */
  readonly alertRules: AlertRuleSettings;
  /** Where POST /ingest puts checked records (`--ingest-queue`); undefined: stored in the request. */
  readonly ingestQueue: TelemetrySink | undefined;
  /** What /readyz asks. */
  readonly readiness: readonly ReadinessCheck[];
}

/** One dependency /readyz waits for; false (or a throw, or no answer in 2 s) is not ready. */
export type ReadinessCheck = () => Promise<boolean>;

export interface EventStreamSettings {
  readonly perApplication: number;
  /** How often the outbox is looked at while streams are open, ms. */
  readonly pollMs: number;
  /** A comment line this often keeps proxies from closing a quiet stream, ms. */
  readonly keepAliveMs: number;
  /** A stream ends after this long, ms; the client reconnects with Last-Event-ID (spreads streams over instances). */
  readonly maxDurationMs: number;
  /** Each open stream's caller is checked again this often, ms; a refused one's streams end (open-event-streams.ts). */
  readonly recheckMs: number;
}
