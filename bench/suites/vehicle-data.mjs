/**
 * Telemetry ingest and POST /vehicle-data: the service (`telematics serve`, its own process, on
 * the real clock) against floors measured in the same run on the same database.
 *
 * Data: the 20 bench vehicles as the simulator drives them (dist/sim, seeded, 0.2 % of samples
 * with one faulty value, as the service's simulator sends), one record every 10 s over the 48 h
 * up to now (--quick: 3 h); instants are T - 5 s - k·10 s, T the latest whole 10 s.
 *
 * - Ingest: the older half over HTTP, POST /ingest/{oem} with 500 records per body, each body sent
 *   once by autocannon from its own process over 8 connections; records/s = records / elapsed.
 *   Every answer must be 2xx and every record stored (counted afterwards). Floor: the newer half
 *   through insertTelemetry from this process, 500 records per call, 8 calls in flight, with the
 *   service stopped. Target ≥ 0.50.
 * - Read: POST /vehicle-data, the 20 VINs, every datapoint, start_date/end_date covering the newer
 *   half, read by curl from its own process; median of 5 rounds (--quick: 1) after a warm-up that
 *   checks the response holds as many records as the floor's select. Floor: one Kysely select of
 *   the same rows and columns plus JSON.stringify, in this process, median of as many rounds.
 *   Target ≤ 1.3. Also: time to first byte over the total (≤ 0.05), the body size, and the
 *   service's peak RSS growth during the timed reads, sampled every 50 ms over its RSS after the
 *   warm-up (≤ 150 MB).
 * - The same read compressed, br then gzip (curl asking for that coding alone and decoding as it
 *   reads), each after a warm-up that checks the coding and that the body decodes to the size of
 *   the uncompressed one: the compressed size against the uncompressed body, the total time
 *   against the uncompressed read's, time to first byte over the total (≤ 0.05), and the
 *   service's peak RSS growth during that coding's reads over its RSS just before them (≤ 150 MB:
 *   the compressed stream is bounded too).
 *
 * The reads start once the service's trip detection has caught up with the data, so no
 * background pass over the newer day runs meanwhile.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { DATAPOINT_NAMES } from '../../dist/domain/datapoints.js';
import { STORED_DATAPOINTS } from '../../dist/domain/telemetry-record.js';
import { writeIngestBodies } from '../lib/bodies.mjs';
import { curlRequest } from '../lib/curl.mjs';
import { createFixture, INGEST_KEY, OEM, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { assertClean, load } from '../lib/load.mjs';
import { startService } from '../lib/processes.mjs';
import { median } from '../lib/report.mjs';
import { rssSampler } from '../lib/rss.mjs';
import { checkedRecord, countTelemetry, gridNow, insertRecords, isoSeconds, simulatedRecords, STEP_MS } from '../lib/telemetry.mjs';

export const name = 'vehicle-data';

const HOUR = 3_600_000;
const VEHICLES = 20;
const BATCH = 500;
const CONNECTIONS = 8;
const MB = 1024 * 1024;
/** The service's default trip lateness: records younger than this wait for a later detection pass. */
const TRIP_LATENESS_MS = 60_000;
const FLOOR_COLUMNS = ['vin', 'ts', ...STORED_DATAPOINTS.map((d) => d.name), 'flag'];
/** The content codings the service offers, each read in its own block. */
const CODINGS = ['br', 'gzip'];

export async function run(ctx) {
  const span = ctx.quick ? 3 * HOUR : 48 * HOUR;
  const rounds = ctx.quick ? 1 : 5;
  const vins = Array.from({ length: VEHICLES }, (_, i) => vinOf(i));
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: VEHICLES });
  const { db } = fixture.store;
  const serve = () => startService({ database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log') });
  let service;
  try {
    const end = gridNow();
    const window = { start: end - span / 2, end };
    const older = { start: end - span, end: window.start };
    ctx.log(`simulating ${VEHICLES} vehicles × ${span / HOUR} h at 10 s`);
    const olderRecords = [];
    let newerRecords = [];
    const now = Date.now();
    for (const record of simulatedRecords({ vins, from: end - span + STEP_MS / 2, to: end - STEP_MS / 2, glitchRate: 0.002 })) {
      if (Date.parse(record.date_time) < window.start) olderRecords.push(record);
      else newerRecords.push(checkedRecord(record, now));
    }
    const bodiesFile = join(fixture.scratch, 'ingest-bodies.jsonl');
    const bodies = writeIngestBodies(bodiesFile, olderRecords, BATCH);
    const olderCount = olderRecords.length;
    olderRecords.length = 0;

    // Ingest: the older half over HTTP, then the newer half straight in with the service stopped.
    service = await serve();
    ctx.log(`ingest over HTTP: ${olderCount} records in ${bodies} bodies, ${CONNECTIONS} connections`);
    const [ingest] = await load([{
      name: 'ingest', url: `${service.url}/ingest/${OEM}`, method: 'POST', connections: CONNECTIONS,
      headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' }, bodiesFile, amount: bodies,
    }], 0);
    assertClean(ingest, 'POST /ingest');
    if (ingest.ok !== bodies) throw new Error(`POST /ingest: ${ingest.ok} answers for ${bodies} bodies`);
    const olderStored = await countTelemetry(db, vins, older.start, older.end);
    if (olderStored !== olderCount) throw new Error(`POST /ingest: ${olderStored} of ${olderCount} records stored`);
    const httpRate = olderCount / ingest.seconds;
    await service.stop();

    ctx.log(`insertTelemetry: ${newerRecords.length} records, ${BATCH} per call, ${CONNECTIONS} in flight`);
    const rawMs = await insertRecords(fixture.store, newerRecords, { batch: BATCH, concurrency: CONNECTIONS });
    const rawRate = newerRecords.length / (rawMs / 1000);
    const newerCount = newerRecords.length;
    newerRecords = undefined;
    if (await countTelemetry(db, vins, window.start, window.end) !== newerCount) throw new Error('insertTelemetry did not store every record');
    ctx.log(`ingest: HTTP ${Math.round(httpRate)} records/s (${ingest.seconds.toFixed(2)} s), insertTelemetry ${Math.round(rawRate)} records/s`);
    if (ctx.kind === 'postgres') await sql`analyze telemetry`.execute(db);

    // Read: checked, warmed up, then timed from another process while the service's RSS is sampled.
    service = await serve();
    await tripDetectionCaughtUp(db, vins, end - STEP_MS / 2);
    const request = {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFrom(service.url)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ vins, datapoints: DATAPOINT_NAMES, start_date: isoSeconds(window.start), end_date: isoSeconds(window.end) }),
    };
    const served = await countServed(`${service.url}/vehicle-data`, request, vins);
    const floorWarm = await readFloor(db, vins, window);
    if (served !== floorWarm.rows || served !== newerCount) {
      throw new Error(`POST /vehicle-data returned ${served} records, the floor's select ${floorWarm.rows}, stored ${newerCount}`);
    }
    globalThis.gc?.();
    const baselineMb = service.rssMb();
    const sampler = rssSampler(service, 50);
    const reads = [];
    for (let i = 0; i < rounds; i += 1) {
      const r = await curlRequest(`${service.url}/vehicle-data`, request);
      if (r.status !== 200) throw new Error(`POST /vehicle-data by curl: ${r.status}`);
      reads.push(r);
    }
    const rssGrowthMb = Math.max(0, sampler.stop() - baselineMb);
    if (reads.some((r) => r.bytes !== reads[0].bytes)) throw new Error(`POST /vehicle-data sizes differ: ${reads.map((r) => r.bytes).join(', ')}`);
    const floors = [];
    for (let i = 0; i < rounds; i += 1) floors.push(await readFloor(db, vins, window));
    const readMs = median(reads.map((r) => r.totalMs));
    const floorMs = median(floors.map((f) => f.ms));
    ctx.log(`read ${served} records: service ${reads.map((r) => Math.round(r.totalMs)).join(', ')} ms (TTFB ${reads.map((r) => r.ttfbMs.toFixed(1)).join(', ')}); floor ${floors.map((f) => Math.round(f.ms)).join(', ')} ms; service RSS ${Math.round(baselineMb)} MB + ${rssGrowthMb.toFixed(1)} MB`);
    const compressed = [];
    for (const coding of CODINGS) compressed.push(await readCompressed(ctx, service, request, coding, reads[0].bytes, rounds, join(fixture.scratch, `vehicle-data.${coding}.json`)));

    const hours = `${VEHICLES} VINs × ${span / 2 / HOUR} h`;
    const fig = (figure, service, floor, target, digits) => ({ section: ctx.section, suite: name, name: figure, service, floor, target, digits });
    return [
      fig(`ingest over HTTP vs insertTelemetry, records/s (${olderCount.toLocaleString('en-US')} records)`, httpRate, rawRate, { op: '>=', value: 0.5 }),
      fig(`POST /vehicle-data, ${hours}, every datapoint (${served.toLocaleString('en-US')} records), ms`, readMs, floorMs, { op: '<=', value: 1.3 }),
      fig('POST /vehicle-data, time to first byte / total, ms', median(reads.map((r) => r.ttfbMs)), readMs, { op: '<=', value: 0.05 }, 1),
      fig('POST /vehicle-data, body size, MB (floor: the select as JSON)', reads[0].bytes / MB, floorWarm.bytes / MB, undefined, 1),
      fig(`service peak RSS growth during the ${rounds} reads, MB (baseline ${Math.round(baselineMb)} MB)`, rssGrowthMb, undefined, { on: 'service', op: '<=', value: 150 }, 1),
      ...compressed.flatMap((c) => [
        fig(`POST /vehicle-data in ${c.coding}, body size, MB (floor: uncompressed)`, c.bytes / MB, reads[0].bytes / MB, undefined, 2),
        fig(`POST /vehicle-data in ${c.coding}, total, ms (floor: the uncompressed read)`, c.totalMs, readMs),
        fig(`POST /vehicle-data in ${c.coding}, time to first byte / total, ms`, c.ttfbMs, c.totalMs, { op: '<=', value: 0.05 }, 1),
        fig(`service peak RSS growth during the ${rounds} ${c.coding} reads, MB (baseline ${Math.round(c.baselineMb)} MB)`, c.rssGrowthMb, undefined, { on: 'service', op: '<=', value: 150 }, 1),
      ]),
    ];
  } finally {
    await service?.stop();
    await fixture.drop();
  }
}

/**
 * The timed read in one content coding, after a warm-up read decoded into `decodedFile` that must
 * be in that coding and as large as the uncompressed body. Medians of `rounds` reads by curl.
 */
async function readCompressed(ctx, service, request, coding, uncompressedBytes, rounds, decodedFile) {
  const url = `${service.url}/vehicle-data`;
  const warm = await curlRequest(url, { ...request, acceptEncoding: coding, output: decodedFile });
  const decodedBytes = statSync(decodedFile).size;
  rmSync(decodedFile);
  if (warm.status !== 200 || warm.encoding !== coding) throw new Error(`POST /vehicle-data in ${coding}: ${warm.status}, content-encoding '${warm.encoding}'`);
  if (decodedBytes !== uncompressedBytes) throw new Error(`POST /vehicle-data in ${coding} decodes to ${decodedBytes} bytes, uncompressed it is ${uncompressedBytes}`);
  const baselineMb = service.rssMb();
  const sampler = rssSampler(service, 50);
  const reads = [];
  for (let i = 0; i < rounds; i += 1) reads.push(await curlRequest(url, { ...request, acceptEncoding: coding }));
  const rssGrowthMb = Math.max(0, sampler.stop() - baselineMb);
  const wrong = reads.find((r) => r.status !== 200 || r.encoding !== coding || r.bytes !== warm.bytes);
  if (wrong) throw new Error(`POST /vehicle-data in ${coding}: ${wrong.status}, content-encoding '${wrong.encoding}', ${wrong.bytes} bytes (warm-up ${warm.bytes})`);
  const result = {
    coding, bytes: warm.bytes, totalMs: median(reads.map((r) => r.totalMs)), ttfbMs: median(reads.map((r) => r.ttfbMs)), baselineMb, rssGrowthMb,
  };
  ctx.log(`read in ${coding}: ${(result.bytes / MB).toFixed(2)} MB (${(100 * result.bytes / uncompressedBytes).toFixed(2)} % of ${(uncompressedBytes / MB).toFixed(1)} MB), ${reads.map((r) => Math.round(r.totalMs)).join(', ')} ms (TTFB ${reads.map((r) => r.ttfbMs.toFixed(1)).join(', ')}); service RSS ${Math.round(baselineMb)} MB + ${rssGrowthMb.toFixed(1)} MB`);
  return result;
}

/** The floor: the same rows straight from the database, serialized in one JSON.stringify. */
async function readFloor(db, vins, window) {
  const t0 = performance.now();
  const rows = await db.selectFrom('telemetry').select(FLOOR_COLUMNS)
    .where('vin', 'in', vins).where('ts', '>=', window.start).where('ts', '<=', window.end)
    .orderBy('vin').orderBy('ts').execute();
  const text = JSON.stringify(rows);
  const ms = performance.now() - t0;
  return { ms, rows: rows.length, bytes: Buffer.byteLength(text) };
}

/** One read in this process, parsed: the number of records, each holding every datapoint asked for. */
async function countServed(url, { method, headers, body }, vins) {
  const res = await fetch(url, { method, headers, body });
  if (res.status !== 200) throw new Error(`POST /vehicle-data: ${res.status} ${await res.text()}`);
  const answer = await res.json();
  let records = 0;
  for (const vin of vins) {
    const list = answer[vin];
    if (!Array.isArray(list) || list.length === 0) throw new Error(`POST /vehicle-data: no records for ${vin}`);
    const missing = DATAPOINT_NAMES.filter((d) => !(d in list[0]));
    if (missing.length > 0) throw new Error(`POST /vehicle-data: a record lacks ${missing.join(', ')}`);
    records += list.length;
  }
  return records;
}

/**
 * Waits until the service's trip detection has fed every VIN's records up to `newest` (or up to
 * what its lateness window lets it, for data that recent), with no rewind pending.
 */
async function tripDetectionCaughtUp(db, vins, newest, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A pass every 5 s feeds records up to its start minus the lateness: allow 15 s for it.
    const due = Math.min(newest, Date.now() - TRIP_LATENESS_MS - 15_000);
    const cursors = await db.selectFrom('trip_cursors').select(['vin', 'processed_until', 'rewind_from']).where('vin', 'in', vins).execute();
    const behind = vins.length - cursors.filter((c) => Number(c.processed_until) >= due && c.rewind_from === null).length;
    if (behind === 0) return;
    if (Date.now() > deadline) throw new Error(`the service's trip detection is still behind on ${behind} VINs after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
