/**
 * Fleet-idle: background work must follow activity, not the number of registered
 * vehicles. Black-box: the fleet registered through the code `telematics admin apply` runs, the
 * service as `telematics serve` (dist, its own process; `--teltonika-port 0`, `--log-level warn`,
 * `--tracker-connections-per-address 0`, given as their environment settings), trackers over TCP
 * from a generator process, /metrics, and /proc.
 *
 * Each registry size gets a fresh database holding one company whose vehicles each carry a
 * Teltonika tracker (bench/lib/trackers.mjs: a `device` OEM, 15-digit IMEIs). The service starts
 * on it; once /readyz answers it gets 10 s more (its first passes), then:
 *
 * - Idle window, 60 s, no tracker connected: CPU (utime + stime, /proc/PID/stat) of the service
 *   and of the database, as cores (CPU s / window s). PostgreSQL: its processes for this database
 *   (bench/lib/database-cpu.mjs: the backends connected to it, sampled every 250 ms so backends
 *   replaced in the window count, and the server's own processes; the whole server's CPU is
 *   logged beside it as a cross-check). SQLite runs inside the service, so the service alone.
 *   Registries of 1,000, 10,000 and 100,000 vehicles; target: service + database at 100,000 ≤
 *   1.10 × at 1,000 (the floor, as scaling.mjs takes the smaller fleet).
 * - Reporting window (10,000 and 100,000 registered): 1,000 of the fleet's trackers, spread evenly
 *   over it, connect from a child process (bench/lib/reporting-trackers-child.mjs: one TCP
 *   connection each, logged in), then each sends one Codec 8 record every 10 s at a random phase,
 *   timestamp = now, waiting for its 4-byte ack as a device does. After 15 s of that (every
 *   tracker has reported), CPU over a 60 s window as above; target: service + database at
 *   100,000 ≤ 1.10 × at 10,000 (the same work, a registry ten times larger). Then the generator
 *   stops and waits for every outstanding ack; every record sent must have been acked with 1 and
 *   the telemetry table must hold exactly the records acked, else the suite fails.
 * - Ack latency: socket.write → the 4-byte answer, in the generator's event loop, of the records
 *   sent in the reporting window; p50, p99, p99.9, max. Target: p99.9 ≤ 50 ms at 100,000
 *   registered (absolute, `n`); the 10,000 figure is printed as its floor.
 * - Event-loop stalls: the service's `nodejs_eventloop_lag_max_seconds` (prom-client's default
 *   metrics, from monitorEventLoopDelay with a 10 ms resolution, so even a free loop reads ~10 ms;
 *   reset at each scrape) is scraped from /metrics on the API port at the start and at the end of
 *   each window: the largest delay during the window. No target.
 *
 * --quick: 200 and 5,000 registered, 50 trackers reporting every 2 s over both, 3 s after ready,
 * 2 s of reports before a window, windows of 5 s.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { processCpuMs } from '../lib/cpu-time.mjs';
import { openDatabaseCpu } from '../lib/database-cpu.mjs';
import { otherListeningPort } from '../lib/listening-ports.mjs';
import { startService } from '../lib/processes.mjs';
import { openReportingTrackers } from '../lib/reporting-trackers.mjs';
import { percentile } from '../lib/report.mjs';
import { createTrackerFixture, imeiOf, metricsOf } from '../lib/trackers.mjs';

export const name = 'fleet-idle';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const count = (n) => n.toLocaleString('en-US');

export async function run(ctx) {
  const plan = ctx.quick
    ? { fleets: [{ size: 200, report: true }, { size: 5_000, report: true }], trackers: 50, periodMs: 2_000, settleS: 3, warmupS: 2, windowS: 5 }
    : { fleets: [{ size: 1_000, report: false }, { size: 10_000, report: true }, { size: 100_000, report: true }], trackers: 1_000, periodMs: 10_000, settleS: 10, warmupS: 15, windowS: 60 };
  const results = [];
  for (const fleet of plan.fleets) results.push(await measureFleet(ctx, plan, fleet));

  const pg = ctx.kind === 'postgres';
  const [small, large] = [results[0], results.at(-1)];
  const middle = results.length > 2 ? results[1] : undefined;
  const reported = results.filter((r) => r.report);
  const [reportSmall, reportLarge] = [reported[0], reported.at(-1)];
  const fig = (figure, service, floor, target, digits) => ({ section: ctx.section, suite: name, name: figure, service, floor, target, digits });
  const vs = (a, b) => `at ${count(a.size)} vs ${count(b.size)} registered`;
  const dbText = pg ? 'service + database' : 'service (SQLite inside it)';
  const tail = reportLarge.report.latency;
  return [
    fig(`idle CPU, ${dbText}, cores, no tracker connected, ${vs(large, small)}`, total(large.idle), total(small.idle), { op: '<=', value: 1.1 }, 3),
    ...(pg ? [
      fig('  the service\'s CPU, cores', large.idle.serviceCores, small.idle.serviceCores, undefined, 3),
      fig('  the database\'s CPU, cores (its backends and the server\'s own processes)', large.idle.databaseCores, small.idle.databaseCores, undefined, 3),
    ] : []),
    ...(middle ? [fig(`  the same ${vs(middle, small)}`, total(middle.idle), total(small.idle), undefined, 3)] : []),
    fig(`  max event-loop delay in the idle window, ms, ${vs(large, small)}`, large.idle.lagMaxMs, small.idle.lagMaxMs, undefined, 0),
    fig(`CPU with ${count(plan.trackers)} trackers reporting (a record each ${plan.periodMs / 1000} s), ${dbText}, cores, ${vs(reportLarge, reportSmall)}`,
      total(reportLarge.report.window), total(reportSmall.report.window), { op: '<=', value: 1.1 }, 3),
    ...(pg ? [
      fig('  the service\'s CPU, cores', reportLarge.report.window.serviceCores, reportSmall.report.window.serviceCores, undefined, 3),
      fig('  the database\'s CPU, cores', reportLarge.report.window.databaseCores, reportSmall.report.window.databaseCores, undefined, 3),
    ] : []),
    fig(`  max event-loop delay in the reporting window, ms, ${vs(reportLarge, reportSmall)}`, reportLarge.report.window.lagMaxMs, reportSmall.report.window.lagMaxMs, undefined, 0),
    fig(`Teltonika ack latency p99.9, ms, ${count(plan.trackers)} trackers ${vs(reportLarge, reportSmall)} (p50 ${tail.p50.toFixed(1)}, p99 ${tail.p99.toFixed(1)} ms; ${count(tail.samples)} acks)`,
      tail.p999, reportSmall.report.latency.p999, { on: 'service', op: '<=', value: 50 }, 1),
    fig('  its max, ms', tail.max, reportSmall.report.latency.max, undefined, 1),
  ];
}

const total = (w) => w.serviceCores + w.databaseCores;

/** One registry size on a fresh database: its idle window and, when `report`, its reporting window. */
async function measureFleet(ctx, plan, { size, report }) {
  let t = performance.now();
  const fixture = await createTrackerFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: size });
  const registerSeconds = (performance.now() - t) / 1000;
  const databaseCpu = ctx.kind === 'postgres' ? await openDatabaseCpu(ctx.adminUrl, fixture.url) : undefined;
  let service;
  let trackers;
  try {
    t = performance.now();
    service = await startService({
      database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log'),
      settings: { TELEMATICS_TELTONIKA_PORT: '0', LOG_LEVEL: 'warn', TELEMATICS_TRACKER_CONNECTIONS_PER_ADDRESS: '0' },
      // With the passes that visited every vehicle, 100,000 vehicles on SQLite took 51 s to get ready on a busy machine.
      readyTimeoutMs: 180_000,
    });
    const readySeconds = (performance.now() - t) / 1000;
    const trackerPort = await otherListeningPort(service.pid, [Number(new URL(service.url).port)]);
    ctx.log(`${count(size)} registered in ${registerSeconds.toFixed(1)} s; service ready in ${readySeconds.toFixed(1)} s, trackers on port ${trackerPort}`);
    await sleep(plan.settleS * 1000);
    const idle = await cpuWindow(service, databaseCpu, plan.windowS);
    ctx.log(`  idle: ${describe(idle)}`);
    if (!report) return { size, idle };

    const imeis = Array.from({ length: plan.trackers }, (_, k) => imeiOf(Math.floor((k * size) / plan.trackers)));
    trackers = await openReportingTrackers({ port: trackerPort, imeis, logFile: join(fixture.scratch, 'trackers.log') });
    await trackers.report(plan.periodMs);
    await sleep(plan.warmupS * 1000);
    const from = Date.now();
    const window = await cpuWindow(service, databaseCpu, plan.windowS);
    const to = Date.now();
    const drained = await trackers.drain();
    const rows = await telemetryRows(fixture.store.db);
    const problems = [
      drained.errors.length > 0 ? `${drained.errors.length} sends failed (${drained.errors[0]})` : '',
      drained.badAcks > 0 ? `${drained.badAcks} acks were not 1` : '',
      drained.acked !== drained.sent - drained.errors.length - drained.badAcks ? `${drained.sent} sent, ${drained.acked} acked` : '',
      rows !== drained.acked ? `${drained.acked} records acked, ${rows} rows in telemetry` : '',
    ].filter(Boolean);
    if (problems.length > 0) throw new Error(`${count(size)} registered, ${plan.trackers} trackers: ${problems.join('; ')}`);
    const inWindow = drained.samples.filter(([sentAt]) => sentAt >= from && sentAt <= to).map(([, ms]) => ms);
    const latency = {
      samples: inWindow.length, p50: percentile(inWindow, 50), p99: percentile(inWindow, 99), p999: percentile(inWindow, 99.9), max: Math.max(...inWindow),
    };
    ctx.log(`  ${plan.trackers} trackers logged in in ${trackers.loginSeconds.toFixed(1)} s; reporting: ${describe(window)}`);
    ctx.log(`  acks in the window: ${latency.samples}, p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)}, p99.9 ${latency.p999.toFixed(1)}, max ${latency.max.toFixed(1)}; `
      + `${count(drained.acked)} records acked in all = ${count(rows)} rows stored; ${drained.late} sends late`);
    return { size, idle, report: { window, latency } };
  } finally {
    await trackers?.close();
    await service?.stop();
    await databaseCpu?.close();
    await fixture.drop();
  }
}

/**
 * CPU of the service and its database over `seconds`, as cores, and the largest event-loop delay
 * the service saw in that time (its lag histogram is reset by the scrape that opens the window).
 */
async function cpuWindow(service, databaseCpu, seconds) {
  await eventLoopLag(service.url);
  const t0 = performance.now();
  const service0 = processCpuMs(service.pid);
  await databaseCpu?.start();
  await sleep(seconds * 1000);
  const serviceMs = processCpuMs(service.pid) - service0;
  const database = await databaseCpu?.stop();
  const elapsedMs = performance.now() - t0;
  const lag = await eventLoopLag(service.url);
  return {
    seconds: elapsedMs / 1000, serviceCores: serviceMs / elapsedMs, databaseCores: (database?.ms ?? 0) / elapsedMs,
    serverCores: database ? database.allMs / elapsedMs : undefined, lagMaxMs: lag.max, lagMinMs: lag.min,
  };
}

async function eventLoopLag(serviceUrl) {
  const m = await metricsOf(serviceUrl, ['nodejs_eventloop_lag_max_seconds', 'nodejs_eventloop_lag_min_seconds']);
  return { max: m.nodejs_eventloop_lag_max_seconds * 1000, min: m.nodejs_eventloop_lag_min_seconds * 1000 };
}

function describe(w) {
  const server = w.serverCores === undefined ? '' : `, database ${w.databaseCores.toFixed(3)} (whole server ${w.serverCores.toFixed(3)})`;
  return `${w.seconds.toFixed(1)} s, service ${w.serviceCores.toFixed(3)} cores${server}; event-loop delay max ${w.lagMaxMs.toFixed(1)} ms (min ${w.lagMinMs.toFixed(1)})`;
}

async function telemetryRows(db) {
  const row = await db.selectFrom('telemetry').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
