/**
 * The simulator drives vehicles through the real tracker protocols over real sockets: a
 * Teltonika tracker (TCP, acks, Codec 12 answers) and a phone (OsmAnd JSON over HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetSimulator } from '../../src/sim/fleet-simulator.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { TRACKED, trackerFleet } from '../support/tracker-fleet.js';

describe('simulated trackers', () => {
  let svc: TestService;
  let simulator: FleetSimulator;
  let alpha: CommandClient;

  beforeAll(async () => {
    svc = await startTestService('sqlite', trackerFleet(), { gateway: true });
    const start = (vin: string) => ({ vin, powertrain: 'combustion' as const, profile: 'normal' as const, tankLiters: 60 });
    simulator = new FleetSimulator([
      { oem: 'trackers', ingestKey: '', from: T0 - 3_600_000, tracker: { protocol: 'teltonika', id: TRACKED.teltonika.imei }, start: start(TRACKED.teltonika.vin) },
      { oem: 'trackers', ingestKey: '', from: T0 - 3_600_000, tracker: { protocol: 'osmand', id: TRACKED.phone.id }, start: start(TRACKED.phone.vin) },
      { oem: 'trackers', ingestKey: '', from: T0 - 3_600_000, tracker: { protocol: 'teltonika', id: TRACKED.silent.imei }, start: { ...start(TRACKED.silent.vin), profile: 'offline' } },
    ], {
      ingestUrl: svc.url, periodSeconds: 10, glitchRate: 0, seed: 7,
      trackers: { teltonika: `127.0.0.1:${svc.gateway!.listening.teltonika!.port}`, osmand: `http://127.0.0.1:${svc.gateway!.listening.osmand!.port}/` },
    });
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
  });
  afterAll(async () => {
    simulator?.closeTrackers();
    await svc?.close();
  });

  it('when an hour is simulated, then both trackers\' records are acknowledged and stored, and the offline tracker never connects', async () => {
    const report = await simulator.runUntil(T0);
    expect(report).toEqual({ records: 722, accepted: 722, rejected: 0 });
    const count = async (vin: string) => (await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).length;
    expect([await count(TRACKED.teltonika.vin), await count(TRACKED.phone.vin), await count(TRACKED.silent.vin)]).toEqual([361, 361, 0]);
    const last = await svc.store.db.selectFrom('telemetry').selectAll().where('vin', '=', TRACKED.teltonika.vin).orderBy('ts', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(last).toMatchObject({ ts: T0, odometer: expect.any(Number), lv_battery_voltage: expect.any(Number), rpm: expect.any(Number), engine_cooling_temperature: expect.any(Number) });
  });

  it('when disable_ignition reaches the simulated Teltonika tracker, then it answers and the vehicle is immobilized', async () => {
    const vehicle = simulator.vehicle(TRACKED.teltonika.vin)!;
    vehicle.activity = 'parked';
    vehicle.speedKmh = 0;
    // The gateway judges the highest speed of the connection's last 2 minutes of records: stand that long.
    svc.clock.advance(130_000);
    await simulator.runUntil(T0 + 130_000);
    let created = await alpha.send({ vin: TRACKED.teltonika.vin, command: 'disable_ignition' });
    created = await alpha.send({ vin: TRACKED.teltonika.vin, command: 'disable_ignition', code: created.body.code });
    for (let i = 0; i < 40 && (await alpha.status(created.body.id)).body.status === 'Pending'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      svc.clock.advance(1000);
      await svc.worker.runOnce();
    }
    expect((await alpha.status(created.body.id)).body).toMatchObject({ status: 'Success', detail: { ignition: 'disabled' } });
    expect(vehicle.immobilized).toBe(true);
  });
});
