/**
 * Trip detection of D9, as a pure state machine fed one record at a time in time order.
 *
 * A trip starts at the first record moving faster than `movingSpeedKmh` and ends at its last
 * moving record once the vehicle has stood still for `stopMs`, or when the data stops for more
 * than `gapMs` (a next record that late, or the clock passing that long after the last record).
 * Trips shorter than `minDurationMs` or `minDistanceKm` are discarded. Ignition is not a datapoint
 * of the interface, so speed alone decides motion.
 *
 * The state is plain JSON so it can be stored between batches and survive restarts.
 */
import { distanceKm } from './geo.js';

export interface TripThresholds {
  readonly movingSpeedKmh: number;
  readonly stopMs: number;
  readonly gapMs: number;
  readonly minDurationMs: number;
  readonly minDistanceKm: number;
}

/** One telemetry record as trips see it; flagged values arrive as null. */
export interface TripInput {
  readonly ts: number;
  readonly speed: number | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  readonly odometer: number | null;
  readonly fuelLevel: number | null;
}

interface Place {
  readonly ts: number;
  readonly odometer: number | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
}

interface OpenTrip {
  start: Place;
  lastMoving: Place;
  maxSpeed: number;
  /** Great-circle km from the start to the last positioned record, and at the last moving one. */
  gpsKm: number;
  gpsKmAtLastMoving: number;
  lastPosition: { lat: number; lon: number } | null;
  firstFuel: number | null;
  fuelAtLastMoving: number | null;
  lastFuel: number | null;
}

export interface TripDetectorState {
  lastTs: number | null;
  trip: OpenTrip | null;
}

export interface DetectedTrip {
  readonly startTs: number;
  readonly endTs: number;
  readonly durationSeconds: number;
  readonly distanceKm: number;
  readonly avgSpeedKmh: number;
  readonly maxSpeedKmh: number;
  readonly startOdometer: number | null;
  readonly endOdometer: number | null;
  /** km/l; null when the fuel used is unknown (no tank capacity, no fuel level, or no drop). */
  readonly avgFuelConsumption: number | null;
  readonly startLatitude: number | null;
  readonly startLongitude: number | null;
  readonly endLatitude: number | null;
  readonly endLongitude: number | null;
}

export const emptyTripState = (): TripDetectorState => ({ lastTs: null, trip: null });

const place = (r: TripInput): Place => ({ ts: r.ts, odometer: r.odometer, latitude: r.latitude, longitude: r.longitude });

function summarize(trip: OpenTrip, thresholds: TripThresholds, tankLiters: number | null): DetectedTrip | undefined {
  const { start, lastMoving: end } = trip;
  const durationMs = end.ts - start.ts;
  const byOdometer = start.odometer !== null && end.odometer !== null && end.odometer >= start.odometer;
  const distance = byOdometer ? end.odometer! - start.odometer! : trip.gpsKmAtLastMoving;
  if (durationMs < thresholds.minDurationMs || distance < thresholds.minDistanceKm) return undefined;
  const fuelUsedLiters = tankLiters !== null && trip.firstFuel !== null && trip.fuelAtLastMoving !== null
    ? ((trip.firstFuel - trip.fuelAtLastMoving) / 100) * tankLiters
    : null;
  return {
    startTs: start.ts,
    endTs: end.ts,
    durationSeconds: Math.round(durationMs / 1000),
    distanceKm: distance,
    avgSpeedKmh: distance / (durationMs / 3_600_000),
    maxSpeedKmh: trip.maxSpeed,
    startOdometer: start.odometer,
    endOdometer: end.odometer,
    avgFuelConsumption: fuelUsedLiters !== null && fuelUsedLiters > 0 ? distance / fuelUsedLiters : null,
    startLatitude: start.latitude,
    startLongitude: start.longitude,
    endLatitude: end.latitude,
    endLongitude: end.longitude,
  };
}

export class TripDetector {
  readonly #thresholds: TripThresholds;
  readonly #tankLiters: number | null;
  state: TripDetectorState;

  constructor(thresholds: TripThresholds, tankLiters: number | null, state: TripDetectorState = emptyTripState()) {
    this.#thresholds = thresholds;
    this.#tankLiters = tankLiters;
    this.state = state;
  }

  /** Feeds one record (in time order); returns the trip it completed, if any. */
  push(r: TripInput): DetectedTrip | undefined {
    const t = this.#thresholds;
    let finished: DetectedTrip | undefined;
    if (this.state.lastTs !== null && r.ts - this.state.lastTs > t.gapMs) finished = this.#close();
    this.state.lastTs = r.ts;
    const moving = r.speed !== null && r.speed > t.movingSpeedKmh;
    const trip = this.state.trip;
    if (!trip) {
      if (moving) this.#open(r);
      return finished;
    }
    if (r.latitude !== null && r.longitude !== null) {
      const here = { lat: r.latitude, lon: r.longitude };
      if (trip.lastPosition) trip.gpsKm += distanceKm(trip.lastPosition, here);
      trip.lastPosition = here;
    }
    if (r.fuelLevel !== null) {
      trip.lastFuel = r.fuelLevel;
      trip.firstFuel ??= r.fuelLevel;
    }
    if (moving) {
      trip.lastMoving = place(r);
      trip.maxSpeed = Math.max(trip.maxSpeed, r.speed!);
      trip.gpsKmAtLastMoving = trip.gpsKm;
      trip.fuelAtLastMoving = trip.lastFuel;
    } else if (r.ts - trip.lastMoving.ts >= t.stopMs) {
      finished = this.#close() ?? finished;
    }
    return finished;
  }

  /** Closes an open trip whose data stopped more than the gap before `now`. */
  flush(now: number): DetectedTrip | undefined {
    if (this.state.trip && this.state.lastTs !== null && now - this.state.lastTs > this.#thresholds.gapMs) return this.#close();
    return undefined;
  }

  /** Start of the trip in progress, if any. */
  get openSince(): number | null {
    return this.state.trip?.start.ts ?? null;
  }

  #open(r: TripInput): void {
    this.state.trip = {
      start: place(r),
      lastMoving: place(r),
      maxSpeed: r.speed!,
      gpsKm: 0,
      gpsKmAtLastMoving: 0,
      lastPosition: r.latitude !== null && r.longitude !== null ? { lat: r.latitude, lon: r.longitude } : null,
      firstFuel: r.fuelLevel,
      fuelAtLastMoving: r.fuelLevel,
      lastFuel: r.fuelLevel,
    };
  }

  #close(): DetectedTrip | undefined {
    const trip = this.state.trip;
    this.state.trip = null;
    return trip ? summarize(trip, this.#thresholds, this.#tankLiters) : undefined;
  }
}
