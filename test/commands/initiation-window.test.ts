/**
 * `telematics serve` killed with SIGKILL inside a creation's window: the automaker has accepted
 * the command (the vehicle will act) and the status URL is not stored yet. The window is held
 * open by the test (held-command-writes.ts), so the kill lands in it every time. After a restart
 * the command is initiated again with the same `Idempotency-Key`, gets the same status URL and
 * ends with the vehicle's real outcome; the automaker, a real HTTP peer in this process (it
 * outlives the service), acted once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { REINITIATE_AFTER_MS } from '../../src/domain/initiation.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { holdCommandWrites, writesWaitingOnLock } from '../support/held-command-writes.js';
import { prepareProcessFleet, PROCESS_APP, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const [VIN] = processVins('9BWCRSHWND', 1) as [string];
const TIMEOUT_S = 30;
/** How long the automaker takes to answer an initiation: the test takes the write lock meanwhile. */
const INITIATE_DELAY_MS = 1000;

describe.each(DATABASE_KINDS)('a crash between the automaker\'s acceptance and the status URL\'s commit on %s', (kind) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let cloud: SimulatedOemCloud;
  let served: ServiceProcess | undefined;

  beforeAll(async () => {
    const vehicle = new SimulatedVehicle({ vin: VIN, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1);
    // Reached as an `http` OEM, which has no stored key to send: keyless, on loopback.
    cloud = new SimulatedOemCloud((vin) => (vin === VIN ? vehicle : undefined), systemClock, { latencyMs: [1500, 2500], seed: 3, apiKey: null });
    await cloud.listen();
    ({ database, env } = await prepareProcessFleet(kind, cloud.url, [VIN]));
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await cloud?.close();
    await database?.drop();
  });

  const serve = async () => {
    served = await startServiceProcess(['--no-sim', '--database', database.url, '--command-timeout', String(TIMEOUT_S)], env);
    return served;
  };

  async function stored(id: string) {
    const store = openStore(database.url, { poolSize: 1 });
    try {
      return await store.db.selectFrom('commands').select(['status', 'status_url', 'detail', 'created_at', 'updated_at', 'deadline_at']).where('id', '=', id).executeTakeFirstOrThrow();
    } finally {
      await store.close();
    }
  }

  it('when SIGKILL lands after the automaker accepted a command and before its status URL was stored, then after a restart it is initiated again with the same Idempotency-Key and ends Success, the vehicle having acted once', async () => {
    const first = await serve();
    const token = await processToken(first.url);
    cloud.faults.initiateDelayMs = INITIATE_DELAY_MS;
    // The request's answer (PostgreSQL answers Pending before the commit; SQLite never answers: it dies waiting).
    const answer = fetch(`${first.url}/vehicle-command`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-signature': sign(PROCESS_APP.sign, VIN, 'diagnostics') },
      body: JSON.stringify({ vin: VIN, command: 'diagnostics' }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as { id: string; status: string } }), (error: Error) => error);
    // The command row is committed before the automaker is called: the lock is taken after that.
    await until('the automaker to receive the initiation', async () => cloud.received.length === 1, 10_000, 5);
    const id = cloud.received[0]!.id;
    const held = await holdCommandWrites(kind, database.url);
    try {
      if (kind === 'postgres') {
        expect(await answer).toEqual({ status: 200, body: expect.objectContaining({ id, status: 'Pending' }) });
        await until('the status URL\'s update to wait on the lock', async () => (await writesWaitingOnLock(database.url)) > 0, 10_000, 20);
      } else {
        // The automaker answers INITIATE_DELAY_MS after it received the request; the service then waits on the lock (5 s at most).
        await new Promise((r) => setTimeout(r, INITIATE_DELAY_MS + 500));
      }
      await first.stop('SIGKILL');
    } finally {
      await held.release();
    }
    cloud.faults.initiateDelayMs = 0;
    expect(cloud.accepted.map((a) => a.id)).toEqual([id]);
    // Inside the window: accepted by the automaker, no status URL to poll.
    expect(await stored(id)).toMatchObject({ status: 'Pending', status_url: null });

    const second = await serve();
    await until('the command to end', async () => (await stored(id)).status !== 'Pending', (TIMEOUT_S + 5) * 1000, 100);
    const row = await stored(id);
    expect(row.status, `${row.detail}\n${second.output()}`).toBe('Success');
    expect(JSON.parse(row.detail)).toHaveProperty('odometer');
    expect(Number(row.updated_at)).toBeLessThan(Number(row.deadline_at));
    // Initiated again no sooner than REINITIATE_AFTER_MS after it was created.
    expect(Number(row.updated_at) - Number(row.created_at)).toBeGreaterThanOrEqual(REINITIATE_AFTER_MS);
    expect(row.status_url).toBe(`${cloud.url}/commands/${id}`);
    // Sent twice with the same key, acted on once.
    expect(cloud.received.filter((r) => r.id === id).map((r) => r.key)).toEqual([id, id]);
    expect(cloud.accepted.filter((a) => a.id === id)).toHaveLength(1);
    expect(second.output()).toContain('a command left without its status URL was initiated again');
  }, scaled(90_000));
});
