import type { Logger } from 'pino';
import type { ServiceConfig } from '../config/settings.js';
import type { Clock } from '../domain/clock.js';
import type { ReadinessCheck } from '../http/app-deps.js';
import type { ServiceMetrics } from '../http/metrics.js';
import type { ConnectorRegistry } from '../oem/connector-registry.js';
import type { IngestQueue } from '../queue/ingest-queue.js';
import type { Keyring } from '../security/keyring.js';
import type { StoreConnection } from '../store/connection.js';
import type { WebhookDeps } from '../webhooks/webhook-deps.js';

/** What the roles of one process share, made once by startService before any role starts. */
export interface ServiceParts {
  readonly config: ServiceConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: StoreConnection;
  /** One registry for the API port, the operations listener, the gateway and the queue. */
  readonly metrics: ServiceMetrics;
  readonly connectors: ConnectorRegistry;
  /** With `--ingest-queue`, for a process that queues or stores telemetry. */
  readonly queue: IngestQueue | undefined;
  readonly readiness: readonly ReadinessCheck[];
}

/** The parts of a process that holds the keys (api, workers): it signs, verifies and opens secrets. */
export interface KeyedParts extends ServiceParts {
  readonly keyring: Keyring;
  readonly webhooks: WebhookDeps;
}
