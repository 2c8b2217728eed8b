/**
 * Incremental trip detection from stored telemetry. Each VIN has a cursor: the detector's state
 * after the last record it was fed. A pass feeds the records after the cursor, up to
 * `now - latenessMs` (records still arriving in that window wait for the next pass), in chunks of
 * bounded transactions, so history is never rescanned and a restart resumes exactly where the
 * last commit left off (an open trip included).
 *
 * A record that arrives after the cursor has passed its instant marks the cursor for a rewind
 * (`markTripRewind` at ingest). The next pass goes back to a point where the detector is known to
 * be idle (before the earliest trip the record could touch), drops the trips from there and
 * detects them again, so late and out-of-order arrival give the same trips as in-order arrival.
 */
import { emptyTripState, TripDetector, type DetectedTrip, type TripThresholds } from '../domain/trip-detection.js';
import type { StoreConnection } from '../store/connection.js';
import { tripEndedEvent, tripStartedEvent, type EventDraft } from '../domain/events.js';
import { tripFacts, type TripStart } from '../domain/trip-record.js';
import { appendEvents } from '../store/event-appends.js';
import { findVehicle } from '../store/vehicles-queries.js';
import { oldestTelemetryTs } from '../store/telemetry/read.js';
import {
  claimTripCursor, countTripInputs, deleteTripsStartingFrom, earliestTripEndingFrom, insertTrips, readTripInputs, saveTripCursor, tripEndOf,
} from '../store/trips-queries.js';

export interface TripDetectionSettings {
  readonly thresholds: TripThresholds;
  /** Records younger than this are left for the next pass: the window for late arrival without a rewind. */
  readonly latenessMs: number;
}

/** Records fed per transaction: short write locks on SQLite, whatever the backlog. */
const CHUNK = 5_000;

export interface VinDetectionReport {
  records: number;
  trips: number;
}

/** One chunk for one VIN; returns undefined when another instance holds the VIN. */
async function detectChunk(
  store: StoreConnection, vin: string, tankLiters: number | null, now: number, settings: TripDetectionSettings,
): Promise<{ records: number; trips: number; caughtUp: boolean } | undefined> {
  return store.db.transaction().execute(async (trx) => {
    const cursor = await claimTripCursor(trx, store.capabilities, vin, now);
    if (!cursor) return undefined;
    let state = cursor.state;
    let after = cursor.processedUntil;
    const rewinding = cursor.rewindFrom !== null;
    if (cursor.rewindFrom !== null) {
      const { stopMs, gapMs } = settings.thresholds;
      let idleAt = cursor.rewindFrom - stopMs - gapMs;
      const affected = await earliestTripEndingFrom(trx, vin, idleAt);
      if (affected !== undefined) idleAt = Math.min(idleAt, affected);
      if (state.trip) idleAt = Math.min(idleAt, state.trip.start.ts);
      await deleteTripsStartingFrom(trx, vin, idleAt);
      state = emptyTripState();
      after = idleAt - 1;
    }
    const detector = new TripDetector(settings.thresholds, tankLiters, state);
    const rows = await readTripInputs(trx, vin, after, now - settings.latenessMs, CHUNK);
    const trips: DetectedTrip[] = [];
    const starts: TripStart[] = [];
    let openSince = detector.openSince;
    for (const r of rows) {
      const trip = detector.push({ ts: r.ts, speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuelLevel: r.fuel_level });
      if (trip) trips.push(trip);
      if (detector.openSince !== openSince) {
        openSince = detector.openSince;
        const start = detector.state.trip?.start;
        if (start) starts.push({ vin, start_ts: start.ts, start_odometer: start.odometer, start_latitude: start.latitude, start_longitude: start.longitude });
      }
    }
    const caughtUp = rows.length < CHUNK;
    let last = rows.at(-1)?.ts ?? after;
    // Data stopped: close the open trip. That decision rests on there being no record up to the
    // horizon, so the cursor moves to the horizon: a buffered record arriving later for that
    // stretch makes detection rewind instead of starting a second trip.
    if (caughtUp) {
      const horizon = now - settings.latenessMs;
      const trip = detector.flush(horizon);
      if (trip) {
        trips.push(trip);
        last = Math.max(last, horizon);
      }
    }
    // Nothing fed, closed or rewound: the cursor already says this, so leave the row alone.
    if (rows.length === 0 && trips.length === 0 && !rewinding) return { records: 0, trips: 0, caughtUp };
    const stored = await insertTrips(trx, vin, trips, now);
    // `trip.started` as detection opens a trip and `trip.ended` for each trip stored, in the same
    // transaction, after its other writes (appendEvents: the append is a transaction's last
    // write). Detected again unchanged after a rewind, a trip makes the same events (their ids
    // are the VIN and instants); changed, new ones.
    await saveTripCursor(trx, vin, last, detector.state, now);
    const ended = trips.filter((t) => stored.has(t.startTs));
    if (starts.length > 0 || ended.length > 0) {
      const vehicle = await findVehicle(trx, vin);
      if (vehicle) {
        const events: EventDraft[] = starts.map((s) => tripStartedEvent(vehicle.companyId, s));
        for (const t of ended) events.push(tripEndedEvent(vehicle.companyId, tripFacts(vin, t)));
        await appendEvents(trx, events, now);
      }
    }
    return { records: rows.length, trips: trips.length, caughtUp };
  });
}

/** Feeds a VIN's pending records to its detector until caught up. */
export async function detectTripsForVin(
  store: StoreConnection, vin: string, tankLiters: number | null, now: number, settings: TripDetectionSettings,
  onProgress?: (records: number) => void,
): Promise<VinDetectionReport> {
  const report = { records: 0, trips: 0 };
  for (;;) {
    const chunk = await detectChunk(store, vin, tankLiters, now, settings);
    if (!chunk) return report;
    report.records += chunk.records;
    report.trips += chunk.trips;
    onProgress?.(report.records);
    if (chunk.caughtUp) return report;
  }
}

/** How many records a VIN's detection has pending (for progress output). */
export async function pendingTripInputs(store: StoreConnection, vin: string, since: number, now: number, settings: TripDetectionSettings): Promise<number> {
  return countTripInputs(store.db, vin, since - 1, now - settings.latenessMs);
}

/**
 * The earliest instant a rebuild of `vin` may start from without deleting trips it cannot detect
 * again: telemetry is kept days, trips months. The rewind goes back stop + gap before its start
 * and to the start of any trip ending after that, so both must lie within the stored records.
 */
export async function safeRebuildStart(store: StoreConnection, vin: string, since: number, settings: TripDetectionSettings): Promise<number | undefined> {
  const oldest = await oldestTelemetryTs(store.db, vin);
  if (oldest === undefined) return undefined;
  const margin = settings.thresholds.stopMs + settings.thresholds.gapMs;
  let start = Math.max(since, oldest + margin);
  for (;;) {
    const affectedStart = await earliestTripEndingFrom(store.db, vin, start - margin);
    if (affectedStart === undefined || affectedStart >= oldest) return start;
    // A trip begun before the oldest record would be cut: start after it instead.
    start = (await tripEndOf(store.db, vin, affectedStart)) + margin + 1000;
  }
}
