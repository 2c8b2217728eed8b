/**
 * POST /vehicle-trips (D9): finished trips overlapping a period, grouped by VIN, holding only the
 * requested fields. `YYYY-MM-DD` means T00:00:00 as a start and T23:59:59 as an end, at -03:00;
 * no dates means the last 7 days; only a start runs to now; only an end reaches back to the
 * oldest trip kept.
 */
import { errors, ServiceError } from '../domain/errors.js';
import { TRIP_FIELDS } from '../domain/trip-record.js';
import { parseDateField } from '../domain/data-window.js';
import type { Db } from '../store/connection.js';
import { listTripsOverlapping } from '../store/trips-queries.js';
import { findAllCompanyVehicles } from '../store/vehicles-queries.js';

export const MAX_TRIP_VINS = 100;
const DAY_MS = 86_400_000;

export { TRIP_FIELDS } from '../domain/trip-record.js';

export interface VehicleTripsRequest {
  readonly vins: readonly string[];
  readonly datapoints: readonly string[];
  readonly start_date?: string | undefined;
  readonly end_date?: string | undefined;
}

export function resolveTripPeriod(startText: string | undefined, endText: string | undefined, now: number): { start: number; end: number } {
  const start = parseDateField('start_date', startText)?.epochMs;
  const parsedEnd = parseDateField('end_date', endText);
  // D9: a date-only end_date means T23:59:59 of that day.
  const end = parsedEnd && (parsedEnd.dateOnly ? parsedEnd.epochMs + DAY_MS - 1000 : parsedEnd.epochMs);
  if (start === undefined && end === undefined) return { start: now - 7 * DAY_MS, end: now };
  if (start !== undefined && end !== undefined && start > end) throw new ServiceError(errors.startAfterEnd);
  return { start: start ?? 0, end: end ?? now };
}

export async function queryVehicleTrips(db: Db, companyId: string, request: VehicleTripsRequest, now: number) {
  const vins = [...new Set(request.vins)];
  if (vins.length > MAX_TRIP_VINS) throw new ServiceError(errors.tooManyTripVins);
  const period = resolveTripPeriod(request.start_date, request.end_date, now);
  if (!(await findAllCompanyVehicles(db, companyId, vins))) throw new ServiceError(errors.vinNotFound);
  const datapoints = [...new Set(request.datapoints)];
  const unknown = datapoints.find((d) => !Object.hasOwn(TRIP_FIELDS, d));
  if (unknown !== undefined) throw new ServiceError(errors.unknownDatapoint, { name: unknown });

  const fields = datapoints.map((d) => [d, TRIP_FIELDS[d]!] as const);
  const result: Record<string, Record<string, string | number | null>[]> = Object.fromEntries(vins.map((vin) => [vin, []]));
  for (const t of await listTripsOverlapping(db, vins, period.start, period.end)) {
    const record: Record<string, string | number | null> = {};
    for (const [name, render] of fields) record[name] = render(t);
    result[t.vin]!.push(record);
  }
  return result;
}
