#!/usr/bin/env node
/**
 * A CPU profile of the service answering one authenticated route under load, to see where a
 * request's time goes before changing anything (issue 22). The service runs as `telematics serve`
 * on a bench fixture (20 vehicles), wrk (autocannon where wrk is not installed) loads it from its
 * own process (16 connections),
 * and the profile is summarised with profile-summary.mjs.
 *
 *   node bench/profile-route.mjs [vehicle|healthz|vehicles|command-status] [SECONDS]
 *
 * SQLite by default; with TEST_DATABASE_URL (an admin URL), a PostgreSQL database of its own.
 * The profile stays in the printed folder.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createFixture, tokenFrom, vinOf, signatureOf } from './lib/fixture.mjs';
import { load } from './lib/load.mjs';
import { wrk, wrkAvailable } from './lib/wrk.mjs';
import { startService } from './lib/processes.mjs';

const [route = 'vehicle', secondsArg = '10'] = process.argv.slice(2);
const seconds = Number(secondsArg);
const adminUrl = process.env.TEST_DATABASE_URL;
const fixture = await createFixture({ kind: adminUrl ? 'postgres' : 'sqlite', adminUrl, vehicles: 20 });
await fixture.store.close();
const dir = mkdtempSync(join(tmpdir(), 'telematics-profile-'));
const service = await startService({ database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log'), nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
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
  const run = { name: route, url, headers: { authorization: auth }, connections: 16 };
  const result = (await wrkAvailable()) ? await wrk(run, seconds) : (await load([run], seconds))[0];
  console.log(`${route}: ${Math.round(result.rps)} requests/s over ${seconds} s (${result.ok} answered 2xx, ${result.non2xx} not)`);
} finally {
  await service.stop();
  await fixture.drop();
}
const [profile] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
console.log(`profile: ${join(dir, profile)}`);
console.log(execFileSync(process.execPath, [join(import.meta.dirname, 'profile-summary.mjs'), join(dir, profile), '30'], { encoding: 'utf8' }));
