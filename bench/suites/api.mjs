/**
 * Requests per second of the authenticated hot paths against the floor: a bare Fastify route
 * answering a constant, in its own process, loaded the same way (autocannon from a third process,
 * same connections, alternating rounds).
 *
 * - GET /vehicle/{vin} with a bearer token: target ≥ 0.50 of the floor.
 * - Signed POST /vehicle-command `diagnostics` creations (each one answered `Pending`, so each
 *   stored and initiated with the automaker, `telematics oem-sim` in a fourth process answering
 *   at once): target ≥ 0.40.
 * - GET /vehicle (the company's 20 vehicles) and GET /vehicle-command/{id}: information.
 */
import { join } from 'node:path';
import { createFixture, signatureOf, tokenFrom, vinOf } from '../lib/fixture.mjs';
import { measureRates } from '../lib/load.mjs';
import { freePort, startFloorServer, startOemSim, startService } from '../lib/processes.mjs';

export const name = 'api';

export async function run(ctx) {
  const cloudPort = await freePort();
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 20, oemBaseUrl: `http://127.0.0.1:${cloudPort}` });
  await fixture.store.close();
  const log = (what) => join(fixture.scratch, `${what}.log`);
  const running = [];
  try {
    const floor = await startFloorServer({ logFile: log('floor') });
    running.push(floor);
    const service = await startService({ database: fixture.url, keys: fixture.keys, logFile: log('service') });
    running.push(service);
    running.push(await startOemSim({ fleetFile: fixture.fleetFile, ingestUrl: service.url, port: cloudPort, logFile: log('oem-sim') }));

    const auth = `Bearer ${await tokenFrom(service.url)}`;
    const vin = vinOf(0);
    const created = await fetch(`${service.url}/vehicle-command`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
      body: JSON.stringify({ vin, command: 'diagnostics' }),
    }).then((r) => r.json());
    if (created.status !== 'Pending') throw new Error(`creating a command: ${JSON.stringify(created)}`);

    const connections = 16;
    const runs = [
      { name: 'floor', url: `${floor.url}/floor`, connections },
      { name: 'vehicle', url: `${service.url}/vehicle/${vin}`, headers: { authorization: auth }, connections },
      { name: 'vehicles', url: `${service.url}/vehicle`, headers: { authorization: auth }, connections },
      { name: 'command-status', url: `${service.url}/vehicle-command/${created.id}`, headers: { authorization: auth }, connections },
      {
        name: 'create', url: `${service.url}/vehicle-command`, method: 'POST', connections,
        headers: { authorization: auth, 'content-type': 'application/json', 'x-signature': signatureOf(vin, 'diagnostics') },
        body: JSON.stringify({ vin, command: 'diagnostics' }),
      },
    ];
    const r = await measureRates(runs, ctx.quick ? { rounds: 1, seconds: 1, warmupSeconds: 1 } : { rounds: 5, seconds: 5, warmupSeconds: 3 });
    const fig = (figure, key, target) => ({ section: ctx.section, suite: name, name: figure, service: r[key].rps, floor: r.floor.rps, target });
    return [
      { section: ctx.section, suite: name, name: 'bare Fastify route (the floor), requests/s', service: r.floor.rps },
      fig('GET /vehicle/{vin}, requests/s', 'vehicle', { op: '>=', value: 0.5 }),
      fig('signed POST /vehicle-command creations/s', 'create', { op: '>=', value: 0.4 }),
      fig('GET /vehicle (20 vehicles), requests/s', 'vehicles'),
      fig('GET /vehicle-command/{id}, requests/s', 'command-status'),
    ];
  } finally {
    for (const p of running.reverse()) await p.stop();
    await fixture.drop();
  }
}
