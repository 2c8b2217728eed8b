/**
 * The outbox's background work, for the periodic loop: presence changes (`vehicle.online` and
 * `vehicle.offline`) every 30 s, and dropping events past their retention every hour (with the
 * webhook deliveries and attempts about them).
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { deleteEventsBefore } from '../store/events-queries.js';
import { deleteWebhookHistoryBefore } from '../store/webhooks/history-retention.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import type { VehicleShardLease } from '../workers/vehicle-shard-lease.js';
import { PresenceFollower, runPresenceOnce, type PresenceSettings } from './vehicle-presence.js';

/** How late a presence change may be noticed, at most, beyond the offline threshold. */
export const PRESENCE_INTERVAL_MS = 30_000;
const RETENTION_INTERVAL_MS = 3_600_000;

/** Over the vehicles of the shards `shards` holds (renewed by the trip worker's passes, kept here). */
export function vehiclePresenceWorker(store: StoreConnection, clock: Clock, settings: PresenceSettings, shards: VehicleShardLease, logger: Logger): PeriodicWorker {
  const follower = new PresenceFollower(store, shards);
  return {
    name: 'vehicle presence',
    intervalMs: PRESENCE_INTERVAL_MS,
    async runOnce() {
      const pass = await runPresenceOnce(store, clock.now(), settings, follower);
      if (pass.online > 0 || pass.offline > 0) logger.info(pass, 'vehicle presence changed');
    },
  };
}

export function eventRetentionWorker(store: StoreConnection, clock: Clock, retentionMs: number, logger: Logger): PeriodicWorker {
  return {
    name: 'event retention',
    intervalMs: RETENTION_INTERVAL_MS,
    async runOnce() {
      const cutoff = clock.now() - retentionMs;
      const deleted = await deleteEventsBefore(store.db, cutoff);
      // Finished webhook deliveries and the attempt log go with the events they were about.
      const webhookRows = await deleteWebhookHistoryBefore(store.db, cutoff);
      if (deleted > 0 || webhookRows > 0) logger.info({ deleted, webhookRows }, 'old events dropped');
    },
  };
}
