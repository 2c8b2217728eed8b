/**
 * Every background worker of the service (the `workers` role), each a `runOnce` in the periodic
 * loop. Each coordinates with its copies in other processes through the database alone (command
 * leases, vehicle shard leases and the followers' per-VIN cursors, idempotent deletes), so any number of
 * `workers` processes may run.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { CommandWorker } from '../commands/command-worker.js';
import { idempotencyKeyExpiryWorker } from '../commands/idempotent-creation.js';
import { telemetryRetentionWorker } from '../ingest/telemetry-retention.js';
import type { ConnectorLookup } from '../domain/oem-connector.js';
import type { StoreConnection } from '../store/connection.js';
import { tripDetectionWorker, type TripWorkerSettings } from '../trips/trip-worker.js';
import { eventRetentionWorker, vehiclePresenceWorker } from '../events/event-workers.js';
import type { PresenceSettings } from '../events/vehicle-presence.js';
import { CompanyRuleSets } from '../alerts/company-rule-sets.js';
import { CompanyFenceSets } from '../geofences/company-fence-sets.js';
import { geofenceWatchWorker, type GeofenceWatchSettings } from '../geofences/geofence-watch.js';
import { startPeriodicAll, type PeriodicWorker, type StopLoop } from '../workers/periodic.js';
import { VehicleShardLease } from '../workers/vehicle-shard-lease.js';

export interface BackgroundWorkerSettings {
  readonly telemetryRetentionMs: number;
  readonly trips: TripWorkerSettings;
  readonly eventRetentionMs: number;
  readonly presence: PresenceSettings;
  readonly geofences: GeofenceWatchSettings & { readonly intervalMs: number };
}

export function startBackgroundWorkers(
  store: StoreConnection, connectors: ConnectorLookup, clock: Clock, settings: BackgroundWorkerSettings, logger: Logger,
  webhooks?: { periodicWorker(): PeriodicWorker },
): StopLoop {
  // One lease for every follower of the store: this process looks after the same vehicles' trips, presence and geofences.
  const shards = new VehicleShardLease(store, logger);
  const stop = startPeriodicAll([
    new CommandWorker(store, connectors, clock, undefined, logger).periodicWorker(),
    tripDetectionWorker(store, clock, settings.trips, shards, logger),
    telemetryRetentionWorker(store, clock, settings.telemetryRetentionMs, logger),
    idempotencyKeyExpiryWorker(store, clock, logger),
    vehiclePresenceWorker(store, clock, settings.presence, shards, logger),
    geofenceWatchWorker(store, clock, settings.geofences, new CompanyFenceSets(store), shards, logger, new CompanyRuleSets(store)),
    eventRetentionWorker(store, clock, settings.eventRetentionMs, logger),
    ...(webhooks ? [webhooks.periodicWorker()] : []),
  ], { logger });
  return async () => {
    await stop();
    // Free at once for the other workers rather than after the lease; a failure only means they wait for it.
    await shards.release().catch(() => undefined);
  };
}
