/**
 * Mixed load: the simulated fleet pushing telemetry while readers hit every read endpoint at once.
 *
 * Setup: 2,000 vehicles (--quick: 200) of one company, their OEM registered with the `http`
 * connector pointed at `telematics oem-sim` (its own process), every vehicle simulated with
 * telemetry (fleetDocument simTelemetry). The service runs as `telematics serve`.
 *
 * The simulator (src/sim/fleet-simulator.ts) samples every vehicle every 10 s on a grid of whole
 * 10 s instants and pushes them to POST /ingest/{oem} in batches of 500, one batch after another:
 * 2,000 vehicles = 4 POSTs every 10 s, 200 records/s on average, in bursts. A push that fails is
 * retried (5xx and transport errors, 5 times); a refused record or a failed push is logged at
 * warn. It starts with a backfill of 5 minutes (30 instants per vehicle, ~60,000 records over
 * HTTP), so every VIN has records in the last hour before the readers start; the readers start
 * once the backfill is stored.
 *
 * Readers, from one autocannon process (concurrent runs, 2 connections each), for 60 s (--quick:
 * 5 s), every request checked once beforehand:
 *   GET /vehicle (the whole fleet), GET /vehicle/{vin} (cycling every VIN), POST /vehicle-data
 *   (one VIN per request, cycling, start_date one hour before the run, 6 datapoints),
 *   POST /vehicle-trips (one VIN, cycling, the last 7 days, 5 fields), GET /vehicle-command/{id}
 *   (cycling 5 diagnostics commands created at the start), POST /token.
 *
 * Figures: p99 latency and requests/s of each reader (information); the errors: non-2xx, transport
 * errors and timeouts of every reader, plus ingest failures: POST /ingest answers other than 200
 * (the service's /metrics counts, so retried failures count too), warnings in the simulator's log
 * (refused records, failed pushes), and records missing from the window (target: 0); the records
 * of the window's grid instants stored vs expected (vehicles × instants; counted once the
 * simulator has had time to push the last instant), and the largest delay from a record's instant
 * to its storage (at most the 10 s sampling period plus the push, when ingest keeps up).
 */
import { writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { join } from 'node:path';
import { formatIsoLocal } from '../../dist/domain/time.js';
import { CLIENT_ID, CLIENT_SECRET, createFixture, signatureOf, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { load } from '../lib/load.mjs';
import { freePort, startOemSim, startService } from '../lib/processes.mjs';
import { ingestStatuses, preflight, waitUntil, warningsIn } from '../lib/observe.mjs';
import { telemetryCount } from '../lib/synthetic-telemetry.mjs';

export const name = 'mixed';

const PERIOD_S = 10;
const BACKFILL_MIN = 5;

export async function run(ctx) {
  const fleet = ctx.quick ? 200 : 2000;
  const seconds = ctx.quick ? 5 : 60;
  const connections = 2;
  const cloudPort = await freePort();
  const started = Date.now();
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: fleet, oemBaseUrl: `http://127.0.0.1:${cloudPort}`, simTelemetry: true });
  ctx.log(`${fleet} vehicles registered in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const db = fixture.store.db;
  const log = (what) => join(fixture.scratch, `${what}.log`);
  const running = [];
  try {
    const service = await startService({ database: fixture.url, keys: fixture.keys, logFile: log('service') });
    running.push(service);
    const sim = await startOemSim({
      fleetFile: fixture.fleetFile, ingestUrl: service.url, port: cloudPort, logFile: log('oem-sim'), period: PERIOD_S, extra: ['--backfill', `${BACKFILL_MIN}m`],
    });
    running.push(sim);
    const backfilled = fleet * ((BACKFILL_MIN * 60) / PERIOD_S);
    await waitUntil(async () => (await telemetryCount(db)) >= backfilled, 180_000, () => `the simulator's backfill (${backfilled} records) was not stored; see ${sim.logFile}`);
    ctx.log(`backfill stored, telemetry flowing (${((Date.now() - started) / 1000).toFixed(0)} s since start)`);

    const auth = `Bearer ${await tokenFrom(service.url)}`;
    const json = { authorization: auth, 'content-type': 'application/json' };
    const commandIds = [];
    for (let i = 0; i < 5; i += 1) {
      const vin = vinOf(i);
      const res = await fetch(`${service.url}/vehicle-command`, {
        method: 'POST', headers: { ...json, 'x-signature': signatureOf(vin, 'diagnostics') }, body: JSON.stringify({ vin, command: 'diagnostics' }),
      });
      const created = await res.json();
      if (created.status !== 'Pending') throw new Error(`creating a command: ${res.status} ${JSON.stringify(created)}`);
      commandIds.push(created.id);
    }

    const vins = Array.from({ length: fleet }, (_, i) => vinOf(i));
    const lines = (file, bodies) => {
      writeFileSync(join(fixture.scratch, file), `${bodies.join('\n')}\n`);
      return join(fixture.scratch, file);
    };
    const hourAgo = formatIsoLocal(Date.now() - 3_600_000);
    const runs = [
      { name: 'GET /vehicle', url: `${service.url}/vehicle`, headers: { authorization: auth } },
      { name: 'GET /vehicle/{vin}', url: `${service.url}/vehicle/${vins[0]}`, headers: { authorization: auth }, paths: vins.map((v) => `/vehicle/${v}`) },
      {
        name: 'POST /vehicle-data', url: `${service.url}/vehicle-data`, method: 'POST', headers: json,
        bodiesFile: lines('vehicle-data.ndjson', vins.map((v) => JSON.stringify({ vins: [v], datapoints: ['date_time', 'speed', 'latitude', 'longitude', 'odometer', 'fuel_level'], start_date: hourAgo }))),
      },
      {
        name: 'POST /vehicle-trips', url: `${service.url}/vehicle-trips`, method: 'POST', headers: json,
        bodiesFile: lines('vehicle-trips.ndjson', vins.map((v) => JSON.stringify({ vins: [v], datapoints: ['start_date_time', 'end_date_time', 'distance', 'avg_speed', 'max_speed'] }))),
      },
      { name: 'GET /vehicle-command/{id}', url: `${service.url}/vehicle-command/${commandIds[0]}`, headers: { authorization: auth }, paths: commandIds.map((id) => `/vehicle-command/${id}`) },
      {
        name: 'POST /token', url: `${service.url}/token`, method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: `client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}`,
      },
    ].map((r) => ({ ...r, connections }));
    for (const r of runs) await preflight(service.url, r);

    const window = { from: Date.now() };
    const results = await load(runs, seconds);
    window.to = Date.now();
    for (const r of results) ctx.log(`${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms; ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);

    // Records of the window's grid instants, once the simulator has had time to push the last one.
    const periodMs = PERIOD_S * 1000;
    const first = Math.ceil(window.from / periodMs) * periodMs;
    const last = Math.floor(window.to / periodMs) * periodMs;
    const instants = last >= first ? (last - first) / periodMs + 1 : 0;
    const expected = instants * fleet;
    let stored = 0;
    const deadline = Date.now() + 2 * periodMs + 10_000;
    while (Date.now() < deadline) {
      stored = await telemetryCount(db, first, last);
      if (stored >= expected) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const lag = await db.selectFrom('telemetry').select(sql`max(received_at - ts)`.as('lag'))
      .where('ts', '>=', first).where('ts', '<=', last).executeTakeFirstOrThrow();
    const lagSeconds = lag.lag === null ? 0 : Number(lag.lag) / 1000;

    const ingestAnswers = await ingestStatuses(service.url);
    const refused = Object.entries(ingestAnswers).filter(([status]) => status !== '200').reduce((n, [, count]) => n + count, 0);
    const simWarnings = warningsIn(sim.logFile);
    const readerErrors = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
    const missing = Math.max(0, expected - stored);
    ctx.log(`ingest: ${stored} of ${expected} records of ${instants} instants stored, max lag ${lagSeconds.toFixed(1)} s; POST /ingest answers by status ${JSON.stringify(ingestAnswers)}; simulator warnings: ${simWarnings.length}${simWarnings.length ? ` (first: ${simWarnings[0]})` : ''}`);

    const fig = (figure, service, extra = {}) => ({ section: ctx.section, suite: name, name: figure, service, ...extra });
    return [
      ...results.flatMap((r) => [
        fig(`${r.name}${r.name === 'GET /vehicle' ? ` (${fleet.toLocaleString('en-US')} vehicles)` : ''}, p99 ms`, r.p99, { digits: 0 }),
        fig(`  requests/s`, r.rps, { digits: 0 }),
      ]),
      fig(`errors: readers ${readerErrors}, ingest answers ≠ 200 ${refused}, simulator warnings ${simWarnings.length}, records missing ${missing}`, readerErrors + refused + simWarnings.length + missing, { target: { on: 'service', op: '==', value: 0 }, digits: 0 }),
      fig(`records ingested in the ${seconds} s window vs expected (${fleet.toLocaleString('en-US')} vehicles × ${instants} instants)`, stored, { floor: expected, digits: 0 }),
      fig('largest delay from a record\'s instant to its storage, s', lagSeconds, { digits: 1 }),
    ];
  } finally {
    for (const p of running.reverse()) await p.stop();
    await fixture.drop();
  }
}
