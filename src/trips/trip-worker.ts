/**
 * The background side of trips: `runTripDetectionOnce` brings every vehicle's trips up to date
 * and drops trips past retention; `tripDetectionWorker` is that pass for the periodic loop, every
 * `intervalMs` (`TRIP_DETECTION_INTERVAL_MS` in config/component-settings.ts). A pass only
 * opens a transaction for vehicles with something to do (`tripDetectionCandidates`), and
 * the retention sweep, a scan of every trip, runs at most every `EXPIRY_INTERVAL_MS`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { deleteTripsEndedBefore, listOpenTripCursors, listVinsWithTripInputs, type TripDetectionCandidate } from '../store/trips-queries.js';
import { detectTripsForVin, type TripDetectionSettings } from './detect-trips.js';
import { TripShardLease } from './trip-shards.js';

export interface TripWorkerSettings extends TripDetectionSettings {
  readonly retentionMs: number;
  readonly intervalMs: number;
}

/** Trips end days apart from their retention limit: sweeping every few minutes is plenty. */
const EXPIRY_INTERVAL_MS = 10 * 60_000;

export interface TripPassReport {
  /** Vehicles that had something to detect (new records, a rewind, an open trip, no cursor yet). */
  vehicles: number;
  records: number;
  trips: number;
  expired: number;
}

export interface TripPassOptions {
  /** Run the retention sweep too (default true). */
  readonly expire?: boolean;
  /** Only the vehicles of the shards this lease holds; every vehicle when absent. */
  readonly shards?: TripShardLease;
}

export async function runTripDetectionOnce(
  store: StoreConnection, clock: Clock, settings: TripWorkerSettings, options: TripPassOptions = {},
): Promise<TripPassReport> {
  const now = clock.now();
  const report: TripPassReport = { vehicles: 0, records: 0, trips: 0, expired: 0 };
  const shards = options.shards;
  if (shards) await shards.renew(now);
  for (const vehicle of await tripDetectionCandidates(store, now - settings.latenessMs, settings)) {
    if (shards) {
      await shards.keep(clock.now());
      if (!shards.holds(vehicle.vin)) continue;
    }
    const r = await detectTripsForVin(store, vehicle.vin, vehicle.fuel_capacity, now, settings);
    report.vehicles += 1;
    report.records += r.records;
    report.trips += r.trips;
  }
  if (options.expire ?? true) report.expired = await deleteTripsEndedBefore(store.db, now - settings.retentionMs);
  return report;
}

/**
 * Vehicles with records to feed, and those whose open trip the horizon now closes (no record for
 * longer than the gap threshold); an open trip still within the gap waits, untouched.
 */
async function tripDetectionCandidates(store: StoreConnection, horizon: number, settings: TripWorkerSettings): Promise<TripDetectionCandidate[]> {
  const byVin = new Map<string, TripDetectionCandidate>();
  for (const c of await listVinsWithTripInputs(store.db, horizon)) byVin.set(c.vin, c);
  for (const c of await listOpenTripCursors(store.db)) {
    if (!byVin.has(c.vin) && horizon - c.lastTs > settings.thresholds.gapMs) byVin.set(c.vin, c);
  }
  return [...byVin.values()].sort((a, b) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : 0));
}

/**
 * The pass as the periodic loop runs it: every `intervalMs`, over the vehicles of the shards this
 * process holds (trip-shards.ts), with the retention sweep at most every 10 minutes.
 */
export function tripDetectionWorker(store: StoreConnection, clock: Clock, settings: TripWorkerSettings, logger: Logger): PeriodicWorker & { readonly shards: TripShardLease } {
  let expiredAt = -Infinity;
  const shards = new TripShardLease(store, logger);
  return {
    name: 'trip detection',
    intervalMs: settings.intervalMs,
    shards,
    async runOnce() {
      const expire = clock.now() - expiredAt >= EXPIRY_INTERVAL_MS;
      if (expire) expiredAt = clock.now();
      const report = await runTripDetectionOnce(store, clock, settings, { expire, shards });
      if (report.trips > 0 || report.expired > 0) logger.info(report, 'trips detected');
    },
  };
}
