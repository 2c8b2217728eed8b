/**
 * The background side of trips: `runTripDetectionOnce` brings the trips of the vehicles that
 * changed up to date and drops trips past retention; `tripDetectionWorker` is that pass for the
 * periodic loop, every `intervalMs` (`TRIP_DETECTION_INTERVAL_MS` in config/component-settings.ts).
 * A pass learns which vehicles changed from the store's activity (workers/vehicle-change-feed.ts),
 * asks their trip cursors which have records to feed, and adds the open trips that time alone now
 * closes (an index over open trips): an idle fleet costs two index ranges a pass, whatever its
 * size. It gives the event loop back between vehicles (workers/event-loop-turns.ts). The retention
 * sweep, a scan of every trip, runs at most every `EXPIRY_INTERVAL_MS`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { FUTURE_TOLERANCE_MS } from '../domain/telemetry-record.js';
import type { StoreConnection } from '../store/connection.js';
import {
  deleteTripsEndedBefore, listOpenTripsQuietBefore, listTripWork, type OpenTripCandidate, type TripDetectionCandidate,
} from '../store/trips-queries.js';
import { TurnBudget } from '../workers/event-loop-turns.js';
import { keysetPages } from '../workers/keyset-pages.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { VehicleChangeFeed } from '../workers/vehicle-change-feed.js';
import type { VehicleShardLease } from '../workers/vehicle-shard-lease.js';
import { detectTripsForVin, type TripDetectionSettings } from './detect-trips.js';

export interface TripWorkerSettings extends TripDetectionSettings {
  readonly retentionMs: number;
  readonly intervalMs: number;
}

/** Trips end days apart from their retention limit: sweeping every few minutes is plenty. */
const EXPIRY_INTERVAL_MS = 10 * 60_000;

export interface TripPassReport {
  /** Vehicles that had something to detect (new records, a rewind, an open trip to close). */
  vehicles: number;
  records: number;
  trips: number;
  expired: number;
  /** Vehicles the pass learned had changed (of its shards). */
  changed: number;
}

export interface TripPassOptions {
  /** Run the retention sweep too (default true). */
  readonly expire?: boolean;
  /** Only the vehicles of the shards this lease holds; every vehicle when absent. */
  readonly shards?: VehicleShardLease;
  /** The worker's feed, which remembers its last look; absent, the pass looks at every vehicle that has reported. */
  readonly feed?: VehicleChangeFeed;
}

/**
 * A follower of trips reads changes this much further back: records younger than the lateness
 * wait for a later pass, and a record may be stamped up to FUTURE_TOLERANCE_MS ahead.
 */
export function tripFeedLagMs(settings: TripDetectionSettings): number {
  return settings.latenessMs + FUTURE_TOLERANCE_MS;
}

export async function runTripDetectionOnce(
  store: StoreConnection, clock: Clock, settings: TripWorkerSettings, options: TripPassOptions = {},
): Promise<TripPassReport> {
  const now = clock.now();
  const report: TripPassReport = { vehicles: 0, records: 0, trips: 0, expired: 0, changed: 0 };
  const shards = options.shards;
  if (shards) await shards.renew(now);
  const feed = options.feed ?? new VehicleChangeFeed(store, shards, { lagMs: tripFeedLagMs(settings) });
  const budget = new TurnBudget();
  const horizon = now - settings.latenessMs;
  const seen = new Set<string>();
  const detect = async (vehicle: TripDetectionCandidate) => {
    if (seen.has(vehicle.vin)) return;
    seen.add(vehicle.vin);
    if (shards) {
      await shards.keep(clock.now());
      if (!shards.holds(vehicle.vin)) return;
    }
    await budget.yieldIfSpent();
    const r = await detectTripsForVin(store, vehicle.vin, vehicle.fuel_capacity, now, settings);
    report.vehicles += 1;
    report.records += r.records;
    report.trips += r.trips;
  };
  const look = feed.begin(now);
  for await (const page of feed.pages(look, budget)) {
    report.changed += page.length;
    for (const vehicle of await listTripWork(store.db, page.map((v) => v.vin), horizon)) await detect(vehicle);
  }
  const quietBefore = horizon - settings.thresholds.gapMs;
  for await (const page of keysetPages((after: OpenTripCandidate | undefined, limit) => listOpenTripsQuietBefore(store.db, quietBefore, after, limit), budget)) {
    for (const vehicle of page) await detect(vehicle);
  }
  feed.end(look);
  if (options.expire ?? true) report.expired = await deleteTripsEndedBefore(store.db, now - settings.retentionMs);
  return report;
}

/**
 * The pass as the periodic loop runs it: every `intervalMs`, over the vehicles of the shards this
 * process holds (workers/vehicle-shard-lease.ts, renewed at the start of each pass), with the
 * retention sweep at most every 10 minutes.
 */
export function tripDetectionWorker(
  store: StoreConnection, clock: Clock, settings: TripWorkerSettings, shards: VehicleShardLease, logger: Logger,
): PeriodicWorker {
  let expiredAt = -Infinity;
  const feed = new VehicleChangeFeed(store, shards, { lagMs: tripFeedLagMs(settings) });
  return {
    name: 'trip detection',
    intervalMs: settings.intervalMs,
    async runOnce() {
      const expire = clock.now() - expiredAt >= EXPIRY_INTERVAL_MS;
      if (expire) expiredAt = clock.now();
      const report = await runTripDetectionOnce(store, clock, settings, { expire, shards, feed });
      if (report.trips > 0 || report.expired > 0) logger.info(report, 'trips detected');
    },
  };
}
