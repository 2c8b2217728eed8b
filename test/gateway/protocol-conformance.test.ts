/**
 * Every tracker protocol module, held to the same contract (hono's shared adapter suite): its
 * folder has the common file set and its index exports the module that is listed; each part is
 * there and agrees with the domain's rules; and through its own simulated device, over a real
 * socket to the real gateway, a record is stored and, where it has a downlink, every command it
 * carries goes out as its text and comes back as an answer that ends the command Success.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMMOBILIZER, DEVICE_PROTOCOL_RULES, DEVICE_PROTOCOLS, IGNITION_COMMANDS } from '../../src/domain/trackers.js';
import type { SimulatedTracker } from '../../src/gateway/simulated-tracker.js';
import { TRACKER_PROTOCOLS, trackerProtocol } from '../../src/gateway/tracker-protocols.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { fixtureFleet, SECRETS, type FleetJson } from '../support/fixture-fleet.js';
import { metricValue } from '../support/metrics-text.js';
import { startTestService, type TestService } from '../support/test-service.js';

const GATEWAY = new URL('../../src/gateway/', import.meta.url);
const FILES = ['index.ts', 'decode.ts', 'acks.ts', 'listener.ts', 'simulated-client.ts', 'simulated-device.ts', 'inspect.ts'];
/** One vehicle per protocol, its device the protocol's example id. */
const vinOf = (i: number) => `9BWCNF${String(i).padStart(11, '0')}`;

/** The fixture fleet plus a `device` OEM taking every protocol's commands, and one vehicle of each protocol. */
function conformanceFleet(): FleetJson {
  const fleet = fixtureFleet();
  fleet.oems.push({ name: 'trackers', connector: 'device', datapoints: '*', commands: [...new Set(TRACKER_PROTOCOLS.flatMap((m) => m.rules.commands))] });
  fleet.companies[0]!.vehicles.push(...TRACKER_PROTOCOLS.map((m, i) => ({
    vin: vinOf(i), plate: `CNF${i}A00`, oem: 'trackers', model: 'Cargo', year: 2021, fuel_capacity: 60, device: { protocol: m.protocol, id: m.rules.id.example },
  })));
  return fleet;
}

describe('tracker protocol modules', () => {
  it('when the folders under src/gateway/ are read, then each that holds a listener or an index is a listed protocol with the common file set', () => {
    const folders = readdirSync(GATEWAY, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const protocolLike = folders.filter((name) => ['index.ts', 'listener.ts'].some((file) => existsSync(new URL(`${name}/${file}`, GATEWAY))));
    expect(protocolLike.sort()).toEqual(TRACKER_PROTOCOLS.map((m) => m.protocol).sort());
    for (const module of TRACKER_PROTOCOLS) {
      const wanted = module.downlink ? [...FILES, 'commands.ts'] : FILES;
      expect(wanted.filter((file) => !existsSync(new URL(`${module.protocol}/${file}`, GATEWAY))), `missing in src/gateway/${module.protocol}/`).toEqual([]);
    }
  });

  it('when the list is read, then it has one module per protocol of the domain, in its order', () => {
    expect(TRACKER_PROTOCOLS.map((m) => m.protocol)).toEqual(DEVICE_PROTOCOLS);
  });

  it.each(TRACKER_PROTOCOLS.map((m) => [m.protocol, m] as const))('when %s\'s index is imported, then it exports the module listed, with every part', async (protocol, module) => {
    const exported = Object.values(await import(/* @vite-ignore */ new URL(`${protocol}/index.ts`, GATEWAY).href) as Record<string, unknown>);
    expect(exported).toContain(module);
    expect(trackerProtocol(protocol)).toBe(module);
    expect(module.rules).toBe(DEVICE_PROTOCOL_RULES[protocol]);
    // A downlink exactly when the rules list commands, and a text for each of them.
    expect(module.downlink === null).toBe(module.rules.commands.length === 0);
    for (const command of module.rules.commands) expect(module.downlink?.text(command, DEFAULT_IMMOBILIZER), command).toEqual(expect.any(String));
    expect(module.downlink?.text('no_such_command', DEFAULT_IMMOBILIZER)).toBeUndefined();
    const { listener, simulated } = module;
    expect(Number.isInteger(listener.demoPort) && listener.demoPort > 0 && listener.demoPort < 65536).toBe(true);
    expect([typeof listener.tls, typeof listener.listen, typeof listener.endpoint, typeof listener.describe]).toEqual(['boolean', 'function', 'function', 'function']);
    const endpoint = listener.endpoint('127.0.0.1', listener.demoPort);
    expect(listener.describe({ port: listener.demoPort, tlsPort: undefined, endpoint })).toMatch(/\S/);
    // What a listener reports as its endpoint is what oem-sim's option for the protocol accepts.
    expect(simulated.option.problem(endpoint)).toBeUndefined();
    expect(simulated.option.problem('not an endpoint')).toMatch(simulated.option.flags.split(' ')[0]!);
    expect(typeof simulated.device).toBe('function');
    // `devices decode` reads through it: an empty input is a problem named, never an exception.
    expect(module.explain('', 0)).toEqual({ ok: false, problem: expect.stringMatching(/empty/) });
  });

  it('when the modules are compared, then no two share a demo port or an oem-sim option', () => {
    expect(new Set(TRACKER_PROTOCOLS.map((m) => m.listener.demoPort)).size).toBe(TRACKER_PROTOCOLS.length);
    expect(new Set(TRACKER_PROTOCOLS.map((m) => m.simulated.option.flags.split(' ')[0])).size).toBe(TRACKER_PROTOCOLS.length);
  });
});

describe.each(DATABASE_KINDS)('tracker protocol modules through their simulated devices on %s', (kind) => {
  let svc: TestService;
  let alpha: CommandClient;
  const devices: SimulatedTracker[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind, conformanceFleet(), { gateway: true });
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
  });
  afterAll(async () => {
    for (const device of devices) device.close();
    await svc?.close();
  });

  /** Creates (and confirms) a command, then runs the worker with the clock until it ends. */
  async function run(vin: string, command: string) {
    let created = await alpha.send({ vin, command });
    if (created.body.status === 'Confirmation') created = await alpha.send({ vin, command, code: created.body.code });
    expect(created.body.status).toBe('Pending');
    for (let s = 0; s < 20; s += 1) {
      if (s < 10) await new Promise((resolve) => setTimeout(resolve, 60)); // the gateway's dispatcher runs every 50 ms of real time
      svc.clock.advance(1000);
      await svc.worker.runOnce();
      const res = await alpha.status(created.body.id);
      if (res.body.status !== 'Pending') return res.body;
    }
    return (await alpha.status(created.body.id)).body;
  }

  it.each(TRACKER_PROTOCOLS.map((m, i) => [m.protocol, m, i] as const))('when %s\'s simulated device sends a record, then it is acknowledged and stored; each command it carries goes out as its text and ends Success', async (protocol, module, i) => {
    const vin = vinOf(i);
    const vehicle = new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 60 }, 5);
    const device = module.simulated.device(svc.gateway!.listening[protocol]!.endpoint, module.rules.id.example, () => vehicle);
    devices.push(device);
    const send = async () => {
      const at = svc.clock.now() - 1000;
      const batch = device.batch();
      batch.add(vehicle, at, false);
      expect(batch.size).toBe(1);
      expect(await batch.send()).toBe(1);
      return at;
    };
    const at = await send();
    const stored = await svc.store.db.selectFrom('telemetry').select(['ts', 'latitude', 'longitude', 'speed']).where('vin', '=', vin).execute();
    expect(stored).toEqual([{ ts: at, latitude: expect.closeTo(vehicle.position.lat, 3), longitude: expect.closeTo(vehicle.position.lon, 3), speed: 0 }]);

    for (const command of module.rules.commands) {
      await send(); // the interlock judges the connection's own records: a standing one, just now
      const answered = await metricValue(svc.metrics, 'tracker_commands_total', { protocol, outcome: 'answered' });
      expect(await run(vin, command)).toMatchObject({ status: 'Success' });
      const exchange = await svc.store.db.selectFrom('device_commands').select(['text', 'answer']).where('vin', '=', vin).where('command', '=', command).executeTakeFirstOrThrow();
      expect(exchange.text).toBe(module.downlink!.text(command, DEFAULT_IMMOBILIZER));
      expect(module.downlink!.ran(command, exchange.answer!)).toBe(true);
      expect(await metricValue(svc.metrics, 'tracker_commands_total', { protocol, outcome: 'answered' })).toBe(answered + 1);
      if (IGNITION_COMMANDS.has(command)) expect(vehicle.immobilized).toBe(command === 'disable_ignition');
    }
  });
});
