/**
 * Soak: the service for a long stretch under what a fleet does all day, watched for anything
 * that builds up. Part of `npm run test:resilience`; not a benchmark (nothing is timed against a
 * floor), it passes or fails.
 *
 * Setup (as bench/suites/mixed.mjs): 1,000 vehicles (SOAK_VEHICLES) of one company, simulated by
 * `telematics oem-sim` in its own process, sampling every 10 s and pushing to POST /ingest; the
 * same process is the automaker cloud for commands (answers after 0.5–2 s). The service runs as
 * `telematics serve` with its defaults (request limits off: every reader is one address).
 *
 * For SOAK_MINUTES (default 10): readers at a steady ~60 requests/s spread over every read
 * endpoint and POST /token, and one diagnostics command every 2 s (every fifth with an
 * Idempotency-Key, sent twice). Every 10 s a line: elapsed time, service RSS, requests, errors,
 * commands created and still Pending.
 *
 * Passes when: no reader or command request failed; POST /ingest answered only 200 and the
 * simulator logged no warning; after the load stops, every command reached Success or Error,
 * none stayed Pending past its deadline; and resident memory shows no upward trend: the median of
 * the last quarter of samples is within 10 % (+16 MB) of the median of the second quarter.
 * Exits 1 otherwise, saying why.
 *
 *   npm run build && node bench/soak.mjs            # SQLite; BENCH_DATABASE_URL for PostgreSQL
 *   SOAK_MINUTES=1 node bench/soak.mjs              # the short form CI runs
 *   node bench/soak.mjs --sqlite-only               # SQLite even when TEST_DATABASE_URL is set
 */
import { join } from 'node:path';
import { formatIsoLocal } from '../dist/domain/time.js';
import { benchPostgresUrl } from './lib/database.mjs';
import { createFixture, signatureOf, tokenFrom, vinOf } from './lib/fixture.mjs';
import { ingestStatuses, waitUntil, warningsIn } from './lib/observe.mjs';
import { freePort, startOemSim, startService } from './lib/processes.mjs';
import { median, percentile } from './lib/report.mjs';
import { telemetryCount } from './lib/synthetic-telemetry.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const VEHICLES = Number(process.env.SOAK_VEHICLES ?? 1000);
const READS_PER_SECOND = 60;
const COMMAND_EVERY_MS = 2000;
const SAMPLE_EVERY_MS = 10_000;
const COMMAND_TIMEOUT_S = 120;

const log = (line) => process.stdout.write(`[soak] ${line}\n`);

async function main() {
  const adminUrl = benchPostgresUrl(new Set(process.argv.slice(2)));
  const kind = adminUrl ? 'postgres' : 'sqlite';
  log(`${MINUTES} min, ${VEHICLES} vehicles, ${kind}`);
  const cloudPort = await freePort();
  const fixture = await createFixture({ kind, adminUrl, vehicles: VEHICLES, oemBaseUrl: `http://127.0.0.1:${cloudPort}`, simTelemetry: true });
  const logFile = (what) => join(fixture.scratch, `${what}.log`);
  const running = [];
  const problems = [];
  try {
    const service = await startService({ database: fixture.url, keys: fixture.keys, logFile: logFile('service'), settings: { TELEMATICS_COMMAND_TIMEOUT: String(COMMAND_TIMEOUT_S) } });
    running.push(service);
    const sim = await startOemSim({ fleetFile: fixture.fleetFile, ingestUrl: service.url, port: cloudPort, logFile: logFile('oem-sim'), latency: '500-2000', extra: ['--backfill', '2m'] });
    running.push(sim);
    const backfilled = VEHICLES * 12;
    await waitUntil(async () => (await telemetryCount(fixture.store.db)) >= backfilled, 180_000, () => `the simulator's backfill was not stored; see ${sim.logFile}`);
    log('backfill stored; load starts');

    let auth = `Bearer ${await tokenFrom(service.url)}`;
    const vins = Array.from({ length: VEHICLES }, (_, i) => vinOf(i));
    const stats = { requests: 0, errors: 0, latencies: [], firstErrors: [] };
    const commands = [];
    const fail = (what, detail) => {
      stats.errors += 1;
      if (stats.firstErrors.length < 5) stats.firstErrors.push(`${what}: ${detail}`);
    };
    const call = async (what, path, init = {}) => {
      const started = performance.now();
      try {
        const res = await fetch(`${service.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        stats.requests += 1;
        stats.latencies.push(performance.now() - started);
        if (res.status !== 200) fail(what, `${res.status} ${text.slice(0, 200)}`);
        return res.status === 200 ? JSON.parse(text) : undefined;
      } catch (error) {
        fail(what, String(error.cause ?? error));
        return undefined;
      }
    };
    const json = () => ({ authorization: auth, 'content-type': 'application/json' });
    let n = 0;
    const readers = [
      () => call('GET /vehicle', '/vehicle', { headers: { authorization: auth } }),
      () => call('GET /vehicle/{vin}', `/vehicle/${vins[n % VEHICLES]}`, { headers: { authorization: auth } }),
      () => call('POST /vehicle-data', '/vehicle-data', {
        method: 'POST', headers: json(),
        body: JSON.stringify({ vins: [vins[n % VEHICLES]], datapoints: ['date_time', 'speed', 'latitude', 'longitude', 'fuel_level'], start_date: formatIsoLocal(Date.now() - 3_600_000) }),
      }),
      () => call('POST /vehicle-trips', '/vehicle-trips', { method: 'POST', headers: json(), body: JSON.stringify({ vins: [vins[n % VEHICLES]], datapoints: ['start_date_time', 'distance'] }) }),
      () => (commands.length === 0 ? Promise.resolve() : call('GET /vehicle-command/{id}', `/vehicle-command/${commands[n % commands.length].id}`, { headers: { authorization: auth } })),
      async () => {
        const issued = await call('POST /token', '/token', {
          method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ client_id: 'bench-app', client_secret: 'bench-client-secret-0123456789abcdefghij' }),
        });
        if (issued) auth = `Bearer ${issued.token}`;
      },
    ];
    const sendCommand = async (i) => {
      const vin = vins[(i * 7) % VEHICLES];
      const init = { method: 'POST', headers: { ...json(), 'x-signature': signatureOf(vin, 'diagnostics') }, body: JSON.stringify({ vin, command: 'diagnostics' }) };
      if (i % 5 === 0) init.headers['idempotency-key'] = `soak-${i}`;
      const created = await call('POST /vehicle-command', '/vehicle-command', init);
      if (!created) return;
      commands.push(created);
      if (i % 5 === 0) {
        const again = await call('POST /vehicle-command (retry)', '/vehicle-command', init);
        if (again && again.id !== created.id) fail('Idempotency-Key retry', `made a second command ${again.id}`);
      }
    };

    const rss = [];
    const started = Date.now();
    const endAt = started + MINUTES * 60_000;
    let commandCount = 0;
    let lastSample = started;
    const inFlight = new Set();
    const track = (p) => { inFlight.add(p); void p.finally(() => inFlight.delete(p)); };
    while (Date.now() < endAt) {
      const tick = Date.now();
      for (let k = 0; k < READS_PER_SECOND / 10; k += 1) track(readers[(n += 1) % readers.length]());
      if (tick - started >= commandCount * COMMAND_EVERY_MS) track(sendCommand(commandCount++));
      if (tick - lastSample >= SAMPLE_EVERY_MS) {
        lastSample = tick;
        const mb = service.rssMb();
        rss.push(mb);
        const recent = stats.latencies.splice(0);
        const pending = await fixture.store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'Pending').executeTakeFirstOrThrow();
        log(`${((tick - started) / 60_000).toFixed(1)} min  RSS ${mb.toFixed(0)} MB  requests ${stats.requests}  errors ${stats.errors}  p99 ${percentile(recent, 99)?.toFixed(0) ?? '-'} ms  commands ${commands.length} (Pending ${pending.n})  in flight ${inFlight.size}`);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - tick))));
    }
    await Promise.all(inFlight);
    log(`load stopped after ${((Date.now() - started) / 60_000).toFixed(1)} min; waiting for commands to finish`);

    const deadline = Date.now() + (COMMAND_TIMEOUT_S + 15) * 1000;
    const pendingCount = async () => Number((await fixture.store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'Pending').executeTakeFirstOrThrow()).n);
    while ((await pendingCount()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
    const overdue = await fixture.store.db.selectFrom('commands').select(['id', 'deadline_at']).where('status', '=', 'Pending').execute();
    const outcomes = await fixture.store.db.selectFrom('commands').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute();
    log(`commands by status: ${outcomes.map((o) => `${o.status} ${o.n}`).join(', ')}`);

    if (stats.errors > 0) problems.push(`${stats.errors} failed requests, first: ${stats.firstErrors.join(' | ')}`);
    if (overdue.length > 0) problems.push(`${overdue.length} commands still Pending after their deadline`);
    if (commands.length === 0) problems.push('no command was created');
    const ingest = await ingestStatuses(service.url);
    const refused = Object.entries(ingest).filter(([status]) => status !== '200');
    if (refused.length > 0) problems.push(`POST /ingest answered ${JSON.stringify(ingest)}`);
    const warnings = warningsIn(sim.logFile);
    if (warnings.length > 0) problems.push(`${warnings.length} simulator warnings, first: ${warnings[0]}`);
    if (rss.length >= 4) {
      const q = Math.floor(rss.length / 4);
      const early = median(rss.slice(q, 2 * q));
      const late = median(rss.slice(rss.length - q));
      log(`RSS over time, MB: ${rss.map((x) => x.toFixed(0)).join(' ')}; median of the second quarter ${early.toFixed(0)}, of the last ${late.toFixed(0)}`);
      if (late > early * 1.1 + 16) problems.push(`resident memory grew from ${early.toFixed(0)} MB to ${late.toFixed(0)} MB`);
    } else {
      log(`RSS over time, MB: ${rss.map((x) => x.toFixed(0)).join(' ')} (too few samples to judge a trend)`);
    }
    log(`${stats.requests} requests, ${commands.length} commands`);
  } finally {
    for (const p of running.reverse()) await p.stop();
    await fixture.drop();
  }
  if (problems.length > 0) {
    for (const p of problems) log(`FAIL: ${p}`);
    process.exitCode = 1;
  } else {
    log('PASS');
  }
}

main().catch((error) => {
  process.stderr.write(`[soak] ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
