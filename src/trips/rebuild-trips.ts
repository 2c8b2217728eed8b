/**
 * `telematics trips rebuild`: recompute trips from stored telemetry from an instant on (after a
 * change of thresholds, say). Never reaches back before a vehicle's stored telemetry: trips
 * older than that could not be detected again and are kept.
 */
import type { StoreConnection } from '../store/connection.js';
import { markTripRewind } from '../store/trips-queries.js';
import { detectTripsForVin, pendingTripInputs, safeRebuildStart, type TripDetectionSettings } from './detect-trips.js';

export interface RebuildVehicle {
  readonly vin: string;
  readonly fuelCapacity: number | null;
}

export interface RebuildReport {
  vehicles: number;
  records: number;
  trips: number;
  /** Vehicles whose rebuild starts later than asked, where their stored telemetry begins. */
  clamped: number;
}

export interface RebuildProgress {
  /** Called once the work is known, before any is done. */
  start(report: RebuildReport, totalRecords: number): void;
  update(records: number, totalRecords: number): void;
}

export async function rebuildTrips(
  store: StoreConnection, vehicles: readonly RebuildVehicle[], since: number, now: number, settings: TripDetectionSettings, progress?: RebuildProgress,
): Promise<RebuildReport> {
  const report: RebuildReport = { vehicles: vehicles.length, records: 0, trips: 0, clamped: 0 };
  const starts = new Map<string, number>();
  for (const v of vehicles) {
    const start = await safeRebuildStart(store, v.vin, since, settings);
    if (start === undefined) continue;
    if (start > since) report.clamped += 1;
    starts.set(v.vin, start);
  }
  let total = 0;
  for (const [vin, start] of starts) total += await pendingTripInputs(store, vin, start, now, settings);
  progress?.start(report, total);
  for (const v of vehicles) {
    const start = starts.get(v.vin);
    if (start === undefined) continue;
    await markTripRewind(store.db, store.capabilities, v.vin, start);
    const done = report.records;
    const r = await detectTripsForVin(store, v.vin, v.fuelCapacity, now, settings, (records) => progress?.update(done + records, total));
    report.records += r.records;
    report.trips += r.trips;
  }
  return report;
}
