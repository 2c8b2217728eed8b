/**
 * Trips: detection against a bare loop, the incremental detection through the store, and
 * POST /vehicle-trips from the service (`telematics serve`, its own process) against the raw
 * query. No targets: information.
 *
 * Data: the 20 bench vehicles as the simulator drives them (dist/sim, seeded, no faulty values),
 * one record every 10 s for 7 days (--quick: 1) ending 15 minutes ago, past the gap threshold and
 * the late-arrival window: every trip is closed, so the service's own detection finds nothing more.
 * Stored through insertTelemetry before anything is timed.
 *
 * - detection: records/s through TripDetector.push over those records in memory, vs a bare loop
 *   over the same records that only reads speed and compares it with the threshold. Median of 5
 *   rounds after one (--quick: 1 after one). CPU figures, in this process.
 * - store: records/s of detectTripsForVin for the 20 VINs in this process (reads the stored
 *   records, feeds the detector, commits trips and cursors), before the service starts.
 * - query: POST /vehicle-trips for the 20 VINs, every field, over the data's period, by autocannon
 *   from its own process: ms per request with 1 connection (1000 / requests/s), and requests/s with
 *   4; medians of 5 rounds of 5 s after a warm-up (--quick: 1 of 1 s). Floor: the select of the
 *   same trips plus JSON.stringify in this process, median of 21 rounds (--quick: 3).
 *
 * Checked: the trips stored, the trips the service returns and the trips the in-memory detector
 * finds are as many, before the timing and again after it.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TripDetector } from '../../dist/domain/trip-detection.js';
import { tripSettingsOf } from '../../dist/config/component-settings.js';
import { loadConfig } from '../../dist/config/load-config.js';
import { TRIP_FIELDS } from '../../dist/trips/query-trips.js';
import { detectTripsForVin } from '../../dist/trips/detect-trips.js';
import { createFixture, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { measureRates } from '../lib/load.mjs';
import { startService } from '../lib/processes.mjs';
import { median } from '../lib/report.mjs';
import { checkedRecord, gridNow, insertRecords, isoSeconds, simulatedRecords } from '../lib/telemetry.mjs';

export const name = 'trips';

const DAY = 86_400_000;
const VEHICLES = 20;
/** The bench fleet's tank capacity, liters (fixture.mjs). */
const TANK_LITERS = 50;
/** The service's defaults (`serve` without trip flags). */
const DEFAULT_TRIP_THRESHOLDS = tripSettingsOf(loadConfig({}, {})).thresholds;
const SETTINGS = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000 };

export async function run(ctx) {
  const days = ctx.quick ? 1 : 7;
  const vins = Array.from({ length: VEHICLES }, (_, i) => vinOf(i));
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: VEHICLES });
  const { db } = fixture.store;
  let service;
  try {
    const period = { end: gridNow() - 15 * 60_000 };
    period.start = period.end - days * DAY + 10_000;
    ctx.log(`simulating and storing ${VEHICLES} vehicles × ${days} d at 10 s`);
    const series = await simulateAndStore(fixture.store, vins, period);
    const total = [...series.values()].reduce((n, s) => n + s.length, 0);

    const detection = timeDetection(series, ctx.quick ? 2 : 6);
    ctx.log(`in memory: ${detection.trips} trips in ${total} records`);

    let t0 = performance.now();
    let stored = 0;
    for (const vin of vins) stored += (await detectTripsForVin(fixture.store, vin, TANK_LITERS, Date.now(), SETTINGS)).trips;
    const storeMs = performance.now() - t0;
    if (stored !== detection.trips) throw new Error(`detectTripsForVin stored ${stored} trips, the detector found ${detection.trips}`);

    service = await startService({ database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log') });
    const url = `${service.url}/vehicle-trips`;
    const headers = { authorization: `Bearer ${await tokenFrom(service.url)}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ vins, datapoints: Object.keys(TRIP_FIELDS), start_date: isoSeconds(period.start), end_date: isoSeconds(period.end) });
    const check = async (when) => {
      const returned = await countReturned(url, headers, body);
      const inStore = await countStored(db, vins);
      if (returned !== detection.trips || inStore !== detection.trips) {
        throw new Error(`${when}: the service returned ${returned} trips and holds ${inStore}, the detector found ${detection.trips}`);
      }
    };
    await check('before timing');

    const floors = [];
    for (let i = 0; i < (ctx.quick ? 3 : 21); i += 1) floors.push(await readFloor(db, vins, period));
    const at = (connections) => ({ name: `c${connections}`, url, method: 'POST', headers, body, connections });
    const r = await measureRates([at(1), at(4)], ctx.quick ? { rounds: 1, seconds: 1, warmupSeconds: 1 } : { rounds: 5, seconds: 5, warmupSeconds: 3 });
    await check('after timing');
    const floorMs = median(floors.map((f) => f.ms));
    ctx.log(`POST /vehicle-trips: ${r.c1.rounds.join(', ')} requests/s at 1 connection, ${r.c4.rounds.join(', ')} at 4; floor ${floorMs.toFixed(1)} ms`);

    const fig = (figure, service, floor, digits) => ({ section: ctx.section, suite: name, name: figure, service, floor, digits });
    return [
      fig(`detection, records/s (TripDetector vs a bare loop; ${total.toLocaleString('en-US')} records)`, total / (detection.detectorMs / 1000), total / (detection.floorMs / 1000)),
      fig('trips found (stored = returned = in memory)', detection.trips, undefined, 0),
      fig('incremental detection from the store, records/s', total / (storeMs / 1000)),
      fig(`POST /vehicle-trips, ${VEHICLES} VINs × ${days} d, every field, ms per request (1 connection)`, 1000 / r.c1.rps, floorMs, 1),
      fig('POST /vehicle-trips, requests/s at 4 connections', r.c4.rps, undefined, 0),
    ];
  } finally {
    await service?.stop();
    await fixture.drop();
  }
}

/**
 * Generates the records, stores them as ingest would (in chunks, so the full records are never
 * all held), and keeps per VIN what trip detection reads.
 */
async function simulateAndStore(store, vins, period) {
  const series = new Map(vins.map((vin) => [vin, []]));
  const now = Date.now();
  let pending = [];
  for (const raw of simulatedRecords({ vins, from: period.start, to: period.end, tankLiters: TANK_LITERS })) {
    const record = checkedRecord(raw, now);
    const v = record.values;
    series.get(record.vin).push({ ts: record.ts, speed: v.speed ?? null, latitude: v.latitude ?? null, longitude: v.longitude ?? null, odometer: v.odometer ?? null, fuelLevel: v.fuel_level ?? null });
    pending.push(record);
    if (pending.length === 10_000) {
      await insertRecords(store, pending, { receivedAt: now });
      pending = [];
    }
  }
  await insertRecords(store, pending, { receivedAt: now });
  return series;
}

/** TripDetector over every VIN's series (trips closed at the end, as the store's detection closes them) vs a bare loop. */
function timeDetection(series, rounds) {
  const detector = [];
  const floor = [];
  let trips = 0;
  let sink = 0;
  for (let round = 0; round < rounds; round += 1) {
    let t0 = performance.now();
    trips = 0;
    for (const records of series.values()) {
      const d = new TripDetector(DEFAULT_TRIP_THRESHOLDS, TANK_LITERS);
      for (const r of records) if (d.push(r)) trips += 1;
      if (d.flush(Number.POSITIVE_INFINITY)) trips += 1;
    }
    const detectorMs = performance.now() - t0;
    t0 = performance.now();
    for (const records of series.values()) for (const r of records) if (r.speed !== null && r.speed > DEFAULT_TRIP_THRESHOLDS.movingSpeedKmh) sink += 1;
    const floorMs = performance.now() - t0;
    if (round > 0) {
      detector.push(detectorMs);
      floor.push(floorMs);
    }
  }
  return { detectorMs: median(detector), floorMs: median(floor), trips, sink };
}

/** The floor: the same trips straight from the database, serialized in one JSON.stringify. */
async function readFloor(db, vins, period) {
  const t0 = performance.now();
  const rows = await db.selectFrom('trips').selectAll().where('vin', 'in', vins).where('end_ts', '>=', period.start).where('start_ts', '<=', period.end)
    .orderBy('vin').orderBy('start_ts').execute();
  JSON.stringify(rows);
  return { ms: performance.now() - t0, rows: rows.length };
}

async function countReturned(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body });
  if (res.status !== 200) throw new Error(`POST /vehicle-trips: ${res.status} ${await res.text()}`);
  return Object.values(await res.json()).reduce((n, list) => n + list.length, 0);
}

async function countStored(db, vins) {
  const row = await db.selectFrom('trips').select((eb) => eb.fn.countAll().as('n')).where('vin', 'in', vins).executeTakeFirstOrThrow();
  return Number(row.n);
}
