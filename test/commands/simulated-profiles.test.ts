import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import type { FleetSimulator } from '../../src/sim/fleet-simulator.js';

const PROFILED = {
  normal: '9BWPRF00000000001', moving: '9BWPRF00000000002', offline: '9BWPRF00000000003', privacy: '9BWPRF00000000004', flaky: '9BWPRF00000000005',
} as const;

describe.each(DATABASE_KINDS)('simulated automaker profiles on %s', (kind) => {
  let svc: TestService;
  let alpha: CommandClient;
  let simulator: FleetSimulator;

  beforeAll(async () => {
    const fleet = fixtureFleet();
    for (const [profile, vin] of Object.entries(PROFILED)) {
      fleet.companies[0]!.vehicles.push({ vin, plate: `PRF${vin.slice(-1)}`, oem: 'simmotors', model: 'Sim', year: 2024, fuel_capacity: 50, sim: { profile, telemetry: false } });
    }
    svc = await startTestService(kind, fleet);
    ({ simulator } = await svc.useSimulatedCloud());
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
  });
  afterAll(async () => { await svc?.close(); });

  async function run(vin: string, command: string, maxSeconds = 30) {
    let created = await alpha.send({ vin, command });
    if (created.body.status === 'Confirmation') created = await alpha.send({ vin, command, code: created.body.code });
    expect(created.body.status).toBe('Pending');
    for (let s = 0; s < maxSeconds; s += 1) {
      svc.clock.advance(1000);
      await svc.worker.runOnce();
      const res = await alpha.status(created.body.id);
      if (res.body.status !== 'Pending') return res.body;
    }
    return (await alpha.status(created.body.id)).body;
  }

  it('normal: disable_ignition succeeds on a parked vehicle and really immobilizes it; enable_ignition releases it', async () => {
    expect(await run(PROFILED.normal, 'disable_ignition')).toMatchObject({ status: 'Success', detail: { ignition: 'disabled' } });
    expect(simulator.vehicle(PROFILED.normal)!.immobilized).toBe(true);
    expect(await run(PROFILED.normal, 'enable_ignition')).toMatchObject({ status: 'Success', detail: { ignition: 'enabled' } });
    expect(simulator.vehicle(PROFILED.normal)!.immobilized).toBe(false);
  });

  it('moving: ignition commands are blocked', async () => {
    expect(await run(PROFILED.moving, 'disable_ignition')).toMatchObject({ status: 'Error', detail: 'Commands blocked.' });
  });

  it('privacy: a location-bearing result is restricted, other commands work', async () => {
    expect(await run(PROFILED.privacy, 'locate')).toMatchObject({ status: 'Error', detail: 'Commands restrictions.' });
    expect(await run(PROFILED.normal, 'locate')).toMatchObject({ status: 'Success', detail: { latitude: expect.any(Number), longitude: expect.any(Number) } });
    expect((await run(PROFILED.privacy, 'diagnostics')).status).toBe('Success');
  });

  it('offline: the vehicle never answers and the command ends as Command timeout. at its deadline', async () => {
    const body = await run(PROFILED.offline, 'diagnostics', 125);
    expect(body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
  });

  it('flaky: some commands fail with Communication failures., others succeed', async () => {
    const outcomes = [];
    for (let i = 0; i < 8; i += 1) outcomes.push(await run(PROFILED.flaky, 'lock_doors'));
    expect(outcomes.some((o) => o.status === 'Error' && o.detail === 'Communication failures.')).toBe(true);
    expect(outcomes.some((o) => o.status === 'Success')).toBe(true);
  });

  it('combustion vehicles do not charge: Unsupported commands.', async () => {
    expect(await run(PROFILED.normal, 'start_charging')).toMatchObject({ status: 'Error', detail: 'Unsupported commands.' });
  });
});
