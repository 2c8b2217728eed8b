#!/usr/bin/env node
/**
 * `npm run bench:trips` (issue 4): trip detection and POST /vehicle-trips against floors measured
 * in the same run.
 *
 *   node bench/trips.bench.mjs [--quick] [--sqlite-only]
 *
 * detection  records/s through TripDetector.push over 20 simulated vehicles × 7 days at 10 s
 *            (the simulator's own vehicles, seeded), vs a bare loop over the same records that only
 *            reads speed and compares it with the threshold. Median of 5 rounds.
 * store      (info) records/s of the whole incremental path: detectTripsForVin reading the stored
 *            records, feeding the detector and committing trips and cursors.
 * query      POST /vehicle-trips for those 20 VINs, every field, no dates (the last 7 days) over
 *            loopback vs the raw query (select of the same trips, in-process, JSON.stringify).
 *            Median of 20 rounds after a warm-up.
 * Runs on dist/ (the npm script builds first). SQLite always; PostgreSQL too when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is a postgres:// URL, unless --sqlite-only.
 */
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { benchPostgresUrl, createBenchDatabase } from './lib/database.mjs';
import { DEFAULT_TRIP_THRESHOLDS, TripDetector } from '../dist/domain/trip-detection.js';
import { validateFleetFile } from '../dist/domain/fleet-file.js';
import { buildApp } from '../dist/http/build-app.js';
import { createLogger } from '../dist/logger.js';
import { applyFleet } from '../dist/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../dist/security/keyring.js';
import { SimulatedVehicle } from '../dist/sim/simulated-vehicle.js';
import { migrateToLatest } from '../dist/store/migrate.js';
import { openStore } from '../dist/store/open-store.js';
import { insertTelemetry } from '../dist/store/telemetry-queries.js';
import { ensureTelemetryPartitions } from '../dist/store/telemetry-storage.js';
import { detectTripsForVin } from '../dist/trips/detect-trips.js';

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PG_URL = benchPostgresUrl(args);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 15, 0, 0);
const DAYS = QUICK ? 1 : 7;
const VINS = Array.from({ length: 20 }, (_, i) => `9BWTRPSBN000${String(i + 1).padStart(5, '0')}`);
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

function simulate() {
  const series = new Map();
  for (const vin of VINS) {
    const v = new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 5);
    const records = [];
    for (let t = NOW - DAYS * DAY; t <= NOW - 120_000; t += 10_000) {
      v.step(t, 10);
      records.push({ ts: t, speed: Math.round(v.speedKmh * 10) / 10, latitude: v.position.lat, longitude: v.position.lon, odometer: v.odometerKm, fuelLevel: v.energyPct });
    }
    series.set(vin, records);
  }
  return series;
}

function timeDetection(series) {
  const rounds = { detector: [], floor: [] };
  let trips = 0;
  let sink = 0;
  for (let round = 0; round < (QUICK ? 2 : 6); round += 1) {
    let t0 = performance.now();
    trips = 0;
    for (const records of series.values()) {
      const d = new TripDetector(DEFAULT_TRIP_THRESHOLDS, 50);
      for (const r of records) if (d.push(r)) trips += 1;
    }
    const detector = performance.now() - t0;
    t0 = performance.now();
    for (const records of series.values()) for (const r of records) if (r.speed !== null && r.speed > 3) sink += 1;
    const floor = performance.now() - t0;
    if (round > 0) { rounds.detector.push(detector); rounds.floor.push(floor); }
  }
  return { detectorMs: median(rounds.detector), floorMs: median(rounds.floor), trips, sink };
}

async function runOn(kind, series, totalRecords) {
  const database = await createBenchDatabase(kind, PG_URL);
  const store = openStore(database.url, { poolSize: 10 });
  try {
    await migrateToLatest(store);
    const keyring = keyringFromDocument(generateKeyringDocument(), 'bench');
    const fleet = validateFleetFile({
      plans: [{ name: 'full', datapoints: '*', commands: '*' }],
      oems: [{ name: 'benchmotors', connector: 'sim', ingest_key: 'bench-ingest-key-0123456789abcdefghijklm', datapoints: '*', commands: '*' }],
      companies: [{ id: 'bench', name: 'Bench', plan: 'full',
        applications: [{ name: 'reader', client_id: 'bench-reader', client_secret: 'bench-reader-client-secret-0123456789abcdef' }],
        vehicles: VINS.map((vin, i) => ({ vin, plate: `BEN${i}`, oem: 'benchmotors', model: 'M', year: 2024, fuel_capacity: 50 })) }],
    });
    if (!fleet.ok) throw new Error(JSON.stringify(fleet.problems));
    await applyFleet(store.db, fleet.fleet, keyring, NOW);
    for (const [vin, records] of series) {
      const rows = records.map((r) => ({ vin, ts: r.ts, speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuel_level: r.fuelLevel, flag: null, received_at: NOW }));
      await ensureTelemetryPartitions(store, rows.map((r) => r.ts));
      for (let i = 0; i < rows.length; i += 500) await insertTelemetry(store, rows.slice(i, i + 500));
    }
    let t0 = performance.now();
    let trips = 0;
    for (const vin of VINS) trips += (await detectTripsForVin(store, vin, 50, NOW, settings)).trips;
    const storeMs = performance.now() - t0;

    const sink = new Writable({ write(_c, _e, done) { done(); } });
    const app = await buildApp({ store, keyring, clock: { now: () => NOW }, logger: createLogger('warn', sink), tokenSettings: { issuer: 'telematics', audience: 'telematics-api' }, bodyLimit: 1_048_576, telemetryRetentionMs: 192 * 3_600_000, tripLatenessMs: 60_000 });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const tokenRes = await fetch(`${url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=bench-reader&client_secret=bench-reader-client-secret-0123456789abcdef' });
    const { token } = await tokenRes.json();
    const fields = ['start_date_time', 'end_date_time', 'duration', 'avg_speed', 'max_speed', 'start_odometer', 'end_odometer', 'distance', 'avg_fuel_consumption', 'start_latitude', 'start_longitude', 'end_latitude', 'end_longitude'];
    const body = JSON.stringify({ vins: VINS, datapoints: fields });
    const http = [];
    const floor = [];
    let returned = 0;
    for (let round = 0; round < (QUICK ? 3 : 21); round += 1) {
      t0 = performance.now();
      const res = await fetch(`${url}/vehicle-trips`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
      const json = await res.json();
      const h = performance.now() - t0;
      returned = Object.values(json).reduce((n, list) => n + list.length, 0);
      t0 = performance.now();
      const rows = await store.db.selectFrom('trips').selectAll().where('vin', 'in', VINS).where('end_ts', '>=', NOW - 7 * DAY).where('start_ts', '<=', NOW).orderBy('vin').orderBy('start_ts').execute();
      JSON.stringify(rows);
      const f = performance.now() - t0;
      if (round > 0) { http.push(h); floor.push(f); }
    }
    await app.close();
    return { kind, storeRate: totalRecords / (storeMs / 1000), trips, returned, httpMs: median(http), floorMs: median(floor) };
  } finally {
    await store.close();
    await database.drop();
  }
}

const series = simulate();
const total = [...series.values()].reduce((n, r) => n + r.length, 0);
console.error(`[trips] ${VINS.length} vehicles × ${DAYS} days at 10 s: ${fmt(total)} records`);
const detection = timeDetection(series);
const results = [];
for (const kind of ['sqlite', ...(PG_URL ? ['postgres'] : [])]) {
  console.error(`[${kind}] storing, detecting, querying…`);
  results.push(await runOn(kind, series, total));
}

const row = (cells) => console.log(`  ${cells[0].padEnd(58)}${cells.slice(1).map((c) => String(c).padStart(12)).join('')}`);
console.log('\nTrips');
row(['figure', 'service', 'floor', 'ratio']);
row(['detection, records/s (TripDetector vs bare loop)', fmt(total / (detection.detectorMs / 1000)), fmt(total / (detection.floorMs / 1000)), (detection.floorMs / detection.detectorMs).toFixed(3)]);
row(['  trips found in memory', detection.trips, '', '']);
for (const r of results) {
  row([`${r.kind}: incremental detection from the store, records/s`, fmt(r.storeRate), '', '']);
  row([`${r.kind}: trips stored / returned for 20 VINs × 7 days`, `${r.trips} / ${r.returned}`, '', '']);
  row([`${r.kind}: POST /vehicle-trips, ms (median) vs raw query`, fmt(r.httpMs, 1), fmt(r.floorMs, 1), (r.httpMs / r.floorMs).toFixed(2)]);
  if (r.trips !== detection.trips || r.returned !== detection.trips) console.log(`  MISMATCH on ${r.kind}: the store found ${r.trips} trips and returned ${r.returned}, the detector ${detection.trips}`);
}
