/**
 * The background side of trips: `runTripDetectionOnce` brings every vehicle's trips up to date
 * and drops trips past retention; `startTripDetection` repeats it every few seconds. A pass only
 * opens a transaction for vehicles with something to do (see `listTripDetectionCandidates`), and
 * the retention sweep, a scan of every trip, runs at most every `EXPIRY_INTERVAL_MS`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { deleteTripsEndedBefore, listTripDetectionCandidates } from '../store/trips-queries.js';
import { detectTripsForVin, type TripDetectionSettings } from './detect-trips.js';

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

export async function runTripDetectionOnce(
  store: StoreConnection, clock: Clock, settings: TripWorkerSettings, options: { expire?: boolean } = {},
): Promise<TripPassReport> {
  const now = clock.now();
  const report: TripPassReport = { vehicles: 0, records: 0, trips: 0, expired: 0 };
  for (const vehicle of await listTripDetectionCandidates(store.db, now - settings.latenessMs)) {
    const r = await detectTripsForVin(store, vehicle.vin, vehicle.fuel_capacity, now, settings);
    report.vehicles += 1;
    report.records += r.records;
    report.trips += r.trips;
  }
  if (options.expire ?? true) report.expired = await deleteTripsEndedBefore(store.db, now - settings.retentionMs);
  return report;
}

export function startTripDetection(store: StoreConnection, clock: Clock, settings: TripWorkerSettings, logger: Logger): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let expiredAt = -Infinity;
  const pass = () => {
    const expire = clock.now() - expiredAt >= EXPIRY_INTERVAL_MS;
    if (expire) expiredAt = clock.now();
    running = runTripDetectionOnce(store, clock, settings, { expire }).then(
      (r) => { if (r.trips > 0 || r.expired > 0) logger.info(r, 'trips detected'); },
      (error: unknown) => { logger.error({ err: error }, 'trip detection pass failed; retrying'); },
    ).finally(() => {
      if (!stopped) timer = setTimeout(pass, settings.intervalMs);
    });
  };
  timer = setTimeout(pass, 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
