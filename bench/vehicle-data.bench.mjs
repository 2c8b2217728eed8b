#!/usr/bin/env node
/**
 * `npm run bench:data` (issue 3): telemetry ingest and POST /vehicle-data against floors measured
 * in the same run, on the same database, in the same process.
 *
 *   node --expose-gc bench/vehicle-data.bench.mjs [--quick] [--sqlite-only] [--rounds=N] [--profile]
 *
 * --profile writes a .cpuprofile of the timed HTTP read rounds (server and client share the
 * process) to the temp directory; `node bench/profile-summary.mjs FILE` lists where time goes.
 *
 * Runs on the build output (`npm run build` first; the npm scripts do it). SQLite always; also
 * PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is a postgres:// URL on which databases
 * may be created and dropped (a fresh one is made and dropped), unless --sqlite-only.
 *
 * Data: 20 vehicles of one company (plan "full"; OEM "benchmotors", connector "sim", datapoints
 * "*"), one record every 10 s for 2 days before a fixed NOW (the service clock is frozen there),
 * every numeric datapoint filled with a plausible value inside its D8 range (deterministic PRNG).
 * Instants are NOW - 5 s - k·10 s, so the default window [NOW-24 h, NOW] holds exactly 8,640
 * records per VIN: 172,800 in all.
 *
 * Figures (service vs floor):
 *   ingest   older half over HTTP (POST /ingest/{oem}, 500 records per batch, 4 requests in
 *            flight, bodies serialized before timing) vs the newer half inserted straight with
 *            insertTelemetry(toTelemetryRow(...)) (500 per call, 4 calls in flight). Records/s.
 *   read     POST /vehicle-data, 20 VINs, every datapoint, no dates, body read to the end over
 *            loopback (bytes only) vs one Kysely select of the same columns and rows ordered by
 *            (vin, ts) and JSON.stringify of the result. Median of 5 rounds after a warm-up that
 *            also checks the response (record count, datapoints).
 *   TTFB     fetch() start to the first body chunk, median. In-process, the client runs only
 *            when the service yields its thread, so this is inflated when the service does not.
 *   curl     (when curl is installed) the same read from another process: total time, TTFB
 *            a remote client would see, the service's peak RSS growth over the rounds (the judged
 *            memory figure: the client's buffers are not in it), and the longest stall of the service's event loop during
 *            the response (how long any other request would have waited).
 *   RSS      process RSS sampled every 20 ms during the timed HTTP rounds; growth over the RSS
 *            measured (after a GC) just before them; also the first round alone. Client and server
 *            share the process, so this includes the client's buffers. For telling garbage from
 *            retention (needs --expose-gc): the heap after a full GC once the rounds are over, and
 *            the live memory of one more, untimed read sampled right after forced GCs.
 *
 * The exit code is 0 whether targets are met or not: this is a report. Misses print MISSED.
 */
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Session } from 'node:inspector/promises';
import { Writable } from 'node:stream';
import { createBenchDatabase, benchPostgresUrl } from './lib/database.mjs';
import { sql } from 'kysely';
import { DATAPOINT_NAMES } from '../dist/domain/datapoints.js';
import { validateFleetFile } from '../dist/domain/fleet-file.js';
import { checkTelemetryRecord, STORED_DATAPOINTS } from '../dist/domain/telemetry-record.js';
import { buildApp } from '../dist/http/build-app.js';
import { createLogger } from '../dist/logger.js';
import { applyFleet } from '../dist/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../dist/security/keyring.js';
import { migrateToLatest } from '../dist/store/migrate.js';
import { openStore } from '../dist/store/open-store.js';
import { insertTelemetry, toTelemetryRow } from '../dist/store/telemetry-queries.js';
import { ensureTelemetryPartitions } from '../dist/store/telemetry-storage.js';

// ---------------------------------------------------------------------------------------------
// Settings

const USAGE = 'usage: vehicle-data.bench.mjs [--quick] [--sqlite-only] [--rounds=N] [--profile]';
const argv = new Set(process.argv.slice(2));
let roundsArg;
for (const a of argv) {
  const m = /^--rounds=(\d+)$/.exec(a);
  if (m && Number(m[1]) >= 1) roundsArg = Number(m[1]);
  else if (!['--quick', '--sqlite-only', '--profile'].includes(a)) {
    console.error(`unknown argument ${a}; ${USAGE}`);
    process.exit(2);
  }
}
const QUICK = argv.has('--quick');
/** CPU-profile the timed HTTP read rounds (timings are then inflated; use for where, not how fast). */
const PROFILE = argv.has('--profile');
const PG_ADMIN_URL = benchPostgresUrl(argv);

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
/** 2026-11-22T15:00:00Z (12:00:00 at -03:00): the frozen service clock. */
const NOW = Date.UTC(2026, 10, 22, 15, 0, 0);
const STEP_MS = 10 * SECOND;
const VEHICLE_COUNT = 20;
const SPAN_MS = QUICK ? 3 * HOUR : 2 * DAY;
const INSTANTS = SPAN_MS / STEP_MS; // per VIN: 17,280 (quick: 1,080)
const BATCH = 500;
const CONCURRENCY = 4;
const ROUNDS = roundsArg ?? (QUICK ? 1 : 5);
const RSS_SAMPLE_MS = 20;
const RETENTION_MS = 192 * HOUR;
const POOL_SIZE = 10; // the service's default --database-pool-size

const TARGETS = { ingestRatio: 0.5, readRatioSqlite: 1.3, rssGrowthMb: 150 };

const OEM = 'benchmotors';
const INGEST_KEY = 'bench-ingest-key-0123456789abcdefghijklmnopqrstu';
const CLIENT_ID = 'bench-reader';
const CLIENT_SECRET = 'bench-reader-client-secret-0123456789abcdefgh';
const VINS = Array.from({ length: VEHICLE_COUNT }, (_, i) => `9BWBENCH00000${String(i + 1).padStart(4, '0')}`);

const MB = 1024 * 1024;
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : undefined;

// ---------------------------------------------------------------------------------------------
// Deterministic telemetry

/** mulberry32: small, fast, deterministic. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (x, decimals) => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};
const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

/** One vehicle driving around São Paulo: stops and drives, burns fuel, charges when parked. */
function vehicleState(index) {
  const rand = prng(0x5eed + index * 7919);
  return {
    rand,
    lat: -23.55 + (rand() - 0.5) * 0.2,
    lon: -46.63 + (rand() - 0.5) * 0.2,
    heading: rand() * 360,
    speed: 0,
    moving: rand() < 0.5,
    odometer: 10_000 + rand() * 80_000,
    fuel: 30 + rand() * 70,
    oil: 70 + rand() * 25,
    tires: [215 + rand() * 20, 215 + rand() * 20, 215 + rand() * 20, 215 + rand() * 20],
    coolant: 40,
    soc: 40 + rand() * 60,
    charging: false,
  };
}

/** Advances a vehicle by one 10 s step and returns its ingest record at `ts`. */
function step(vin, s, ts) {
  const r = s.rand;
  if (r() < 0.004) s.moving = !s.moving; // a stop or a start every ~40 min on average
  if (s.moving) {
    s.speed = clamp(s.speed + (r() - 0.45) * 12, 0, 120);
    s.heading = (s.heading + (r() - 0.5) * 20 + 360) % 360;
  } else {
    s.speed = Math.max(0, s.speed - 25);
  }
  const km = (s.speed * STEP_MS) / HOUR;
  const rad = (s.heading * Math.PI) / 180;
  s.lat = clamp(s.lat + (km / 111) * Math.cos(rad), -89, 89);
  s.lon = clamp(s.lon + (km / (111 * Math.cos((s.lat * Math.PI) / 180))) * Math.sin(rad), -179, 179);
  s.odometer += km;
  s.fuel -= km * 0.12 + (s.speed > 0 ? 0.0005 : 0);
  if (s.fuel < 8) s.fuel = 95 + r() * 5; // refuelled
  s.coolant = clamp(s.coolant + (s.speed > 0 ? (92 - s.coolant) * 0.05 : (30 - s.coolant) * 0.01) + (r() - 0.5), -50, 200);
  const wasCharging = s.charging;
  if (!s.moving && s.soc < 60 && r() < 0.01) s.charging = true;
  if (s.moving || s.soc >= 99) s.charging = false;
  s.soc = clamp(s.soc + (s.charging ? 0.05 : -km * 0.15), 0, 100);
  const rpm = s.speed > 0 ? 800 + s.speed * 28 + r() * 150 : s.moving ? 750 + r() * 100 : 0;
  return {
    vin,
    date_time: new Date(ts).toISOString(),
    speed: round(s.speed, 1),
    latitude: round(s.lat, 6),
    longitude: round(s.lon, 6),
    heading: round(s.heading, 1),
    rpm: Math.round(rpm),
    odometer: round(s.odometer, 1),
    fuel_level: round(clamp(s.fuel, 0, 100), 1),
    range: Math.round(clamp(s.fuel, 0, 100) * 5.5),
    left_front_tire_pressure: round(s.tires[0] + (r() - 0.5) * 2, 1),
    right_front_tire_pressure: round(s.tires[1] + (r() - 0.5) * 2, 1),
    left_rear_tire_pressure: round(s.tires[2] + (r() - 0.5) * 2, 1),
    right_rear_tire_pressure: round(s.tires[3] + (r() - 0.5) * 2, 1),
    oil_level: round(s.oil, 1),
    engine_cooling_temperature: round(s.coolant, 1),
    lv_battery_voltage: round(s.moving ? 13.9 + r() * 0.4 : 12.4 + r() * 0.3, 2),
    hv_battery_voltage: round(340 + s.soc * 0.6 + (r() - 0.5) * 2, 1),
    hv_battery_soc: round(s.soc, 1),
    hv_battery_charging_status: s.charging ? 'charging' : 'other',
    seat_belt_status: s.moving ? 'buckled' : 'not buckled',
    event: wasCharging !== s.charging ? 'charging plug status change' : null,
  };
}

/**
 * The whole series as ingest records, oldest first, all 20 VINs per instant:
 * instant k (0 = newest) is NOW - 5 s - k·10 s. Returns [older half, newer half].
 */
function generateSeries() {
  const states = VINS.map((_, i) => vehicleState(i));
  const older = [];
  const newer = [];
  for (let k = INSTANTS - 1; k >= 0; k -= 1) {
    const ts = NOW - 5 * SECOND - k * STEP_MS;
    const target = k >= INSTANTS / 2 ? older : newer;
    for (let v = 0; v < VINS.length; v += 1) target.push(step(VINS[v], states[v], ts));
  }
  return [older, newer];
}

function batches(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `work(i)` for i in [0, count) with at most `limit` in flight. */
async function pool(count, limit, work) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function collectGarbage() {
  if (!gc) return;
  gc();
  gc();
}

/**
 * Samples memory every 20 ms while running: `stop()` returns the highest RSS seen, and the highest
 * V8 heap in use and external memory (Buffers, ArrayBuffers), to tell where growth comes from.
 */
function memorySampler() {
  const peak = { rss: 0, heapUsed: 0, external: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
  };
  sample();
  const timer = setInterval(sample, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

async function startProfiler() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      const file = join(tmpdir(), `telematics-bench-${name}-${process.pid}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Databases and the service

function benchFleet() {
  return {
    plans: [{ name: 'full', datapoints: '*', commands: '*' }],
    oems: [{ name: OEM, connector: 'sim', ingest_key: INGEST_KEY, datapoints: '*', commands: '*' }],
    companies: [{
      id: 'benchco', name: 'Bench Logistics', plan: 'full',
      applications: [{
        name: 'reader', client_id: CLIENT_ID, client_secret: CLIENT_SECRET,
        sign_secret: 'bench-reader-sign-secret-0123456789abcdefghijk',
      }],
      vehicles: VINS.map((vin, i) => ({
        vin, plate: `BEN${String(i).padStart(4, '0')}`, oem: OEM, model: 'Bench EV', year: 2025,
      })),
    }],
  };
}

async function startService(kind) {
  const database = await createBenchDatabase(kind, PG_ADMIN_URL);
  const store = openStore(database.url, { poolSize: POOL_SIZE });
  await migrateToLatest(store);
  const keyring = keyringFromDocument(generateKeyringDocument(), 'bench');
  const clock = { now: () => NOW };
  const validation = validateFleetFile(benchFleet());
  if (!validation.ok) throw new Error(`bench fleet invalid: ${JSON.stringify(validation.problems)}`);
  await applyFleet(store.db, validation.fleet, keyring, NOW);
  // Request log lines are produced (as in production) and thrown away.
  const sink = new Writable({ write(_chunk, _encoding, done) { done(); } });
  const app = await buildApp({
    store, keyring, clock, logger: createLogger('info', sink),
    tokenSettings: { issuer: 'telematics', audience: 'telematics-api' },
    bodyLimit: 1_048_576, telemetryRetentionMs: RETENTION_MS,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    kind, store, app, url,
    async close() {
      await app.close();
      await store.close().catch(() => {});
      await database.drop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Phases

async function ingestOverHttp(service, records) {
  const bodies = batches(records, BATCH).map((batch) => JSON.stringify({ records: batch }));
  const endpoint = `${service.url}/ingest/${OEM}`;
  const headers = { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' };
  let accepted = 0;
  const t0 = performance.now();
  await pool(bodies.length, CONCURRENCY, async (i) => {
    const res = await fetch(endpoint, { method: 'POST', headers, body: bodies[i] });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`ingest batch ${i}: ${res.status} ${text.slice(0, 300)}`);
    const body = JSON.parse(text);
    if (body.rejected.length > 0) throw new Error(`ingest batch ${i}: rejected ${JSON.stringify(body.rejected.slice(0, 3))}`);
    accepted += body.accepted;
  });
  const ms = performance.now() - t0;
  if (accepted !== records.length) throw new Error(`ingest accepted ${accepted} of ${records.length}`);
  return { records: records.length, ms, perSecond: records.length / (ms / 1000) };
}

async function ingestRaw(service, records) {
  // The records as the ingest check produces them (outside the timing): the same mapping follows.
  const checked = batches(records.map((raw) => {
    const result = checkTelemetryRecord(raw, NOW, NOW - RETENTION_MS);
    if (!result.ok) throw new Error(`generated record refused: ${result.reason}`);
    return result.record;
  }), BATCH);
  const t0 = performance.now();
  await pool(checked.length, CONCURRENCY, async (i) => {
    const rows = checked[i].map((record) => toTelemetryRow(record, NOW));
    await ensureTelemetryPartitions(service.store, rows.map((r) => r.ts));
    await insertTelemetry(service.store, rows);
  });
  const ms = performance.now() - t0;
  return { records: records.length, ms, perSecond: records.length / (ms / 1000) };
}

async function token(service) {
  const res = await fetch(`${service.url}/token`, {
    method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET }).toString(),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).token;
}

/** One POST /vehicle-data; the body is read to its end, kept only when `keep`. */
async function readOverHttp(service, bearer, keep) {
  const t0 = performance.now();
  const res = await fetch(`${service.url}/vehicle-data`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ vins: VINS, datapoints: DATAPOINT_NAMES }),
  });
  if (res.status !== 200) throw new Error(`vehicle-data: ${res.status} ${await res.text()}`);
  let ttfb;
  let bytes = 0;
  const chunks = [];
  for await (const chunk of res.body) {
    if (ttfb === undefined) ttfb = performance.now() - t0;
    bytes += chunk.byteLength;
    if (keep) chunks.push(chunk);
  }
  const ms = performance.now() - t0;
  return { ms, ttfb, bytes, body: keep ? Buffer.concat(chunks).toString('utf8') : undefined };
}

/**
 * The same read from another process (curl, when installed), so that the client does not share
 * the service's thread: the time to first byte a remote client would see, and the longest stall
 * of the service's event loop during the response (what other requests would wait).
 */
async function readWithCurl(service, bearer, rounds) {
  const run = promisify(execFile);
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{time_starttransfer} %{time_total} %{size_download}', '-X', 'POST',
    '-H', `authorization: Bearer ${bearer}`, '-H', 'content-type: application/json',
    '--data', JSON.stringify({ vins: VINS, datapoints: DATAPOINT_NAMES }), `${service.url}/vehicle-data`];
  const results = [];
  collectGarbage();
  const baseRss = process.memoryUsage().rss;
  const sampler = memorySampler();
  for (let i = 0; i < rounds; i += 1) {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    let stdout;
    try {
      ({ stdout } = await run('curl', args));
    } catch (error) {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    } finally {
      loop.disable();
    }
    const [status, ttfb, total] = stdout.trim().split(' ');
    if (status !== '200') throw new Error(`curl vehicle-data: ${status}`);
    results.push({ ttfb: Number(ttfb) * 1000, ms: Number(total) * 1000, stall: loop.max / 1e6 });
  }
  const rssGrowthMb = Math.max(0, sampler.stop().rss - baseRss) / MB;
  return { ttfbMs: median(results.map((r) => r.ttfb)), ms: median(results.map((r) => r.ms)), stallMs: median(results.map((r) => r.stall)), rssGrowthMb };
}

/**
 * What the read really holds on to: one more read with a full GC every 100 ms, the heap in use
 * plus external memory sampled right after each; the peak over the value after a GC beforehand.
 * RSS growth is mostly garbage V8 has not yet collected; this is the part that is not.
 */
async function liveMemoryRound(service, bearer) {
  collectGarbage();
  const usage = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = usage();
  let peak = before;
  const timer = setInterval(() => {
    gc();
    peak = Math.max(peak, usage());
  }, 100);
  try {
    await readOverHttp(service, bearer, false);
  } finally {
    clearInterval(timer);
  }
  return (peak - before) / MB;
}

/** The warm-up round: the response is parsed and checked once. */
function checkResponse(text, expectedPerVin) {
  const body = JSON.parse(text);
  let total = 0;
  for (const vin of VINS) {
    const records = body[vin];
    if (!Array.isArray(records) || records.length !== expectedPerVin) {
      throw new Error(`vehicle-data: ${vin} has ${records?.length} records, expected ${expectedPerVin}`);
    }
    const first = records[0];
    const missing = DATAPOINT_NAMES.filter((d) => !(d in first));
    if (missing.length > 0) throw new Error(`vehicle-data: record lacks ${missing.join(', ')}`);
    total += records.length;
  }
  return total;
}

const FLOOR_COLUMNS = ['vin', 'ts', ...STORED_DATAPOINTS.map((d) => d.name), 'flag'];

/** The floor: the same rows straight from the database, serialized in one JSON.stringify. */
async function readFloor(service, window) {
  const t0 = performance.now();
  const rows = await service.store.db.selectFrom('telemetry').select(FLOOR_COLUMNS)
    .where('vin', 'in', VINS).where('ts', '>=', window.start).where('ts', '<=', window.end)
    .orderBy('vin').orderBy('ts').execute();
  const text = JSON.stringify(rows);
  const ms = performance.now() - t0;
  return { ms, rows: rows.length, bytes: Buffer.byteLength(text) };
}

// ---------------------------------------------------------------------------------------------
// One database

async function benchOne(kind) {
  const log = (text) => console.log(`[${kind}] ${text}`);
  const service = await startService(kind);
  try {
    log(`generating ${VINS.length} VINs × ${INSTANTS} instants (${(SPAN_MS / HOUR).toFixed(0)} h at 10 s)`);
    let [older, newer] = generateSeries();

    log(`ingest over HTTP: ${older.length} records, batches of ${BATCH}, ${CONCURRENCY} in flight`);
    const http = await ingestOverHttp(service, older);
    log(`  ${fmt(http.perSecond, 0)} records/s (${fmt(http.ms / 1000, 2)} s)`);
    log(`ingest raw (insertTelemetry): ${newer.length} records, batches of ${BATCH}, ${CONCURRENCY} in flight`);
    const raw = await ingestRaw(service, newer);
    log(`  ${fmt(raw.perSecond, 0)} records/s (${fmt(raw.ms / 1000, 2)} s)`);
    older = newer = undefined;
    if (kind === 'postgres') await sql`analyze telemetry`.execute(service.store.db);

    const window = { start: NOW - DAY, end: NOW };
    const expectedPerVin = Math.min(INSTANTS, DAY / STEP_MS);
    const bearer = await token(service);

    // Warm-up, with the response checked.
    const warm = await readOverHttp(service, bearer, true);
    const records = checkResponse(warm.body, expectedPerVin);
    log(`read warm-up: ${records} records, ${fmt(warm.bytes / MB, 1)} MB, ${fmt(warm.ms, 0)} ms (checked)`);
    const floorWarm = await readFloor(service, window);
    if (floorWarm.rows !== records) throw new Error(`floor read ${floorWarm.rows} rows, the service ${records}`);

    // Timed HTTP rounds, RSS sampled.
    collectGarbage();
    const base = process.memoryUsage();
    const sampler = memorySampler();
    const profiler = PROFILE ? await startProfiler() : undefined;
    const httpRounds = [];
    const roundPeaks = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const roundSampler = memorySampler();
      const r = await readOverHttp(service, bearer, false);
      roundPeaks.push(roundSampler.stop().rss);
      if (r.bytes !== warm.bytes) throw new Error(`round ${i}: ${r.bytes} bytes, warm-up had ${warm.bytes}`);
      httpRounds.push(r);
    }
    const peak = sampler.stop();
    if (profiler) log(`CPU profile of the HTTP read rounds: ${await profiler.stop(`${kind}-read`)}`);
    log(`read over HTTP, ${ROUNDS} rounds: ${httpRounds.map((r) => fmt(r.ms, 0)).join(', ')} ms; TTFB ${httpRounds.map((r) => fmt(r.ttfb, 1)).join(', ')} ms`);
    log(`  peak RSS over the baseline, by round: ${roundPeaks.map((p) => fmt(Math.max(0, p - base.rss) / MB, 0)).join(', ')} MB`);
    if (gc) {
      collectGarbage();
      const after = process.memoryUsage();
      log(`  after the rounds and a full GC: heap used + external ${fmt((after.heapUsed + after.external - base.heapUsed - base.external) / MB, 1)} MB over the baseline (a leak would show here), RSS ${fmt((after.rss - base.rss) / MB, 1)} MB`);
    }
    const live = gc ? await liveMemoryRound(service, bearer) : undefined;
    if (live !== undefined) log(`  live memory (heap used + external, sampled right after forced GCs) during one more, untimed read: +${fmt(live, 1)} MB`);
    const curl = await readWithCurl(service, bearer, ROUNDS);
    if (curl) log(`read from another process (curl), median of ${ROUNDS}: ${fmt(curl.ms, 0)} ms, TTFB ${fmt(curl.ttfbMs, 1)} ms, longest event-loop stall ${fmt(curl.stallMs, 1)} ms, peak RSS growth ${fmt(curl.rssGrowthMb, 1)} MB`);
    else log('curl not found: the out-of-process read is skipped');

    // Timed floor rounds, RSS sampled for information.
    collectGarbage();
    const floorBase = process.memoryUsage();
    const floorSampler = memorySampler();
    const floorRounds = [];
    for (let i = 0; i < ROUNDS; i += 1) floorRounds.push(await readFloor(service, window));
    const floorPeak = floorSampler.stop();
    const growth = (p, b) => ({ rss: Math.max(0, p.rss - b.rss) / MB, heapUsed: (p.heapUsed - b.heapUsed) / MB, external: (p.external - b.external) / MB });
    const g = growth(peak, base);
    const fg = growth(floorPeak, floorBase);
    log(`memory growth during HTTP reads: RSS ${fmt(g.rss, 1)} MB, V8 heap used ${fmt(g.heapUsed, 1)} MB, external ${fmt(g.external, 1)} MB (peaks over baseline)`);
    log(`memory growth during floor reads: RSS ${fmt(fg.rss, 1)} MB, V8 heap used ${fmt(fg.heapUsed, 1)} MB, external ${fmt(fg.external, 1)} MB`);
    log(`read floor (select + JSON.stringify), ${ROUNDS} rounds: ${floorRounds.map((r) => fmt(r.ms, 0)).join(', ')} ms; ${fmt(floorRounds[0].bytes / MB, 1)} MB`);

    return {
      kind,
      ingest: { http, raw },
      read: {
        records,
        bytes: warm.bytes,
        httpMs: median(httpRounds.map((r) => r.ms)),
        ttfbMs: median(httpRounds.map((r) => r.ttfb)),
        curl,
        floorMs: median(floorRounds.map((r) => r.ms)),
        floorBytes: floorRounds[0].bytes,
      },
      rss: { baselineMb: base.rss / MB, growthMb: g.rss, firstRoundMb: Math.max(0, roundPeaks[0] - base.rss) / MB, floorGrowthMb: fg.rss, liveMb: live },
    };
  } finally {
    await service.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function fmt(x, decimals) {
  return x.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) => `  ${r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('   ')}`;
  const out = [line(rows[0]), `  ${widths.map((w) => '-'.repeat(w)).join('   ')}`];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join('\n');
}

function report(result) {
  const { ingest, read, rss } = result;
  const ingestRatio = ingest.http.perSecond / ingest.raw.perSecond;
  const readRatio = read.httpMs / read.floorMs;
  const readTarget = result.kind === 'sqlite' ? TARGETS.readRatioSqlite : undefined;
  // A quick run is a smoke test (cold JIT, tiny tables): its misses are shown but not judged.
  const verdict = (ok) => (ok ? 'pass' : QUICK ? 'miss (quick)' : 'MISSED');
  const rows = [
    ['figure', 'service', 'floor', 'ratio', 'target', 'result'],
    ['ingest, records/s (HTTP vs insertTelemetry)', fmt(ingest.http.perSecond, 0), fmt(ingest.raw.perSecond, 0), fmt(ingestRatio, 2),
      `≥ ${fmt(TARGETS.ingestRatio, 2)}`, verdict(ingestRatio >= TARGETS.ingestRatio)],
    [`read ${fmt(read.records, 0)} records, ms (median of ${ROUNDS})`, fmt(read.httpMs, 0), fmt(read.floorMs, 0), fmt(readRatio, 2),
      readTarget === undefined ? '(SQLite only)' : `≤ ${fmt(readTarget, 2)}`, readTarget === undefined ? 'info' : verdict(readRatio <= readTarget)],
    ['read, time to first byte, ms (median)', fmt(read.ttfbMs, 1), '', '', '', 'info'],
    ...(read.curl === undefined ? [] : [
      ['read from another process (curl), ms', fmt(read.curl.ms, 0), fmt(read.floorMs, 0), fmt(read.curl.ms / read.floorMs, 2), '', 'info'],
      ['  its time to first byte, ms', fmt(read.curl.ttfbMs, 1), '', '', '', 'info'],
      ['  longest event-loop stall meanwhile, ms', fmt(read.curl.stallMs, 1), '', '', '', 'info'],
    ]),
    ['read, body size, MB', fmt(read.bytes / MB, 1), fmt(read.floorBytes / MB, 1), fmt(read.bytes / read.floorBytes, 2), '', 'info'],
    // Judged on the service alone: reads by another process, so the client's buffers do not count.
    ...(read.curl === undefined ? [] : [[`read, service peak RSS growth, ${ROUNDS} back-to-back reads by curl, MB`, fmt(read.curl.rssGrowthMb, 1), '', '',
      `< ${TARGETS.rssGrowthMb}`, verdict(read.curl.rssGrowthMb < TARGETS.rssGrowthMb)]]),
    [`read, peak RSS growth over ${ROUNDS} rounds with the client in-process, MB (baseline ${fmt(rss.baselineMb, 0)} MB)`, fmt(rss.growthMb, 1), fmt(rss.floorGrowthMb, 1), '',
      read.curl === undefined ? `< ${TARGETS.rssGrowthMb}` : '', read.curl === undefined ? verdict(rss.growthMb < TARGETS.rssGrowthMb) : 'info'],
    ['  in the first round alone, MB', fmt(rss.firstRoundMb, 1), '', '', '', 'info'],
    ...(rss.liveMb === undefined ? [] : [['read, live memory growth after GCs, MB', fmt(rss.liveMb, 1), '', '', '', 'info']]),
  ];
  console.log(`\n${result.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${QUICK ? ' (quick: not comparable with full runs)' : ''}`);
  console.log(table(rows));
  const missed = rows.slice(1).filter((r) => r[5] === 'MISSED' || r[5] === 'miss (quick)').map((r) => r[0]);
  return missed.map((m) => `${result.kind}: ${m}`);
}

// ---------------------------------------------------------------------------------------------

const cpu = cpus();
console.log(`vehicle-data bench${QUICK ? ' --quick' : ''}: node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${fmt(totalmem() / 1024 ** 3, 1)} GiB`);
console.log(`${VINS.length} VINs × ${fmt(SPAN_MS / HOUR, 0)} h at 10 s = ${fmt(VINS.length * INSTANTS, 0)} records; NOW ${new Date(NOW).toISOString()} (fixed clock); ${ROUNDS} timed round(s) after a warm-up`);
if (!gc) console.log('note: run with --expose-gc for a stable RSS baseline');
const kinds = ['sqlite', ...(PG_ADMIN_URL ? ['postgres'] : [])];
if (!PG_ADMIN_URL && !argv.has('--sqlite-only')) console.log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL');

const missed = [];
for (const kind of kinds) {
  const result = await benchOne(kind);
  missed.push(...report(result));
  collectGarbage();
}
if (QUICK) console.log(`\nQuick run: a smoke test, not judged (targets apply to npm run bench:data).${missed.length ? ` Would miss: ${missed.join('; ')}` : ''}`);
else console.log(missed.length === 0 ? '\nAll targets met.' : `\nMISSED: ${missed.join('; ')}`);
