#!/usr/bin/env node
/**
 * `npm run bench:commands` (issue 5): signed POST /vehicle-command creations per second against
 * a floor of the same server answering an authenticated no-op route, both driven the same way
 * (fetch over loopback, 16 requests in flight, for a fixed time after a warm-up); then the time
 * from creation to `Success` (p50, p99) with a zero-latency simulated automaker cloud and the
 * service's own worker.
 *
 *   node bench/commands.bench.mjs [--quick] [--sqlite-only]
 *
 * Runs on dist/. SQLite always; PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is a
 * postgres:// URL. Load runs in the service's process: it understates both figures alike.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { benchPostgresUrl, createBenchDatabase } from './bench-database.mjs';
import { CommandWorker } from '../dist/commands/command-worker.js';
import { systemClock } from '../dist/domain/clock.js';
import { canonicalCommandBody } from '../dist/domain/command-signature.js';
import { validateFleetFile } from '../dist/domain/fleet-file.js';
import { authenticateHook } from '../dist/http/authenticate-hook.js';
import { buildApp } from '../dist/http/build-app.js';
import { createLogger } from '../dist/logger.js';
import { ConnectorRegistry } from '../dist/oem/connector-registry.js';
import { applyFleet } from '../dist/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../dist/security/keyring.js';
import { SimulatedOemCloud } from '../dist/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../dist/sim/simulated-vehicle.js';
import { migrateToLatest } from '../dist/store/migrate.js';
import { openStore } from '../dist/store/open-store.js';

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PG_URL = benchPostgresUrl(args);
const SECONDS = QUICK ? 2 : 10;
const IN_FLIGHT = 16;
const VINS = Array.from({ length: 20 }, (_, i) => `9BWCMDBN000${String(i + 1).padStart(6, '0')}`);
const SIGN = 'bench-command-sign-secret-0123456789abcdef';
const SECRET = 'bench-command-client-secret-0123456789abcd';
const signatures = new Map(VINS.map((vin) => [vin, createHmac('sha256', SIGN).update(canonicalCommandBody(vin, 'diagnostics')).digest('hex')]));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

async function load(seconds, request) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async (_, worker) => {
    let i = worker;
    while (performance.now() < end) {
      const ok = await request(i);
      if (ok) done += 1; else failed += 1;
      i += IN_FLIGHT;
    }
  }));
  if (failed > 0) console.error(`  ${failed} requests failed`);
  return done / seconds;
}

async function runOn(kind) {
  const database = await createBenchDatabase(kind, PG_URL);
  const store = openStore(database.url, { poolSize: 10 });
  const vehicles = new Map(VINS.map((vin) => [vin, new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1)]));
  const cloud = new SimulatedOemCloud((vin) => vehicles.get(vin), systemClock, { latencyMs: [0, 0], seed: 1 });
  try {
    await migrateToLatest(store);
    const keyring = keyringFromDocument(generateKeyringDocument(), 'bench');
    const fleet = validateFleetFile({
      plans: [{ name: 'full', datapoints: '*', commands: '*' }],
      oems: [{ name: 'benchmotors', connector: 'sim', datapoints: '*', commands: '*' }],
      companies: [{ id: 'bench', name: 'Bench', plan: 'full', applications: [{ name: 'app', client_id: 'bench-app', client_secret: SECRET, sign_secret: SIGN }],
        vehicles: VINS.map((vin, i) => ({ vin, plate: `CMD${i}`, oem: 'benchmotors', model: 'M', year: 2024, fuel_capacity: 50 })) }],
    });
    if (!fleet.ok) throw new Error(JSON.stringify(fleet.problems));
    await applyFleet(store.db, fleet.fleet, keyring, Date.now());
    const connectorSettings = { initiateTimeoutMs: 10_000, pollTimeoutMs: 5_000, simCloudUrl: await cloud.listen() };
    const connectors = new ConnectorRegistry(connectorSettings);
    const deps = {
      store, keyring, clock: systemClock, logger: createLogger('warn', new Writable({ write(_c, _e, d) { d(); } })),
      tokenSettings: { issuer: 'telematics', audience: 'telematics-api' }, bodyLimit: 1_048_576,
      telemetryRetentionMs: 192 * 3_600_000, tripLatenessMs: 60_000, connectors, commandTimeoutMs: 120_000,
    };
    const app = await buildApp(deps);
    app.get('/bench/noop', { onRequest: authenticateHook(deps) }, async () => ({ ok: true }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const { token } = await (await fetch(`${url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=bench-app&client_secret=${SECRET}` })).json();
    const auth = { authorization: `Bearer ${token}` };
    const create = async (i) => {
      const vin = VINS[i % VINS.length];
      const res = await fetch(`${url}/vehicle-command`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'x-signature': signatures.get(vin) }, body: `{"vin":"${vin}","command":"diagnostics"}` });
      const body = await res.json();
      return body.status === 'Pending';
    };
    const noop = async () => (await fetch(`${url}/bench/noop`, { headers: auth })).status === 200;

    await load(1, noop);
    await load(1, create);
    const floorRate = await load(SECONDS, noop);
    const createRate = await load(SECONDS, create);

    // Creation to Success, with the worker running as in serve.
    const stop = new CommandWorker(store, connectors, systemClock).start();
    const latencies = [];
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < (QUICK ? 16 : 80); i += 8) {
        const vin = VINS[i % VINS.length];
        const t0 = performance.now();
        const res = await fetch(`${url}/vehicle-command`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'x-signature': signatures.get(vin) }, body: `{"vin":"${vin}","command":"diagnostics"}` });
        const { id } = await res.json();
        for (;;) {
          const s = await (await fetch(`${url}/vehicle-command/${id}`, { headers: auth })).json();
          if (s.status !== 'Pending') break;
          await new Promise((r) => setTimeout(r, 10));
        }
        latencies.push(performance.now() - t0);
      }
    }));
    await stop();
    await app.close();
    return { kind, createRate, floorRate, p50: pct(latencies, 50), p99: pct(latencies, 99) };
  } finally {
    await cloud.close();
    await store.close();
    await database.drop();
  }
}

const results = [];
for (const kind of ['sqlite', ...(PG_URL ? ['postgres'] : [])]) {
  console.error(`[${kind}] ${SECONDS} s per figure, ${IN_FLIGHT} in flight…`);
  results.push(await runOn(kind));
}
console.log('\nCommands');
const row = (c) => console.log(`  ${c[0].padEnd(64)}${c.slice(1).map((x) => String(x).padStart(10)).join('')}`);
row(['figure', 'service', 'floor', 'ratio']);
for (const r of results) {
  row([`${r.kind}: signed diagnostics creations/s vs authenticated no-op/s`, Math.round(r.createRate), Math.round(r.floorRate), (r.createRate / r.floorRate).toFixed(2)]);
  row([`${r.kind}: creation to Success, p50 / p99 ms`, `${Math.round(r.p50)} / ${Math.round(r.p99)}`, '', '']);
}
