/**
 * The in-process simulated fleet follows the registry while it runs: a vehicle added to a running
 * service is simulated within one period, a changed profile is taken up, a removed sim OEM stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { createLogger } from '../../src/logger.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { startInProcessSimulation, type InProcessSimulation } from '../../src/sim/run-in-process.js';
import { ALPHA_VINS, fixtureFleet } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const NEW_VIN = '9BWZZZ377VT100009';

describe('the in-process simulation on a running service', () => {
  let svc: TestService;
  let simulation: InProcessSimulation;
  let ticking: NodeJS.Timeout;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    simulation = await startInProcessSimulation(svc.store.db, svc.keyring, svc.clock, {
      ingestUrl: svc.url, seed: 1, periodSeconds: 1, backfillMs: 0, glitchRate: 0,
    }, createLogger('silent'));
    await simulation.backfilled;
    // The test clock moves a second per 200 ms of real time, so periods pass quickly.
    ticking = setInterval(() => svc.clock.advance(1000), 200);
  });
  afterAll(async () => {
    clearInterval(ticking);
    await simulation?.stop();
    await svc?.close();
  });

  const recordsOf = async (vin: string) => Number((await svc.store.db.selectFrom('telemetry').select((eb) => eb.fn.countAll().as('n')).where('vin', '=', vin).executeTakeFirstOrThrow()).n);
  const waitFor = async (what: () => Promise<boolean>, ms = 8000) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await what()) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  };

  it('when a sim vehicle is added and another changes profile, then the running simulation takes both up', async () => {
    expect(simulation.simulator.vehicle(NEW_VIN)).toBeUndefined();
    const fleet = fixtureFleet();
    fleet.companies[0]!.vehicles.push({ vin: NEW_VIN, plate: 'NEW1A23', oem: 'simmotors', model: 'Up', year: 2024, fuel_capacity: 40, sim: { profile: 'moving', telemetry: true } });
    fleet.companies[0]!.vehicles[0]!.sim = { profile: 'privacy', telemetry: true };
    const valid = validateFleetFile(fleet);
    if (!valid.ok) throw new Error(JSON.stringify(valid.problems));
    await applyFleet(svc.store.db, valid.fleet, svc.keyring, svc.clock.now());

    expect(await waitFor(async () => (await recordsOf(NEW_VIN)) > 0)).toBe(true);
    expect(simulation.simulator.vehicle(NEW_VIN)?.profile).toBe('moving');
    expect(simulation.simulator.vehicle(ALPHA_VINS[0])?.profile).toBe('privacy');
  });
});
