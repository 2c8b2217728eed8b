/**
 * Trackers in the registry (OPERATIONS.md "Trackers"): the fleet file's `device` block and an
 * OEM's `immobilizer`, their checks with and without the database, and the same through
 * `admin vehicle add|set --device`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFleetFile, type Fleet } from '../../src/domain/fleet-file.js';
import { DEVICE_PROTOCOL_RULES, DEVICE_PROTOCOLS, DEVICE_TEXT_EXAMPLES, deviceIdProblem, parseDeviceText } from '../../src/domain/trackers.js';
import { applyFleet, FleetRejected } from '../../src/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { BIN } from '../support/service-process.js';
import { TRACKED, trackerFleet } from '../support/tracker-fleet.js';

const keyring = keyringFromDocument(generateKeyringDocument(), 'test');
const problemsOf = (input: unknown) => {
  const v = validateFleetFile(input);
  return v.ok ? [] : v.problems;
};
const fleetOf = (input: unknown): Fleet => {
  const v = validateFleetFile(input);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.fleet;
};

describe('tracker entries of the fleet file', () => {
  it('when a device block or an immobilizer is malformed, then each problem is named by its path', () => {
    const fleet = trackerFleet();
    fleet.oems.push({ name: 'cloudy', connector: 'sim', datapoints: '*', commands: '*', immobilizer: { output: 1 } });
    fleet.oems[2] = { ...fleet.oems[2], immobilizer: { output: 9, cut: 'sideways' } };
    const vehicles = fleet.companies[0]!.vehicles;
    vehicles.at(-3)!.device = { protocol: 'h02', id: '1' };
    vehicles.at(-2)!.device = { protocol: 'teltonika', id: '12345' };
    vehicles.at(-1)!.device = { protocol: 'osmand', id: TRACKED.teltonika.imei };
    vehicles.push({ vin: '9BWTRK00000000009', plate: 'X', oem: 'trackers', model: 'M', year: 2020, device: { protocol: 'osmand', id: TRACKED.teltonika.imei } });
    const at = (i: number) => `companies[0].vehicles[${vehicles.length + i}]`;
    expect(problemsOf(fleet)).toEqual([
      { path: 'oems[2].immobilizer.output', message: 'must be an integer from 1 to 4' },
      { path: 'oems[2].immobilizer.cut', message: 'must be one of on, off' },
      { path: 'oems[3].immobilizer', message: 'is only for the device connector' },
      { path: `${at(-4)}.device.protocol`, message: 'must be one of teltonika, osmand, gt06' },
      { path: `${at(-3)}.device.id`, message: '"12345" is not a teltonika device id (a 15-digit IMEI)' },
      { path: `${at(-1)}.device.id`, message: `duplicate device id "${TRACKED.teltonika.imei}" (first at ${at(-2)}.device.id)` },
    ]);
  });

  it('when --device is read, then protocol and id are checked', () => {
    expect(parseDeviceText('teltonika:356307042441013')).toEqual({ protocol: 'teltonika', id: '356307042441013' });
    expect(parseDeviceText('osmand:phone-7')).toEqual({ protocol: 'osmand', id: 'phone-7' });
    expect(parseDeviceText('h02:1')).toEqual({ problem: '--device must be <protocol>:<id> with protocol teltonika or osmand or gt06' });
    expect(parseDeviceText('teltonika')).toEqual({ problem: '--device must be teltonika:<id>' });
    expect(parseDeviceText('osmand:a b')).toEqual({ problem: '"a b" is not a osmand device id (1-64 letters, digits, ".", ":", "_" or "-")' });
  });

  it('when each protocol\'s example device id is checked, then it follows that protocol\'s rule, and the help text lists one of each', () => {
    for (const protocol of DEVICE_PROTOCOLS) expect(deviceIdProblem(protocol, DEVICE_PROTOCOL_RULES[protocol].id.example)).toBeUndefined();
    expect(DEVICE_TEXT_EXAMPLES).toBe('teltonika:356307042441013 or osmand:48241179 or gt06:864717003283581');
  });
});

describe.each(DATABASE_KINDS)('tracker entries applied on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 3 });
    await migrateToLatest(store);
    await applyFleet(store.db, fleetOf(trackerFleet()), keyring, 1000);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when a fleet with trackers is applied, then each vehicle keeps its device, and applying it again changes nothing', async () => {
    const row = await store.db.selectFrom('vehicles').select(['device_protocol', 'device_id']).where('vin', '=', TRACKED.teltonika.vin).executeTakeFirst();
    expect(row).toEqual({ device_protocol: 'teltonika', device_id: TRACKED.teltonika.imei });
    expect((await applyFleet(store.db, fleetOf(trackerFleet()), keyring, 2000)).changed).toBe(false);
  });

  it('when a device is on a cloud OEM\'s vehicle, missing on a device OEM\'s, or already another vehicle\'s, then nothing is written and each is named', async () => {
    const fleet = trackerFleet();
    const alpha = fleet.companies[0]!;
    alpha.vehicles = [
      { vin: '9BWTRK00000000011', plate: 'A', oem: 'simmotors', model: 'M', year: 2020, device: { protocol: 'teltonika', id: '356307042441099' } },
      { vin: '9BWTRK00000000012', plate: 'B', oem: 'trackers', model: 'M', year: 2020 },
      { vin: '9BWTRK00000000013', plate: 'C', oem: 'trackers', model: 'M', year: 2020, device: { protocol: 'teltonika', id: TRACKED.teltonika.imei } },
    ];
    fleet.companies = [alpha];
    const error = await applyFleet(store.db, fleetOf(fleet), keyring, 3000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetRejected);
    expect((error as FleetRejected).problems).toEqual([
      { path: 'companies[0].vehicles[0].device', message: 'OEM "simmotors" uses the sim connector; only vehicles of a device OEM have a tracker' },
      { path: 'companies[0].vehicles[1].device', message: 'is required: OEM "trackers" reaches its vehicles through their trackers' },
      { path: 'companies[0].vehicles[2].device.id', message: `"${TRACKED.teltonika.imei}" is the tracker of vehicle ${TRACKED.teltonika.vin}` },
    ]);
  });
});

describe('admin vehicle add|set --device', () => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-trackers-'));
  const database = join(dir, 'cli.db');
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const cli = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args, '--database', database], { env });
  const fails = (...args: string[]) => cli(...args).then((r) => { throw new Error(`expected failure, got ${r.stdout}`); }, (e: { stderr: string }) => e.stderr);

  beforeAll(async () => {
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(trackerFleet()));
    await cli('migrate');
    await cli('admin', 'apply', file);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a vehicle is added with --device and listed, then it shows its tracker; a bad or taken id is refused and changes nothing', async () => {
    const add = ['admin', 'vehicle', 'add', '--company', 'alpha', '--vin', '9BWTRK00000000021', '--plate', 'NEW1A11', '--oem', 'trackers', '--model', 'Daily', '--year', '2022'];
    expect(await fails(...add, '--device', 'teltonika:12')).toBe('telematics: "12" is not a teltonika device id (a 15-digit IMEI)\n');
    expect(await fails(...add, '--device', `teltonika:${TRACKED.teltonika.imei}`)).toBe(`telematics: id: "${TRACKED.teltonika.imei}" is the tracker of vehicle ${TRACKED.teltonika.vin}\n`);
    expect(await fails(...add)).toBe('telematics: device: is required: OEM "trackers" reaches its vehicles through their trackers\n');
    await cli(...add, '--device', 'teltonika:356307042449999');
    const listed = JSON.parse((await cli('admin', 'vehicle', 'list', '--json', '--company', 'alpha')).stdout) as { vin: string; device: string | null }[];
    expect(listed.find((v) => v.vin === '9BWTRK00000000021')?.device).toBe('teltonika:356307042449999');
    expect(listed.find((v) => v.vin === TRACKED.phone.vin)?.device).toBe(`osmand:${TRACKED.phone.id}`);
    await cli('admin', 'vehicle', 'set', '--vin', '9BWTRK00000000021', '--device', 'teltonika:356307042448888');
    expect(await fails('admin', 'vehicle', 'set', '--vin', '9BWTRK00000000021', '--device', 'none')).toBe('telematics: device: is required: OEM "trackers" reaches its vehicles through their trackers\n');
  });
});
