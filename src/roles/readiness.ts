import type { ServiceConfig } from '../config/settings.js';
import type { ReadinessCheck } from '../http/app-deps.js';
import { databaseAnswers } from '../http/health-routes.js';
import type { IngestQueue } from '../queue/ingest-queue.js';
import type { StoreConnection } from '../store/connection.js';

/**
 * What /readyz waits for. An edge (api, gateway) with the ingest queue is ready while the queue
 * is: it accepts telemetry while the database is down, which is the queue's point, and its other
 * requests answer 503 by themselves. A writers process needs both; without the queue, the database.
 */
export function readinessOf(config: ServiceConfig, store: StoreConnection, queue: IngestQueue | undefined): ReadinessCheck[] {
  if (!queue) return [databaseAnswers(store)];
  const queueReady = () => queue.ready();
  return config.role.writers ? [databaseAnswers(store), queueReady] : [queueReady];
}
