/**
 * Geofence watch: what judging records against a company's geofences and alert rules costs the
 * ingest, and how soon a transition reaches the outbox under that load. Black-box: `telematics
 * serve` (dist, its own process, the default role, so the evaluator shares the process with the
 * ingest), POST /geofences and POST /alert-rules to set them up, POST /ingest/{oem} from
 * autocannon in its own process.
 *
 * Two fresh databases of 100 vehicles, the same bodies sent to each: the first with no geofence
 * and no rule (the floor), the second with 100 circles of 300 m radius drawn along the vehicles'
 * roads and 6 alert rules, one of each kind (RULES), before the load starts. Bodies: 500 records
 * each, 5 instants × 100 vehicles in time order, one record a second per vehicle, each vehicle
 * driving east at 36 km/h on its own road (one road every 2 km north, the fences every 1 km along
 * each, 10 km long: at its end a vehicle starts again from the west end, a jump through its
 * road's fences, each a `geofence.crossed`), so every vehicle enters and leaves a fence every 100 s.
 *
 * - ingest: records/s by the service's own clock (received_at of the rounds' rows, as
 *   scaling.mjs does), a warm-up then rounds of bodies, median; target: with fences and rules
 *   ≥ 0.8 × without.
 * - latency: once the load is over and the evaluator has judged every vehicle to its newest
 *   record, for each geofence or alert event dated at a record, the outbox row's created_at minus
 *   the received_at of that record (the same process's clock): p50, p99, max. Target: p99 ≤ 1 s
 *   (absolute, `n`). Checked: at least one entry per vehicle, and as many exits give or take one
 *   per vehicle (a vehicle may end the run inside a fence).
 *
 * --quick: 20 bodies after 5 warm-up bodies, one round.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFixture, INGEST_KEY, OEM, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { assertClean, load } from '../lib/load.mjs';
import { startService } from '../lib/processes.mjs';
import { median, percentile } from '../lib/report.mjs';

export const name = 'geofence-watch';

const VEHICLES = 100;
const ORIGIN = { lat: -23.7, lon: -46.8 };
const METRES_PER_DEG_LAT = 111_320;
const FENCES = 100;
const RADIUS_M = 300;

/** One rule of each kind, over every vehicle: the overspeed one fires (the vehicles drive at 36 km/h). */
const RULES = [
  { name: 'Speeding', kind: 'overspeed', threshold: 30, duration_s: 10 },
  { name: 'Idling', kind: 'idling', duration_s: 300 },
  { name: 'Silent', kind: 'no_data', duration_s: 600 },
  { name: 'Fuel', kind: 'low_fuel', threshold: 10 },
  { name: 'Battery', kind: 'low_battery', threshold: 11.5 },
  { name: 'Night', kind: 'after_hours', schedule: { weekly: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '00:00', to: '24:00' }] } },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Vehicle k's position `s` seconds into its drive: road k % 10, 2 km apart; 10 m/s east. */
function positionOf(k, s) {
  const road = k % 10;
  const lat = ORIGIN.lat + (road * 2000) / METRES_PER_DEG_LAT;
  const east = (Math.floor(k / 10) * 137 + s * 10) % 10_000;
  return { lat, lon: ORIGIN.lon + east / (METRES_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180)) };
}

/** 10 fences on each of the 10 roads, 1 km apart. */
function fenceCenters() {
  return Array.from({ length: FENCES }, (_, i) => {
    const road = i % 10;
    const lat = ORIGIN.lat + (road * 2000) / METRES_PER_DEG_LAT;
    return { lat, lon: ORIGIN.lon + (500 + Math.floor(i / 10) * 1000) / (METRES_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180)) };
  });
}

function bodiesFrom(startMs, count) {
  const bodies = [];
  for (let b = 0; b < count; b += 1) {
    const records = [];
    for (let i = 0; i < 5; i += 1) {
      const s = b * 5 + i;
      for (let k = 0; k < VEHICLES; k += 1) {
        const p = positionOf(k, s);
        records.push({ vin: vinOf(k), date_time: new Date(startMs + s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'), latitude: p.lat, longitude: p.lon, speed: 36 });
      }
    }
    bodies.push(JSON.stringify({ records }));
  }
  return bodies;
}

export async function run(ctx) {
  const plan = ctx.quick ? { warmup: 5, rounds: 1, bodies: 20 } : { warmup: 20, rounds: 3, bodies: 100 };
  const total = plan.warmup + plan.rounds * plan.bodies;
  // Recorded over the last hour, a second apart per vehicle: every instant new, none refused as old.
  const startMs = Date.now() - 60 * 60_000;
  const bodies = bodiesFrom(startMs - (startMs % 1000), total);
  const without = await measure(ctx, plan, bodies, false);
  const withFences = await measure(ctx, plan, bodies, true);
  const lat = withFences.latency;
  return [
    { section: ctx.section, suite: name, name: `ingest records/s with ${FENCES} geofences and ${RULES.length} alert rules of the company vs none (the evaluator in the same process)`, service: withFences.rate, floor: without.rate, target: { op: '>=', value: 0.8 }, digits: 0 },
    { section: ctx.section, suite: name, name: `record accepted → its geofence or alert event in the outbox, p99 ms, under that load (p50 ${lat.p50} ms, max ${lat.max}; ${lat.count} events)`, service: lat.p99, target: { on: 'service', op: '<=', value: 1000 }, digits: 0 },
  ];
}

async function measure(ctx, plan, bodies, fences) {
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: VEHICLES });
  const { db } = fixture.store;
  let service;
  try {
    service = await startService({ database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log') });
    if (fences) {
      const auth = `Bearer ${await tokenFrom(service.url)}`;
      for (const [i, c] of fenceCenters().entries()) {
        const res = await fetch(`${service.url}/geofences`, {
          method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Fence ${i}`, geometry: { type: 'Point', coordinates: [c.lon, c.lat] }, radius_m: RADIUS_M }),
        });
        if (res.status !== 201) throw new Error(`POST /geofences: ${res.status} ${await res.text()}`);
      }
      for (const rule of RULES) {
        const res = await fetch(`${service.url}/alert-rules`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(rule) });
        if (res.status !== 201) throw new Error(`POST /alert-rules: ${res.status} ${await res.text()}`);
      }
    }
    const rates = [];
    for (let round = -1; round < plan.rounds; round += 1) {
      const slice = round < 0 ? bodies.slice(0, plan.warmup) : bodies.slice(plan.warmup + round * plan.bodies, plan.warmup + (round + 1) * plan.bodies);
      const bodiesFile = join(fixture.scratch, `ingest-${round}.ndjson`);
      writeFileSync(bodiesFile, `${slice.join('\n')}\n`);
      const sentAfter = Date.now();
      const [r] = await load([{
        name: 'ingest', url: `${service.url}/ingest/${OEM}`, method: 'POST', bodiesFile, amount: slice.length, connections: 4,
        headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' },
      }], 1);
      assertClean(r, 'ingest');
      if (round < 0) continue;
      const span = await db.selectFrom('telemetry').select((eb) => [eb.fn.countAll().as('rows'), eb.fn.min('received_at').as('first'), eb.fn.max('received_at').as('last')])
        .where('received_at', '>=', sentAfter).executeTakeFirstOrThrow();
      if (Number(span.rows) !== slice.length * 500) throw new Error(`ingest: ${span.rows} rows stored in round ${round + 1}, ${slice.length * 500} sent`);
      rates.push((500 * (slice.length - 1)) / ((Number(span.last) - Number(span.first)) / 1000));
      ctx.log(`  ${fences ? 'with fences' : 'no fences'}, round ${round + 1}: ${Math.round(rates.at(-1))} records/s`);
    }
    const rate = median(rates);
    if (!fences) return { rate };
    const lastTs = newestInstant(bodies);
    await caughtUp(db, lastTs);
    const rows = await db.selectFrom('events as e')
      .innerJoin('telemetry as t', (j) => j.onRef('t.vin', '=', 'e.vin').onRef('t.ts', '=', 'e.occurred_at'))
      .select(['e.type', 'e.created_at', 't.received_at']).where((eb) => eb.or([eb('e.type', 'like', 'geofence.%'), eb('e.type', 'like', 'alert.%')])).execute();
    const byType = await db.selectFrom('events').select(['type', (eb) => eb.fn.countAll().as('n')]).groupBy('type').orderBy('type').execute();
    ctx.log(`  events by type: ${byType.map((r) => `${r.type} ${r.n}`).join(', ')}`);
    const delays = rows.map((r) => Number(r.created_at) - Number(r.received_at)).sort((a, b) => a - b);
    const entered = rows.filter((r) => r.type === 'geofence.entered').length;
    const exited = rows.filter((r) => r.type === 'geofence.exited').length;
    if (entered < VEHICLES || Math.abs(entered - exited) > VEHICLES) throw new Error(`geofence events: ${entered} entered and ${exited} exited for ${VEHICLES} vehicles driving through fences`);
    return { rate, latency: { count: delays.length, p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) } };
  } finally {
    await service?.stop();
    await fixture.drop();
  }
}

/** The newest instant the bodies hold (every vehicle reports at each). */
function newestInstant(bodies) {
  const { records } = JSON.parse(bodies.at(-1));
  return Date.parse(records.at(-1).date_time);
}

async function caughtUp(db, lastTs) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    const row = await db.selectFrom('watch_cursors').select((eb) => eb.fn.countAll().as('n')).where('judged_until', '>=', lastTs).executeTakeFirstOrThrow();
    if (Number(row.n) === VEHICLES) return;
  }
  throw new Error('the geofence evaluator did not catch up within 60 s of the load');
}
