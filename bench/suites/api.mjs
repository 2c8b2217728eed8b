/**
 * Requests per second of the authenticated hot paths against floors, all loaded the same way
 * (wrk from its own process where installed, else autocannon; 16 connections, rounds alternating
 * between kinds, every other round in the reverse order, median). A ratio is the median over
 * pairs of rounds of each pair's own ratio, its runs made close together and once in each order
 * (pairedRatio in load.mjs); the rates printed are the medians of the rounds.
 *
 * Floors: a bare Fastify process (bench/lib/floor-server.mjs: no logging, no hooks) answering a
 * constant (GET /floor), the very JSON the service answers for the vehicle measured
 * (GET /floor-vehicle), and, after one automaker exchange, a constant (POST /floor-oem: the
 * exchange a creation must make, nothing stored); the durable floor (bench/lib/durable-floor.mjs, a
 * bare process on a database of its own: the same signed request, the command committed before
 * that exchange and its status URL after it, batched as the service does, nothing else); and the
 * service's own GET /healthz, a constant through the same Fastify instance, request ids, metrics
 * and request line as every route.
 *
 * The control (A/A): a second bare process, launched as the first with the same routes and given
 * the same three loads each round, each run on the other side of the figure from the first's,
 * always judged against the first. Identical code and history, so its ratios' distance from 1
 * (and their rounds' spread, printed in their names) is what chance alone moves a ratio by in
 * this run: read a miss beside it. Its median in the rounds of each order is printed
 * too: how far a place in the order moves a ratio by itself. The three targets judged against a
 * bare process (GET /healthz, GET /vehicle/{vin}, creations) are judged in each round against
 * the one of the two run just before the figure (floorRounds in load.mjs), and so are the
 * information figures beside them. The CPU µs an answer are the first process's.
 *
 * Targets (docs/benchmarks.md):
 * - GET /healthz ≥ 0.85 of the bare constant: what the per-request plumbing costs, alone.
 * - GET /vehicle/{vin} with a bearer token ≥ 0.65 of the bare process serving the same JSON, and
 *   ≥ 0.50 of GET /healthz.
 * - Signed POST /vehicle-command `diagnostics` creations (each answered `Pending`, so stored and
 *   initiated with the automaker: `telematics oem-sim` in a fourth process answering at once)
 *   ≥ 0.5 (SQLite) / 0.35 (PostgreSQL) of POST /floor-oem, made by an API process alone
 *   (`serve --role api` on a database of its own, as docs/scaling.md deploys the API): a creation
 *   is the one automaker exchange the floor makes, plus what the service must store before and
 *   after it. The polls that follow each command (a second automaker exchange a second later,
 *   its outcome and event) are a workers process's work, not the creation's; with the worker in
 *   the same process (`serve`, the default role) the same figure is printed beside it, and
 *   creations ≥ 0.40 of GET /healthz stay judged on that process. Beside the target,
 *   as information: creations over the durable floor (how close the service comes to the least a
 *   creation with the guarantee costs) and the durable floor over POST /floor-oem (what the
 *   guarantee itself costs on the machine: a target above it is beyond a bare process that does
 *   nothing else).
 * - GET /vehicle-command/{id} on PostgreSQL ≥ 0.5 of GET /healthz: the command made above, which
 *   the worker has finished (an ended command's answer is kept after its first read). The same
 *   for a Pending command (stored straight into the database with no status URL, so no worker
 *   polls it), which is read from the database every time: information.
 * - GET /vehicle (the company's 20 vehicles), creation to `Success` through the service's
 *   worker (p50, p99): information.
 * After each creation run the suite waits until the service's worker has polled every command
 * it made to its end, so that backlog does not weigh on the next kind measured.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openStore } from '../../dist/store/open-store.js';
import { createFixture, signatureOf, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { floorRounds, measureRates, pairedRatio, ratioByOrder, roundsRange } from '../lib/load.mjs';
import { wrkAvailable } from '../lib/wrk.mjs';
import { median, percentile } from '../lib/report.mjs';
import { freePort, startDurableFloor, startFloorServer, startOemSim, startService } from '../lib/processes.mjs';

export const name = 'api';

export async function run(ctx) {
  const cloudPort = await freePort();
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 20, oemBaseUrl: `http://127.0.0.1:${cloudPort}` });
  const pendingId = await storePendingCommand(fixture.store.db, vinOf(1));
  await fixture.store.close();
  const log = (what) => join(fixture.scratch, `${what}.log`);
  const running = [];
  let apiFixture;
  let durableFixture;
  try {
    const service = await startService({ database: fixture.url, keys: fixture.keys, logFile: log('service') });
    running.push(service);
    // The API alone, on a database of its own (the same fleet, so the same automaker knows its
    // VINs): no worker anywhere polls what it creates while its creations are measured.
    apiFixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 20, oemBaseUrl: `http://127.0.0.1:${cloudPort}` });
    await apiFixture.store.close();
    const apiOnly = await startService({ database: apiFixture.url, keys: apiFixture.keys, logFile: log('service-api'), settings: { TELEMATICS_ROLE: 'api' } });
    running.push(apiOnly);
    running.push(await startOemSim({ fleetFile: fixture.fleetFile, ingestUrl: service.url, port: cloudPort, logFile: log('oem-sim') }));

    const auth = `Bearer ${await tokenFrom(service.url)}`;
    const apiAuth = `Bearer ${await tokenFrom(apiOnly.url)}`;
    const vin = vinOf(0);
    // The bare process serves the very JSON the service answers for this vehicle.
    const vehicleJson = await fetch(`${service.url}/vehicle/${vin}`, { headers: { authorization: auth } }).then((res) => res.text());
    const floor = await startFloorServer({ logFile: log('floor'), oemUrl: `http://127.0.0.1:${cloudPort}`, vin, vehicleJson });
    running.push(floor);
    // The control: a second bare process launched as the first and given the same three loads each
    // round, each judged against the first's as the service is (A/A). How far its ratios stray
    // from 1 is how far a ratio moves by chance in this run.
    const twin = await startFloorServer({ logFile: log('floor-twin'), oemUrl: `http://127.0.0.1:${cloudPort}`, vin, vehicleJson });
    running.push(twin);
    // The durable floor, on a database of its own like the API process's (durable-floor.mjs).
    durableFixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 20, oemBaseUrl: `http://127.0.0.1:${cloudPort}` });
    await durableFixture.store.close();
    const durable = await startDurableFloor({ logFile: log('floor-durable'), oemUrl: `http://127.0.0.1:${cloudPort}`, vin, database: durableFixture.url });
    running.push(durable);
    const created = await fetch(`${service.url}/vehicle-command`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
      body: JSON.stringify({ vin, command: 'diagnostics' }),
    }).then((r) => r.json());
    if (created.status !== 'Pending') throw new Error(`creating a command: ${JSON.stringify(created)}`);

    const connections = 16;
    // A signed creation request to `url`, as the API process and the durable floor each get it.
    const creation = (url, authorization) => ({
      url, method: 'POST', connections,
      headers: { authorization, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
      body: JSON.stringify({ vin, command: 'diagnostics' }),
    });
    // wrk where it is installed (Debian's package; .ci/run installs it): it needs a fraction of
    // autocannon's CPU, which on two cores otherwise takes a core from the process measured.
    const generator = (await wrkAvailable()) ? 'wrk' : undefined;
    if (generator === undefined) ctx.log('wrk is not installed: loading with autocannon (figures not comparable to bench/RESULTS.md)');
    // Each of the three targets judged against a bare process runs between that process and its
    // twin. Every other round runs the list backwards (measureRates), and such a figure is judged
    // in each round against the one of the two run right before it (floorRounds): its floor never
    // runs right after it, where the figure's load could weigh on it (in the step that reversed
    // the rounds, the bare process run right after the API process's creations read slower in all
    // four sections of its first two runs; bench/history/2026-11-30-rounds-in-both-orders.md). A round's
    // ratio compares two runs of the same minute (pairedRatio).
    const runs = [
      { name: 'floor', url: `${floor.url}/floor`, connections, pid: floor.pid },
      { name: 'healthz', url: `${service.url}/healthz`, connections, pid: service.pid },
      { name: 'twin', url: `${twin.url}/floor`, connections, pid: twin.pid },
      { name: 'floor-vehicle', url: `${floor.url}/floor-vehicle`, connections, pid: floor.pid },
      { name: 'vehicle', url: `${service.url}/vehicle/${vin}`, headers: { authorization: auth }, connections, pid: service.pid },
      { name: 'twin-vehicle', url: `${twin.url}/floor-vehicle`, connections, pid: twin.pid },
      { name: 'command-status', url: `${service.url}/vehicle-command/${created.id}`, headers: { authorization: auth }, connections },
      { name: 'vehicles', url: `${service.url}/vehicle`, headers: { authorization: auth }, connections },
      { name: 'command-pending', url: `${service.url}/vehicle-command/${pendingId}`, headers: { authorization: auth }, connections },
      { name: 'floor-oem', url: `${floor.url}/floor-oem`, method: 'POST', connections, pid: floor.pid },
      { name: 'create-api', ...creation(`${apiOnly.url}/vehicle-command`, apiAuth), pid: apiOnly.pid },
      { name: 'twin-oem', url: `${twin.url}/floor-oem`, method: 'POST', connections, pid: twin.pid },
      { name: 'floor-durable', ...creation(`${durable.url}/floor-durable`, apiAuth), pid: durable.pid },
      { name: 'create', ...creation(`${service.url}/vehicle-command`, auth), settle: () => noCommandPending(fixture.url, pendingId) },
    ];
    for (const run of runs) run.generator = generator;
    // Each pair: the bare process run right before the figure as listed, and the one right before
    // it reversed (floorRounds), so it depends on the order above. The information figures beside
    // a target take its pair too, so none is judged against the run right after creations.
    const BARE = ['floor', 'twin'];
    const BARE_VEHICLE = ['floor-vehicle', 'twin-vehicle'];
    const EXCHANGE = ['floor-oem', 'twin-oem'];
    // An even number of rounds: pairs of rounds, one in each order (pairedRatio).
    const r = await measureRates(runs, ctx.quick ? { rounds: 2, seconds: 1, warmupSeconds: 1 } : { rounds: 6, seconds: 5, warmupSeconds: 3 });
    // `floorKey`: a kind, or the two identical bare processes, the one run just before the figure
    // in the listed order and the one in the reverse (floorRounds).
    const fig = (figure, key, target, floorKey = 'healthz') => ({
      section: ctx.section, suite: name, name: figure, service: r[key].rps, floor: median(floorRounds(r, floorKey)), ratio: pairedRatio(r, key, floorKey), target,
    });
    const latency = await creationToSuccess(service.url, auth, vin, ctx.quick ? 16 : 80);
    const info = (figure, value) => ({ section: ctx.section, suite: name, name: figure, service: value });
    // What each answer cost the process loaded, beside its floor's: steadier than rates on a
    // machine whose speed drifts, and the page faults tell a heap state that halves the rate.
    const perAnswer = (figure, key, floorKey, what, digits) => ({
      section: ctx.section, suite: name, name: figure, service: r[key][what], floor: r[floorKey][what], digits,
    });
    const postgres = ctx.kind === 'postgres';
    // An A/A control's rounds: their spread, and their medians in each order (listed | reversed).
    const aa = (key, floorKey) => `${roundsRange(r, key, floorKey)}; by order ${ratioByOrder(r, key, floorKey)}`;
    return [
      fig(`A/A: a second bare process vs the first, GET /floor (a ratio's chance in this run; rounds ${aa('twin', 'floor')})`, 'twin', undefined, 'floor'),
      fig(`  the same, GET /floor-vehicle (rounds ${aa('twin-vehicle', 'floor-vehicle')})`, 'twin-vehicle', undefined, 'floor-vehicle'),
      fig(`  the same, POST /floor-oem (rounds ${aa('twin-oem', 'floor-oem')})`, 'twin-oem', undefined, 'floor-oem'),
      fig('GET /healthz (the service\'s constant route: the per-request plumbing alone) vs a bare Fastify process (the one run just before it), requests/s', 'healthz', { op: '>=', value: 0.85 }, BARE),
      fig('GET /vehicle/{vin}, requests/s', 'vehicle', { op: '>=', value: 0.5 }),
      fig('  the same vs a bare Fastify process serving the same JSON (the one run just before it)', 'vehicle', { op: '>=', value: 0.65 }, BARE_VEHICLE),
      fig('signed POST /vehicle-command creations/s by the API process alone (`serve --role api`) vs a bare route making one automaker exchange (nothing stored; the one run just before it)', 'create-api', { op: '>=', value: postgres ? 0.35 : 0.5 }, EXCHANGE),
      fig('  the same vs the durable floor: a bare route that stores the command as the guarantee asks (committed before the exchange, its status URL after), batched as the service does, and nothing else (information)', 'create-api', undefined, 'floor-durable'),
      fig('  the durable floor vs the bare exchange: what storing a command as the guarantee asks costs on this machine (information)', 'floor-durable', undefined, EXCHANGE),
      fig('signed creations/s with the worker polling them in the same process (`serve`)', 'create', { op: '>=', value: 0.4 }),
      fig('  the same vs the bare Fastify process', 'create', undefined, BARE),
      fig('  the same vs a bare route making one automaker exchange (nothing stored)', 'create', undefined, EXCHANGE),
      fig('GET /vehicle (20 vehicles), requests/s', 'vehicles'),
      fig('GET /vehicle-command/{id} of an ended command (its answer kept after the first read), requests/s', 'command-status', postgres ? { op: '>=', value: 0.5 } : undefined),
      fig('  the same of a Pending command (read from the database every time)', 'command-pending'),
      perAnswer('GET /healthz, CPU µs an answer (service | bare process)', 'healthz', 'floor', 'cpuUs', 1),
      perAnswer('GET /vehicle/{vin}, CPU µs an answer (service | bare process, same JSON)', 'vehicle', 'floor-vehicle', 'cpuUs', 1),
      perAnswer('creations, CPU µs an answer (API process | bare route with its automaker exchange)', 'create-api', 'floor-oem', 'cpuUs', 1),
      perAnswer('  the same (API process | durable floor)', 'create-api', 'floor-durable', 'cpuUs', 1),
      perAnswer('GET /healthz, minor page faults an answer (service | bare process)', 'healthz', 'floor', 'faults', 2),
      info('creation to Success (automaker answering at once), p50 ms', latency.p50),
      info('creation to Success, p99 ms', latency.p99),
    ];
  } finally {
    for (const p of running.reverse()) await p.stop();
    await durableFixture?.drop();
    await apiFixture?.drop();
    await fixture.drop();
  }
}

/** Waits until no command but `except` (the one kept Pending) is Pending: the worker has caught up with what a creation run made. */
async function noCommandPending(url, except) {
  const store = openStore(url, { poolSize: 1 });
  try {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const row = await store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'Pending').where('id', '!=', except).executeTakeFirstOrThrow();
      if (Number(row.n) === 0) return;
      if (Date.now() > deadline) throw new Error(`${row.n} commands still Pending 3 minutes after a creation run`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await store.close();
  }
}

/** Creation to a final state as a client sees it: POST, then GET every 10 ms until not Pending. */
async function creationToSuccess(url, auth, vin, count) {
  const latencies = [];
  const headers = { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') };
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; i < count; i += 8) {
      const t0 = performance.now();
      const { id } = await fetch(`${url}/vehicle-command`, { method: 'POST', headers, body: JSON.stringify({ vin, command: 'diagnostics' }) }).then((res) => res.json());
      for (;;) {
        const { status } = await fetch(`${url}/vehicle-command/${id}`, { headers: { authorization: auth } }).then((res) => res.json());
        if (status === 'Success') break;
        if (status !== 'Pending') throw new Error(`command ${id} ended ${status}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      latencies.push(performance.now() - t0);
    }
  }));
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * A Pending command of the bench application, as another instance would have stored it before
 * calling the automaker: no status URL, so the worker leaves it alone, and a deadline an hour
 * away. Resolves to its id.
 */
async function storePendingCommand(db, vin) {
  const { id: applicationId, company_id: companyId } = await db.selectFrom('applications').select(['id', 'company_id']).executeTakeFirstOrThrow();
  const { oem } = await db.selectFrom('vehicles').select('oem').where('vin', '=', vin).executeTakeFirstOrThrow();
  const id = randomUUID();
  const now = Date.now();
  await db.insertInto('commands').values({
    id, application_id: applicationId, company_id: companyId, vin, oem, command: 'diagnostics', status: 'Pending', detail: '{}',
    created_at: now, updated_at: now, deadline_at: now + 3_600_000, code_attempts: 0, poll_attempts: 0,
  }).execute();
  return id;
}
