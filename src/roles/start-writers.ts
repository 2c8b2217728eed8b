/** The `writers` role: store what the edges queued (`--ingest-queue`). */
import { gatewaySettingsOf } from '../config/component-settings.js';
import type { IngestQueue } from '../queue/ingest-queue.js';
import type { ServiceParts } from './service-parts.js';

export async function startWriters(parts: ServiceParts, queue: IngestQueue): Promise<{ close(): Promise<void> }> {
  // Loaded only by a process that stores from the queue, as the queue's client is (open-ingest-queue.ts).
  const { startTelemetryWriters } = await import('../queue/telemetry-writers.js');
  const writers = await startTelemetryWriters(queue, parts.store, parts.clock, gatewaySettingsOf(parts.config).intake, parts.logger, queue.metrics);
  return { close: () => writers.stop() };
}
