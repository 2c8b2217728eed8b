/**
 * The service process under signals, as an orchestrator sends them:
 * - SIGKILL in the middle of ingest: every record whose request got a 200 is there after restart.
 * - SIGTERM with a command in flight: new connections are refused at once, the request in flight
 *   is answered, and the process exits 0 within 10 s.
 * The automaker cloud lives in the test process, so it outlives the service like a real one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, PROCESS_APP, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const VINS = processVins('9BWSGNAL', 10);

describe.each(DATABASE_KINDS)('the service process under signals on %s', (kind) => {
  let database: TestDatabase;
  let cloud: SimulatedOemCloud;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess | undefined;
  const serve = () => startServiceProcess(['--no-sim', '--database', database.url], env);

  beforeAll(async () => {
    const vehicles = new Map(VINS.map((vin) => [vin, new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1)]));
    // Reached as an `http` OEM, which has no stored key to send: keyless, on loopback.
    cloud = new SimulatedOemCloud((vin) => vehicles.get(vin), systemClock, { latencyMs: [100, 200], seed: 1, apiKey: null });
    await cloud.listen();
    ({ database, env } = await prepareProcessFleet(kind, cloud.url, VINS));
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await cloud?.close();
    await database?.drop();
  });

  it('when SIGKILL lands in the middle of ingest, then every record answered 200 is stored after restart', async () => {
    served = await serve();
    const url = served.url;
    // Whole seconds: date_time carries no milliseconds.
    const base = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    let next = 0;
    const acknowledged: { vin: string; ts: number }[] = [];
    let killed = false;
    const sender = async () => {
      while (!killed) {
        const batch = Array.from({ length: 100 }, () => {
          const n = next++;
          return { vin: VINS[n % VINS.length]!, ts: base + Math.floor(n / VINS.length) * 1000 };
        });
        try {
          const res = await fetch(`${url}/ingest/cloudmotors`, {
            method: 'POST', headers: { authorization: `Bearer ${PROCESS_APP.ingestKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ records: batch.map((r) => ({ vin: r.vin, date_time: new Date(r.ts).toISOString(), speed: 10 })) }),
          });
          const body = (await res.json()) as { rejected: unknown[] };
          if (res.status === 200 && body.rejected.length === 0) acknowledged.push(...batch);
        } catch {
          // The process died under this request: not acknowledged, so it may or may not be stored.
        }
      }
    };
    const senders = Promise.all(Array.from({ length: 4 }, sender));
    while (acknowledged.length < 3000) await new Promise((r) => setTimeout(r, 20));
    killed = true;
    await served.stop('SIGKILL');
    await senders;
    expect(acknowledged.length).toBeGreaterThanOrEqual(3000);

    served = await serve();
    const store = openStore(database.url, { poolSize: 2 });
    try {
      const rows = await store.db.selectFrom('telemetry').select(['vin', 'ts']).where('ts', '>=', base).execute();
      const stored = new Set(rows.map((r) => `${r.vin}@${Number(r.ts)}`));
      const missing = acknowledged.filter((r) => !stored.has(`${r.vin}@${r.ts}`));
      expect({ acknowledged: acknowledged.length, missing: missing.length }).toEqual({ acknowledged: acknowledged.length, missing: 0 });
    } finally {
      await store.close();
    }
    await served.stop();
    served = undefined;
  }, scaled(60_000));

  it('when SIGTERM arrives with a command in flight, then it is answered, new connections are refused, and the process exits 0 within 10 s', async () => {
    served = await serve();
    const url = served.url;
    const token = await processToken(url);
    cloud.faults.initiateDelayMs = 1500;
    try {
      const inFlight = fetch(`${url}/vehicle-command`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-signature': sign(PROCESS_APP.sign, VINS[0]!, 'diagnostics') },
        body: JSON.stringify({ vin: VINS[0], command: 'diagnostics' }),
      });
      while (cloud.received.length === 0) await new Promise((r) => setTimeout(r, 10));
      const stopping = served.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      // A fresh connection (no keep-alive reuse) is refused while the request in flight finishes.
      const late = await fetch(`${url}/healthz`, { headers: { connection: 'close' } }).then((r) => r.status, (e: Error) => (e.cause as { code?: string })?.code ?? e.message);
      expect(late).toBe('ECONNREFUSED');
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { status: string }).status).toBe('Pending');
      const exit = await stopping;
      expect({ code: exit.code, fast: exit.ms < 10_000 }, served.output().slice(-3000)).toEqual({ code: 0, fast: true });
    } finally {
      cloud.faults.initiateDelayMs = 0;
      served = undefined;
    }
  }, scaled(30_000));
});
