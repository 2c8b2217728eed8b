/**
 * The simulated automaker's memory is bounded (a long-running `serve --sim` initiates commands
 * for ever): an idempotency key and its command are kept while a repeat or a poll can still come
 * (retention.ageMs after acceptance) and at most retention.commands of them, the oldest dropped
 * first; its logs of initiations keep their last retention.log entries. Through its real HTTP
 * port, with a clock the test moves.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOUD_RETENTION, SimulatedOemCloud, type CloudRetention } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { TestClock } from '../support/test-service.js';

const VIN = '9BWZZZ377VT004252';

describe('the simulated automaker\'s retention', () => {
  let cloud: SimulatedOemCloud | undefined;
  const clock = new TestClock();
  afterEach(async () => { await cloud?.close(); });

  async function start(retention: Partial<CloudRetention>) {
    const vehicle = new SimulatedVehicle({ vin: VIN, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1);
    cloud = new SimulatedOemCloud((vin) => (vin === VIN ? vehicle : undefined), clock, { latencyMs: [0, 0], seed: 1, apiKey: null, retention });
    await cloud.listen();
    return cloud;
  }
  /** Initiates `command` for `id` with its id as Idempotency-Key, as the HTTP connector does. */
  const initiate = (id: string, command = 'lock_doors') => fetch(`${cloud!.url}/commands`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': id }, body: JSON.stringify({ id, vin: VIN, command }),
  }).then((res) => res.status);
  const status = (id: string) => fetch(`${cloud!.url}/commands/${id}`).then((res) => res.status);
  /** Whether the cloud still knows `id`'s key: the key with another command is refused (422) only then. */
  const keyKept = async (id: string) => (await initiate(id, 'unlock_doors')) === 422;

  it('by default keeps a command a day and 10 minutes (the longest --command-timeout and a margin), 100,000 of them, and 1,000 log entries', () => {
    expect(CLOUD_RETENTION).toEqual({ ageMs: 86_400_000 + 600_000, commands: 100_000, log: 1000 });
  });

  it('when a command is older than its retention, then its key and its job are dropped once another command arrives; younger ones are kept', async () => {
    await start({ ageMs: 60_000 });
    const old = randomUUID();
    expect(await initiate(old)).toBe(202);
    clock.advance(30_000);
    const young = randomUUID();
    expect(await initiate(young)).toBe(202);
    clock.advance(30_001);
    // Within its retention a repeat is still answered as the first (acted once).
    expect(await initiate(young)).toBe(202);
    expect(await initiate(randomUUID())).toBe(202);
    expect(await status(old)).toBe(404);
    expect(await status(young)).toBe(200);
    expect(await keyKept(young)).toBe(true);
    expect(cloud!.accepted.filter((a) => a.id === young)).toHaveLength(1);
  });

  it('when more commands arrive than it keeps, then the oldest are dropped first', async () => {
    await start({ commands: 3 });
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) expect(await initiate(id)).toBe(202);
    expect(await status(ids[0]!)).toBe(404);
    expect(await Promise.all(ids.slice(1).map(status))).toEqual([200, 200, 200]);
    expect(await keyKept(ids[1]!)).toBe(true);
  });

  it('when more initiations arrive than its logs keep, then received and accepted hold the last ones', async () => {
    await start({ log: 5 });
    const ids = Array.from({ length: 8 }, () => randomUUID());
    for (const id of ids) expect(await initiate(id)).toBe(202);
    expect(await initiate(ids[7]!)).toBe(202);
    expect(cloud!.received.map((r) => r.id)).toEqual([...ids.slice(4), ids[7]]);
    expect(cloud!.accepted.map((r) => r.id)).toEqual(ids.slice(3));
  });
});
