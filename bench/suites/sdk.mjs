/**
 * The SDK (packages/sdk) as a user installs and runs it:
 * - its packed and unpacked size and its runtime dependency count, from `npm pack --dry-run`
 *   (targets: packed ≤ 100 kB, no runtime dependency);
 * - its cost per call: GET /vehicle/{vin} through `client.vehicles.get` against the floor of the
 *   same request by bare `fetch` with the same token, from this process with 16 calls in flight,
 *   rounds alternating, median (target ≥ 0.85). Most of what the client adds is its per-attempt
 *   timeout: bare fetch with an AbortController and a timer is itself ~0.90 of bare fetch here
 *   (measured 2026-11-25); token, headers, error mapping and retry bookkeeping cost the rest.
 * Package facts do not depend on the database: measured once, in the SQLite section.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TelematicsClient } from '@telematics/sdk';
import { CLIENT_ID, CLIENT_SECRET, createFixture, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { startService } from '../lib/processes.mjs';
import { median } from '../lib/report.mjs';

export const name = 'sdk';

const ROOT = new URL('../..', import.meta.url).pathname;
const IN_FLIGHT = 16;

/** Calls per second of `call` kept `IN_FLIGHT` at a time for `ms`. */
async function rate(call, ms) {
  let done = 0;
  const until = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < until) {
      await call();
      done += 1;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return done / ((performance.now() - t0) / 1000);
}

export async function run(ctx) {
  if (ctx.kind !== 'sqlite') return [];
  const fig = (figure, service, floor, target, digits) => ({ section: ctx.section, suite: name, name: figure, service, floor, target, digits });

  const [packed] = JSON.parse((await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--workspace=@telematics/sdk'], { cwd: ROOT })).stdout);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', 'sdk', 'package.json'), 'utf8'));
  const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }).length;
  ctx.log(`${packed.filename}: ${packed.entryCount} files, ${packed.size} B packed, ${packed.unpackedSize} B unpacked`);

  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 20, oemBaseUrl: 'http://127.0.0.1:9' });
  await fixture.store.close();
  let service;
  try {
    service = await startService({ database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, 'service.log'), settings: { LOG_LEVEL: 'warn' } });
    const authorization = `Bearer ${await tokenFrom(service.url)}`;
    const url = `${service.url}/vehicle/${vinOf(0)}`;
    const client = new TelematicsClient({ baseUrl: service.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const raw = async () => {
      const res = await fetch(url, { headers: { authorization, accept: 'application/json' } });
      if (res.status !== 200) throw new Error(`GET /vehicle/{vin}: ${res.status}`);
      await res.json();
    };
    const sdk = () => client.vehicles.get(vinOf(0));
    await rate(raw, 500);
    await rate(sdk, 500);
    const rounds = ctx.quick ? 1 : 5;
    const ms = ctx.quick ? 500 : 3000;
    const floor = [];
    const through = [];
    for (let i = 0; i < rounds; i += 1) {
      floor.push(await rate(raw, ms));
      through.push(await rate(sdk, ms));
    }
    return [
      fig(`GET /vehicle/{vin} via the SDK vs bare fetch, calls/s (${IN_FLIGHT} in flight)`, median(through), median(floor), { op: '>=', value: 0.85 }),
      fig('package size packed, kB', packed.size / 1024, undefined, { on: 'service', op: '<=', value: 100 }, 1),
      fig('package size unpacked, kB', packed.unpackedSize / 1024, undefined, undefined, 1),
      fig('runtime dependencies', dependencies, undefined, { on: 'service', op: '==', value: 0 }, 0),
    ];
  } finally {
    await service?.stop();
    await fixture.drop();
  }
}
