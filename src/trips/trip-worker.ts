/**
 * The background side of trips: `runTripDetectionOnce` brings every vehicle's trips up to date
 * and drops trips past retention; `startTripDetection` repeats it every few seconds.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { deleteTripsEndedBefore } from '../store/trips-queries.js';
import { listAllVehicles } from '../store/vehicles-queries.js';
import { detectTripsForVin, type TripDetectionSettings } from './detect-trips.js';

export interface TripWorkerSettings extends TripDetectionSettings {
  readonly retentionMs: number;
  readonly intervalMs: number;
}

export interface TripPassReport {
  vehicles: number;
  records: number;
  trips: number;
  expired: number;
}

export async function runTripDetectionOnce(store: StoreConnection, clock: Clock, settings: TripWorkerSettings): Promise<TripPassReport> {
  const now = clock.now();
  const report: TripPassReport = { vehicles: 0, records: 0, trips: 0, expired: 0 };
  for (const vehicle of await listAllVehicles(store.db)) {
    const r = await detectTripsForVin(store, vehicle.vin, vehicle.fuelCapacity, now, settings);
    report.vehicles += 1;
    report.records += r.records;
    report.trips += r.trips;
  }
  report.expired = await deleteTripsEndedBefore(store.db, now - settings.retentionMs);
  return report;
}

export function startTripDetection(store: StoreConnection, clock: Clock, settings: TripWorkerSettings, logger: Logger): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = runTripDetectionOnce(store, clock, settings).then(
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
