import type { Logger } from 'pino';
import type { ServiceConfig } from '../config/settings.js';
import { ingestQueueSettingsOf } from '../config/component-settings.js';
import type { ServiceMetrics } from '../http/metrics.js';
import type { IngestQueue } from '../queue/ingest-queue.js';

/**
 * The ingest queue, for a process that queues (api, gateway) or stores (writers) telemetry. Its
 * client is loaded only then: every `telematics` command starts through the composition root.
 */
export async function openIngestQueue(config: ServiceConfig, logger: Logger, metrics: ServiceMetrics): Promise<IngestQueue | undefined> {
  const settings = ingestQueueSettingsOf(config);
  if (!settings || !(config.role.api || config.role.gateway || config.role.writers)) return undefined;
  const [{ IngestQueue }, { QueueMetrics }] = await Promise.all([import('../queue/ingest-queue.js'), import('../queue/queue-metrics.js')]);
  return IngestQueue.open(settings, logger, new QueueMetrics(metrics.registry));
}
