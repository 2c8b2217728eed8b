/**
 * Cheap, plausible telemetry for the scaling and mixed-load suites, as a pure function of
 * (vehicle number, instant): any instant of any vehicle can be made on its own, so stored history
 * and records sent later over HTTP continue each other.
 *
 * Each vehicle (a combustion car, 50 l tank) drives three 40-minute trips a day, 8 h apart, at a
 * time of day set by its number; in a trip the speed swings 20–70 km/h around 45 km/h (so a trip is
 * exactly 30 km), the odometer, position, heading, fuel (a sawtooth: refilled every 600 km), range,
 * rpm, coolant and battery voltage follow; parked, the speed is 0 and the engine values rest.
 * No flags, no events, no HV datapoints (16 datapoints filled, as the simulator's combustion cars).
 *
 * Also here: storing such history straight through insertTelemetry (the fast path, in batches),
 * bringing trip detection up to date in-process (so the service does not start by digesting the
 * whole history in the background while it is measured), ingest bodies of 500 records, counting
 * rows, and waiting for the service's trip worker to have visited every vehicle once.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../dist/config/load-config.js';
import { tripSettingsOf } from '../../dist/config/component-settings.js';
import { systemClock } from '../../dist/domain/clock.js';
import { insertTelemetry } from '../../dist/store/telemetry/insert.js';
import { ensureTelemetryPartitions } from '../../dist/store/telemetry/partitions.js';
import { runTripDetectionOnce } from '../../dist/trips/trip-worker.js';

const DAY_S = 86_400;
const TRIP_S = 2_400;
const TRIPS_PER_DAY = 3;
const AVG_KMH = 45;
const SWING_KMH = 25;
const SWING_PERIOD_S = 600;
/** Distance of one whole trip: the swing averages out over 4 whole periods. */
const TRIP_KM = (AVG_KMH * TRIP_S) / 3600;
/** Days counted for the odometer from here (2024-10-08), so it grows slowly and stays in range. */
const ODOMETER_EPOCH_DAY = 20_004;

/** Distance driven `u` seconds into a trip, km (the integral of the speed). */
const tripKm = (u) => (AVG_KMH * u) / 3600 + (SWING_KMH * SWING_PERIOD_S / (2 * Math.PI) / 3600) * (1 - Math.cos((2 * Math.PI * u) / SWING_PERIOD_S));
const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The values of vehicle `n` at `ts` (epoch ms), as the telemetry columns name them (no vin/ts).
 * Deterministic and stateless.
 */
export function syntheticValues(n, ts) {
  const seconds = Math.floor(ts / 1000);
  const day = Math.floor(seconds / DAY_S);
  const secondOfDay = seconds - day * DAY_S;
  const phase = (n * 7_919) % (DAY_S / TRIPS_PER_DAY); // first trip's start, seconds into the day
  // Trips today that have started by now, and whether one is under way.
  let doneToday = 0;
  let into = -1;
  for (let j = 0; j < TRIPS_PER_DAY; j += 1) {
    const start = phase + j * (DAY_S / TRIPS_PER_DAY);
    if (secondOfDay >= start + TRIP_S) doneToday += 1;
    else if (secondOfDay >= start) into = secondOfDay - start;
  }
  const moving = into >= 0;
  const speed = moving ? AVG_KMH + SWING_KMH * Math.sin((2 * Math.PI * into) / SWING_PERIOD_S) : 0;
  const driven = ((day - ODOMETER_EPOCH_DAY) * TRIPS_PER_DAY + doneToday) * TRIP_KM + (moving ? tripKm(into) : 0);
  const odometer = 10_000 + (n % 997) * 37 + driven;
  const fuel = 100 - ((odometer % 600) / 600) * 95;
  const local = driven % 500; // where on its (repeating) round the vehicle is
  const base = (n % 50) * 0.002;
  return {
    speed: round(speed, 1),
    latitude: round(-23.55 + base + 0.05 * Math.sin(local / 40), 6),
    longitude: round(-46.63 - base + 0.05 * Math.cos(local / 31), 6),
    heading: round((local * 37) % 360, 1),
    rpm: moving ? Math.round(900 + speed * 28) : 0,
    odometer: round(odometer, 3),
    fuel_level: round(fuel, 2),
    range: round(fuel * 5.5, 1),
    left_front_tire_pressure: 235 + (n % 7),
    right_front_tire_pressure: 236 + (n % 5),
    left_rear_tire_pressure: 232 + (n % 3),
    right_rear_tire_pressure: 233 + (n % 4),
    oil_level: 80 + (n % 15),
    engine_cooling_temperature: moving ? 90 : 35,
    lv_battery_voltage: moving ? 14.1 : 12.6,
    seat_belt_status: moving ? 'buckled' : 'not buckled',
  };
}

/** A row for insertTelemetry (the columns of `telemetry`; the rest null). */
export const syntheticRow = (vin, n, ts, receivedAt = ts + 2_000) => ({
  vin, ts, ...syntheticValues(n, ts), hv_battery_voltage: null, hv_battery_soc: null, hv_battery_charging_status: null,
  event: null, flag: null, received_at: receivedAt,
});

/** A record as an automaker pushes it to POST /ingest/{oem}. */
export const syntheticRecord = (vin, n, ts) => ({ vin, date_time: new Date(ts).toISOString().replace('.000Z', 'Z'), ...syntheticValues(n, ts) });

/**
 * Stores `spanMs` of history ending at `end` (instants end, end - p, end - 2p, … > end - spanMs)
 * for each vehicle number in `vehicles`, p = periodOf(n) ms, through insertTelemetry in calls of
 * about `batch` rows (PostgreSQL: two calls in flight). Resolves to the number of rows.
 */
export async function storeSyntheticHistory(store, { vehicles, vinOf, end, spanMs, periodOf, batch = 5_000, onProgress }) {
  const from = end - spanMs;
  const instants = [end];
  for (let t = from + 1; t < end; t += 3_600_000) instants.push(t);
  await ensureTelemetryPartitions(store, instants);
  const inFlight = store.capabilities.concurrentWriters ? 2 : 1;
  const pending = new Set();
  let rows = [];
  let stored = 0;
  const flush = async () => {
    const chunk = rows;
    rows = [];
    const p = insertTelemetry(store, chunk).then(() => { pending.delete(p); stored += chunk.length; });
    pending.add(p);
    if (pending.size >= inFlight) await Promise.race(pending);
  };
  let done = 0;
  for (const n of vehicles) {
    const vin = vinOf(n);
    const period = periodOf(n);
    const count = Math.floor((spanMs - 1) / period) + 1;
    for (let k = count - 1; k >= 0; k -= 1) {
      rows.push(syntheticRow(vin, n, end - k * period));
      if (rows.length >= batch) await flush();
    }
    done += 1;
    if (onProgress && done % 100 === 0) onProgress(done, vehicles.length);
  }
  if (rows.length > 0) await flush();
  await Promise.all(pending);
  return stored;
}

/** Brings every vehicle's trips up to date, as the service's trip worker would, with its default settings. */
export function detectTripsNow(store, options) {
  return runTripDetectionOnce(store, systemClock, tripSettingsOf(loadConfig({}, {})), options);
}

/**
 * Median ms of `rounds` trip-worker passes on a fleet whose trips are up to date: what the worker
 * costs every 5 s while nothing new arrives (the retention sweep, run every 10 min, left out).
 */
export async function idleTripPassMs(store, rounds = 5) {
  const times = [];
  for (let i = 0; i < rounds; i += 1) {
    const started = performance.now();
    const report = await detectTripsNow(store, { expire: false });
    times.push(performance.now() - started);
    if (report.records > 0) throw new Error(`an idle trip pass fed ${report.records} records`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/**
 * Bodies (JSON text, one per element) of `perBody` records: the instants of [from, to] that
 * `keep(ts)` accepts, in ascending order, each for every vehicle of `vehicles`, as an automaker
 * reports its fleet; at most `maxBodies` bodies, all full.
 */
export function syntheticIngestBodies({ vehicles, vinOf, from, to, keep, perBody = 500, maxBodies = Infinity }) {
  const bodies = [];
  let records = [];
  for (let ts = Math.ceil(from / 1000) * 1000; ts <= to && bodies.length < maxBodies; ts += 1000) {
    if (!keep(ts)) continue;
    for (const n of vehicles) {
      records.push(syntheticRecord(vinOf(n), n, ts));
      if (records.length === perBody) {
        bodies.push(JSON.stringify({ records }));
        records = [];
        if (bodies.length >= maxBodies) break;
      }
    }
  }
  return bodies;
}

/** Rows in `telemetry`, optionally only those with ts in [from, to]. */
export async function telemetryCount(db, from, to) {
  let q = db.selectFrom('telemetry').select((eb) => eb.fn.countAll().as('n'));
  if (from !== undefined) q = q.where('ts', '>=', from).where('ts', '<=', to);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** After a bulk load: PostgreSQL gets its statistics and visibility map (as autovacuum would in time), SQLite a checkpointed WAL. */
export async function settleAfterLoad(store) {
  if (store.capabilities.name === 'postgres') await sql`vacuum (analyze) telemetry`.execute(store.db);
  else await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
}

/**
 * Waits until the service's trip worker has settled: the trip count and the latest cursor write
 * unchanged over three polls 500 ms apart. The history was detected before the service started,
 * so its first pass only has the trips left open then to look at (it skips idle vehicles).
 */
export async function tripWorkerSettled(db, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  const read = async () => {
    const trips = await db.selectFrom('trips').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const cursors = await db.selectFrom('trip_cursors').select((eb) => eb.fn.max('updated_at').as('at')).executeTakeFirstOrThrow();
    return `${trips.n}/${cursors.at}`;
  };
  let last = await read();
  let stable = 0;
  while (stable < 3) {
    if (Date.now() > deadline) throw new Error(`the service's trip worker did not settle in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
    const now = await read();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}
