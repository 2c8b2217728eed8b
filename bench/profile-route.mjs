#!/usr/bin/env node
/**
 * A CPU profile of the service answering one authenticated route under load, to see where a
 * request's time goes before changing anything (docs/benchmarks.md). The service runs as `telematics serve`
 * on a bench fixture (20 vehicles), wrk (autocannon where wrk is not installed) loads it from its
 * own process (16 connections),
 * and the profile is summarised with profile-summary.mjs.
 *
 *   node bench/profile-route.mjs [vehicle|healthz|vehicles|command-status|create] [SECONDS]
 *
 * `create` loads signed POST /vehicle-command creations against the simulated automaker
 * (`telematics oem-sim`, its own process), as the api suite does; the profile then holds the
 * creations, their automaker exchanges and the worker's polls that follow them.
 *
 * SQLite by default; with TEST_DATABASE_URL (an admin URL), a PostgreSQL database of its own.
 * PROFILE_ROLE=api profiles a process without the background workers (`--role api`): with `create`,
 * the creations alone, without the polls that follow them.
 * The profile stays in the printed folder.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createFixture, tokenFrom, vinOf, signatureOf } from './lib/fixture.mjs';
import { load } from './lib/load.mjs';
import { wrk, wrkAvailable } from './lib/wrk.mjs';
import { freePort, startOemSim, startService } from './lib/processes.mjs';

const [route = 'vehicle', secondsArg = '10'] = process.argv.slice(2);
const seconds = Number(secondsArg);
const adminUrl = process.env.TEST_DATABASE_URL;
const cloudPort = await freePort();
const fixture = await createFixture({ kind: adminUrl ? 'postgres' : 'sqlite', adminUrl, vehicles: 20, oemBaseUrl: `http://127.0.0.1:${cloudPort}` });
await fixture.store.close();
const dir = mkdtempSync(join(tmpdir(), 'telematics-profile-'));
const service = await startService({ settings: process.env.PROFILE_ROLE ? { TELEMATICS_ROLE: process.env.PROFILE_ROLE } : {}, database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log'), nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const sim = route === 'create'
  ? await startOemSim({ fleetFile: fixture.fleetFile, ingestUrl: service.url, port: cloudPort, logFile: join(fixture.scratch, 'oem-sim.log') })
  : undefined;
try {
  const auth = `Bearer ${await tokenFrom(service.url)}`;
  const vin = vinOf(0);
  let url = `${service.url}/vehicle/${vin}`;
  if (route === 'healthz') url = `${service.url}/healthz`;
  if (route === 'vehicles') url = `${service.url}/vehicle`;
  if (route === 'command-status') {
    const created = await fetch(`${service.url}/vehicle-command`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
      body: JSON.stringify({ vin, command: 'diagnostics' }),
    }).then((r) => r.json());
    url = `${service.url}/vehicle-command/${created.id}`;
  }
  const run = route === 'create'
    ? {
      name: route, url: `${service.url}/vehicle-command`, method: 'POST', connections: 16,
      headers: { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
      body: JSON.stringify({ vin, command: 'diagnostics' }),
    }
    : { name: route, url, headers: { authorization: auth }, connections: 16 };
  const result = (await wrkAvailable()) ? await wrk(run, seconds) : (await load([run], seconds))[0];
  console.log(`${route}: ${Math.round(result.rps)} requests/s over ${seconds} s (${result.ok} answered 2xx, ${result.non2xx} not)`);
} finally {
  await service.stop();
  await sim?.stop();
  await fixture.drop();
}
const [profile] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
console.log(`profile: ${join(dir, profile)}`);
console.log(execFileSync(process.execPath, [join(import.meta.dirname, 'profile-summary.mjs'), join(dir, profile), '30'], { encoding: 'utf8' }));
