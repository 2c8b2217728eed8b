/**
 * The `workers` role: the background workers and webhook delivery. Started last, once the service
 * is up (a failed start leaves no work running) and after the in-process simulated cloud listens,
 * so that the command worker's first pass, which initiates again the commands a crash left
 * without a status URL, finds it.
 */
import { geofenceWatchSettingsOf, tripSettingsOf } from '../config/component-settings.js';
import { WebhookMetrics } from '../delivery/webhook-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { startBackgroundWorkers } from './background-workers.js';
import type { KeyedParts } from './service-parts.js';

/**
 * Attempts under way get this long to end and be written at a stop; one cut off keeps its lease,
 * which lapses, and is sent again (at least once). Claimed but unsent ones are given back.
 */
const WEBHOOK_SETTLE_MS = 5000;

export function startWorkers(parts: KeyedParts): { close(): Promise<void> } {
  const { config, store, connectors, clock, logger, metrics } = parts;
  const dispatcher = new WebhookDispatcher(parts.webhooks, logger, new WebhookMetrics(metrics.registry, store));
  const stopWorkers = startBackgroundWorkers(store, connectors, clock, {
    telemetryRetentionMs: config.telemetryRetentionMs, trips: tripSettingsOf(config),
    eventRetentionMs: config.eventRetentionMs, presence: { offlineAfterMs: config.vehicleOfflineAfter },
    geofences: geofenceWatchSettingsOf(config),
  }, logger, dispatcher);
  logger.info('background workers started');
  return {
    close: async () => {
      await stopWorkers();
      await dispatcher.stop(WEBHOOK_SETTLE_MS);
    },
  };
}
