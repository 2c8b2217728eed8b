/**
 * `serve --role api` and `serve --role workers` as two OS processes on one PostgreSQL database
 * behave as one `all` process: commands sent to the api process are polled to Success by the
 * workers process, telemetry ingested by the api process becomes trips there, and the api process
 * alone runs no worker. The automaker cloud lives in the test process (an `http` OEM), so either
 * process may come and go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { sign } from '../support/command-client.js';
import type { TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, PROCESS_APP, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, startUnlistenedServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { scaled } from '../support/timeouts.js';

const VINS = processVins('9BWR0LES', 2);
const MIN = 60;
/** Longer than a trip pass apart (5 s) plus a command's first poll (at most 1.2 s after creation). */
const QUIET_MS = 6500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(process.env.TEST_DATABASE_URL)('api and workers roles as two processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let cloud: SimulatedOemCloud;
  let env: NodeJS.ProcessEnv;
  let store: StoreConnection;
  let api: ServiceProcess | undefined;
  let workers: ServiceProcess | undefined;

  beforeAll(async () => {
    const vehicles = new Map(VINS.map((vin) => [vin, new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1)]));
    // Reached as an `http` OEM, which has no stored key to send: keyless, on loopback.
    cloud = new SimulatedOemCloud((vin) => vehicles.get(vin), systemClock, { latencyMs: [100, 200], seed: 1, apiKey: null });
    await cloud.listen();
    ({ database, env } = await prepareProcessFleet('postgres', cloud.url, VINS));
    store = openStore(database.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await api?.stop('SIGKILL');
    await workers?.stop('SIGKILL');
    await store?.close();
    await cloud?.close();
    await database?.drop();
  });

  it('when only the api process runs, then commands stay untouched and no trip appears; once a workers process joins, both complete', async () => {
    api = await startServiceProcess(['--role', 'api', '--database', database.url], env);
    const auth = { authorization: `Bearer ${await processToken(api.url)}` };

    // A 10-minute drive that ended half an hour ago, then 10 minutes parked: one finished trip.
    const start = Math.floor(Date.now() / 1000) * 1000 - 45 * MIN * 1000;
    const records = syntheticDrive(start, [stand(5 * MIN), move(40, 10 * MIN), stand(10 * MIN)]).map((r) => ({
      vin: VINS[0], date_time: new Date(r.ts).toISOString(), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuel_level: r.fuelLevel,
    }));
    const ingested = await fetch(`${api.url}/ingest/cloudmotors`, {
      method: 'POST', headers: { authorization: `Bearer ${PROCESS_APP.ingestKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ records }),
    });
    expect(await ingested.json()).toMatchObject({ accepted: records.length, rejected: [] });

    const ids: string[] = [];
    for (const [vin, command] of [[VINS[0]!, 'diagnostics'], [VINS[1]!, 'lock_doors']] as const) {
      const res = await fetch(`${api.url}/vehicle-command`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'x-signature': sign(PROCESS_APP.sign, vin, command) }, body: JSON.stringify({ vin, command }),
      });
      const body = (await res.json()) as { id: string; status: string };
      expect(body.status).toBe('Pending');
      ids.push(body.id);
    }
    const commandRows = () => store.db.selectFrom('commands').select(['id', 'status', 'poll_attempts', 'lease_owner']).where('id', 'in', ids).orderBy('id').execute();
    const trips = async () => {
      const res = await fetch(`${api!.url}/vehicle-trips`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ vins: [VINS[0]], datapoints: ['start_date_time', 'end_date_time', 'distance'] }),
      });
      return ((await res.json()) as Record<string, { distance: number }[]>)[VINS[0]!]!;
    };

    // An `all` process would have polled both commands and run two trip passes by now.
    await sleep(QUIET_MS);
    for (const row of await commandRows()) expect(row).toMatchObject({ status: 'Pending', poll_attempts: 0, lease_owner: null });
    expect(await trips()).toEqual([]);
    expect(Number((await store.db.selectFrom('trips').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);

    workers = await startServiceProcess(['--role', 'workers', '--database', database.url, '--ops-port', '0'], env);
    const deadline = Date.now() + scaled(10_000);
    let statuses: string[] = [];
    let found: { distance: number }[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(ids.map(async (id) => ((await (await fetch(`${api!.url}/vehicle-command/${id}`, { headers: auth })).json()) as { status: string }).status));
      found = await trips();
      if (statuses.every((s) => s !== 'Pending') && found.length > 0) break;
      await sleep(100);
    }
    expect(statuses).toEqual(['Success', 'Success']);
    expect(found).toHaveLength(1);
    // 40 km/h for 10 minutes at 10 s per record: the trip runs from the first moving record, 59 steps.
    expect(found[0]!.distance).toBeCloseTo(6.556, 2);
    // Initiated once each by the api process; the workers process only polled.
    for (const id of ids) expect(cloud.received.filter((r) => r.id === id)).toHaveLength(1);

    // The workers process serves operations only; it loads the keys (it signs webhooks).
    const opsUrl = workers.url;
    expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/metrics`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/token`, { method: 'POST' })).status).toBe(404);
    expect(workers.output()).toContain('keys loaded');
    expect(api.output()).not.toContain('trips detected');

    const [apiExit, workersExit] = await Promise.all([api.stop(), workers.stop()]);
    expect({ api: apiExit.code, workers: workersExit.code }).toEqual({ api: 0, workers: 0 });
    api = undefined;
    workers = undefined;
  }, scaled(30_000));

  it('when a workers process has no --ops-port, then it listens nowhere, keeps running until SIGTERM, and exits 0', async () => {
    const quiet = await startUnlistenedServiceProcess(['--role', 'workers', '--database', database.url], env, 'no listener: set --ops-port');
    try {
      await sleep(1000);
      expect(quiet.child.exitCode).toBeNull();
      expect(quiet.output()).not.toContain('Server listening');
      expect((await quiet.stop()).code).toBe(0);
    } finally {
      await quiet.stop('SIGKILL');
    }
  }, scaled(20_000));
});
