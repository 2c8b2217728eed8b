/**
 * A trip as the interface renders it (POST /vehicle-trips, and the data of `trip.ended`): each
 * field in its unit and rounding. Facts are named as the trips table names them. Pure: no I/O.
 */
import { formatDuration, formatIsoLocal } from './time.js';
import type { DetectedTrip } from './trip-detection.js';

export interface TripFacts {
  readonly vin: string;
  readonly start_ts: number;
  readonly end_ts: number;
  readonly duration_s: number;
  readonly distance_km: number;
  readonly avg_speed: number;
  readonly max_speed: number;
  readonly start_odometer: number | null;
  readonly end_odometer: number | null;
  readonly avg_fuel_consumption: number | null;
  readonly start_latitude: number | null;
  readonly start_longitude: number | null;
  readonly end_latitude: number | null;
  readonly end_longitude: number | null;
}

const round = (value: number | null, digits: number) => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);

/** The trip record's fields, each rendered as the interface wants it (km, km/h, km/l, degrees). */
export const TRIP_FIELDS: Readonly<Record<string, (t: TripFacts) => string | number | null>> = Object.freeze({
  vin: (t) => t.vin,
  start_date_time: (t) => formatIsoLocal(t.start_ts),
  end_date_time: (t) => formatIsoLocal(t.end_ts),
  duration: (t) => formatDuration(t.duration_s),
  avg_speed: (t) => round(t.avg_speed, 2),
  max_speed: (t) => round(t.max_speed, 2),
  start_odometer: (t) => round(t.start_odometer, 3),
  end_odometer: (t) => round(t.end_odometer, 3),
  distance: (t) => round(t.distance_km, 3),
  avg_fuel_consumption: (t) => round(t.avg_fuel_consumption, 2),
  start_latitude: (t) => t.start_latitude,
  start_longitude: (t) => t.start_longitude,
  end_latitude: (t) => t.end_latitude,
  end_longitude: (t) => t.end_longitude,
});

/** Where and when a trip started, as known when detection opens it. */
export type TripStart = Pick<TripFacts, 'vin' | 'start_ts' | 'start_odometer' | 'start_latitude' | 'start_longitude'>;

/** The fields of a trip record known at its start (the data of `trip.started`). */
export function tripStartRecord(start: TripStart): Record<string, string | number | null> {
  return {
    vin: start.vin, start_date_time: formatIsoLocal(start.start_ts), start_odometer: round(start.start_odometer, 3),
    start_latitude: start.start_latitude, start_longitude: start.start_longitude,
  };
}

/**
 * The telemetry datapoints a trip field is derived from: an event shows a field only to a
 * company whose plan (and the vehicle's OEM) include every one of them (D12). Times, duration
 * and the VIN come from the record instants themselves. Distance is measured by the odometer,
 * or by positions where there is none, so it needs one or the other.
 */
export const TRIP_FIELD_SOURCES: Readonly<Record<string, readonly (readonly string[])[]>> = Object.freeze({
  vin: [[]], start_date_time: [[]], end_date_time: [[]], duration: [[]],
  avg_speed: [['speed']], max_speed: [['speed']],
  start_odometer: [['odometer']], end_odometer: [['odometer']],
  distance: [['odometer'], ['latitude', 'longitude']],
  avg_fuel_consumption: [['fuel_level']],
  start_latitude: [['latitude']], end_latitude: [['latitude']],
  start_longitude: [['longitude']], end_longitude: [['longitude']],
});

/** Every field of the record. */
export function tripRecord(trip: TripFacts): Record<string, string | number | null> {
  const record: Record<string, string | number | null> = {};
  for (const [name, render] of Object.entries(TRIP_FIELDS)) record[name] = render(trip);
  return record;
}

/** A detected trip as facts of one VIN. */
export function tripFacts(vin: string, t: DetectedTrip): TripFacts {
  return {
    vin, start_ts: t.startTs, end_ts: t.endTs, duration_s: t.durationSeconds, distance_km: t.distanceKm,
    avg_speed: t.avgSpeedKmh, max_speed: t.maxSpeedKmh, start_odometer: t.startOdometer, end_odometer: t.endOdometer,
    avg_fuel_consumption: t.avgFuelConsumption, start_latitude: t.startLatitude, start_longitude: t.startLongitude,
    end_latitude: t.endLatitude, end_longitude: t.endLongitude,
  };
}
