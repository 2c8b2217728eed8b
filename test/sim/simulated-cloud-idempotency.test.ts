/**
 * The automaker contract the service relies on after a crash (docs/commands.md, "The connector
 * interface"): an initiation repeated with the same `Idempotency-Key` gets the same status URL and
 * the vehicle acts once. The simulated automaker honours it, through the real HTTP connector.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { HttpConnector } from '../../src/oem/http-connector.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';

const VIN = '9BWZZZ377VT004252';

describe('the simulated automaker and Idempotency-Key', () => {
  let cloud: SimulatedOemCloud;
  let connector: HttpConnector;

  beforeAll(async () => {
    const vehicle = new SimulatedVehicle({ vin: VIN, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1);
    cloud = new SimulatedOemCloud((vin) => (vin === VIN ? vehicle : undefined), systemClock, { latencyMs: [0, 0], seed: 1, apiKey: null });
    connector = new HttpConnector({ baseUrl: await cloud.listen(), initiateTimeoutMs: 2000, pollTimeoutMs: 1000 });
  });
  afterAll(async () => { await cloud?.close(); });

  const post = (body: unknown, key?: string) => fetch(`${cloud.url}/commands`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) }, body: JSON.stringify(body),
  });

  it('when the connector initiates a command twice, then both carry its id as Idempotency-Key, get the same status URL, and the vehicle acts once', async () => {
    const commandId = randomUUID();
    const request = { commandId, vin: VIN, command: 'lock_doors' };
    const first = await connector.initiate(request);
    // A repeat is answered from what the first one started, whatever the cloud's faults now.
    cloud.faults.initiateErrorRate = 1;
    try {
      expect(await connector.initiate(request)).toEqual(first);
    } finally {
      cloud.faults.initiateErrorRate = 0;
    }
    expect(cloud.received.filter((r) => r.id === commandId).map((r) => r.key)).toEqual([commandId, commandId]);
    expect(cloud.accepted.filter((a) => a.id === commandId)).toHaveLength(1);
    expect(await connector.poll(first.statusUrl)).toMatchObject({ state: 'success', result: { doors: 'locked' } });
  });

  it('when a key is sent again with another command, then it is refused with 422 and nothing runs', async () => {
    const id = randomUUID();
    expect((await post({ id, vin: VIN, command: 'lock_doors' }, 'key-1')).status).toBe(202);
    const other = await post({ id, vin: VIN, command: 'unlock_doors' }, 'key-1');
    expect({ status: other.status, body: await other.json() }).toEqual({ status: 422, body: { error: 'invalid_input' } });
    expect(cloud.accepted.filter((a) => a.id === id).map((a) => a.command)).toEqual(['lock_doors']);
  });
});
