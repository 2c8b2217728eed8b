#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark suite under bench/suites, on SQLite and (when a server is
 * given) PostgreSQL, printed as one table of service figure, floor, ratio and target.
 *
 *   node bench/run.mjs [--quick] [--sqlite-only | --postgres-only] [--only=api,scaling] [--json=FILE]
 *
 * Runs on dist/ (the npm script builds first). PostgreSQL runs when BENCH_DATABASE_URL or
 * TEST_DATABASE_URL is a postgres:// URL of a server where databases may be created. Load comes
 * from autocannon in a separate process; the service runs as `telematics serve` in another.
 * --quick runs every suite briefly (one short round, small data): it checks the benchmarks still
 * work; its figures are not judged. Exits 1 when a suite fails, never because a target is missed.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { benchPostgresUrl } from './lib/database.mjs';
import { renderTable, verdict } from './lib/report.mjs';

const SUITES = ['api', 'vehicle-data', 'trips', 'scaling', 'mixed', 'trackers', 'webhooks', 'sdk', 'console', 'queue', 'fleet-idle', 'geofence-index', 'geofence-watch'];

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has('--quick');
const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const jsonFile = argv.find((a) => a.startsWith('--json='))?.slice('--json='.length);
const adminUrl = benchPostgresUrl(args);
const unknown = (only ?? []).filter((s) => !SUITES.includes(s));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; suites: ${SUITES.join(', ')}`);
  process.exit(2);
}

const databases = [{ kind: 'sqlite', section: 'SQLite' }, ...(adminUrl ? [{ kind: 'postgres', section: 'PostgreSQL' }] : [])]
  .filter((d) => !(args.has('--postgres-only') && d.kind === 'sqlite'));
const started = Date.now();
const figures = [];
const failures = [];
console.error(`bench: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${quick ? 'quick' : 'full'} run; databases: ${databases.map((d) => d.section).join(', ')}`);
for (const { kind, section } of databases) {
  for (const name of SUITES.filter((s) => !only || only.includes(s))) {
    const t0 = Date.now();
    process.stderr.write(`[${section}] ${name}…\n`);
    try {
      const suite = await import(`./suites/${name}.mjs`);
      const got = await suite.run({ kind, section, adminUrl, quick, log: (m) => process.stderr.write(`[${section}] ${name}: ${m}\n`) });
      figures.push(...got);
      process.stderr.write(`[${section}] ${name} done in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    } catch (error) {
      failures.push(`${section} ${name}: ${error.stack ?? error}`);
      process.stderr.write(`[${section}] ${name} FAILED: ${error.stack ?? error}\n`);
    }
  }
}

console.log(`\nBenchmarks, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} CPUs, Node ${process.version}${quick ? ' (--quick: not judged)' : ''}\n`);
console.log(renderTable(quick ? figures.map(({ target, ...f }) => f) : figures));
console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s in all${failures.length ? `; ${failures.length} suite(s) FAILED` : ''}`);
// Repeated on stdout: CI keeps the tail of the run, and a failure told only on stderr scrolls away.
for (const failure of failures) console.log(`FAILED ${failure.split('\n').slice(0, 6).join('\n  ')}`);
if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify({ date: new Date().toISOString(), quick, figures: figures.map((f) => ({ ...f, result: verdict(f) })), failures }, null, 2)}\n`);
process.exit(failures.length > 0 ? 1 : 0);
