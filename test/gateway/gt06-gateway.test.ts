/**
 * GT06/Concox trackers end to end over real sockets: the real gateway listener, the real intake
 * and database, and a tracker speaking the device side of the protocol (login, heartbeats,
 * locations, alarms, time requests, command answers), with packets captured from real devices
 * (Traccar's decoder tests) where they fit. What a tracker sends is read back through
 * POST /vehicle-data.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAlarm, encodeCommandAnswer, encodeHeartbeat, encodeLocation, encodeLogin, encodeTimeRequest, type DeviceLocation } from '../../src/gateway/gt06/encode.js';
import { wrapFrame } from '../../src/gateway/gt06/frame-envelope.js';
import { Gt06Framer, type Gt06Frame } from '../../src/gateway/gt06/framing.js';
import { PROTOCOL } from '../../src/gateway/gt06/messages.js';
import { Gt06TrackerClient } from '../../src/gateway/gt06/simulated-client.js';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { metricValue } from '../support/metrics-text.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { trackerFleet } from '../support/tracker-fleet.js';
import { TRACCAR } from './gt06/traccar-vectors.js';

/** The IMEI of Traccar's captured short login (`loginShort`), registered here. */
const IMEI = '864717003283581';
const VIN = '9BWGT060000000001';
const OTHER = { vin: '9BWGT060000000002', imei: '359632104567893' };
const hex = (h: string) => Buffer.from(h, 'hex');
const HEARTBEAT = encodeHeartbeat({ acc: true, relayCut: false, voltageLevel: 6, gsmSignal: 4 }, 0x0201);
const HEARTBEAT_ACK = '787805130201da410d0a';

function gt06Fleet() {
  const fleet = trackerFleet();
  fleet.companies[0]!.vehicles.push(
    { vin: VIN, plate: 'GTO1A11', oem: 'trackers', model: 'Ranger', year: 2022, fuel_capacity: 80, device: { protocol: 'gt06', id: IMEI } },
    { vin: OTHER.vin, plate: 'GTO2B22', oem: 'trackers', model: 'Ranger', year: 2022, device: { protocol: 'gt06', id: OTHER.imei } },
  );
  return fleet;
}

const fix = (timeMs: number, fields: Partial<DeviceLocation> = {}): DeviceLocation => ({
  timeMs, latitude: -23.5505, longitude: -46.6333, speedKmh: 0, course: 90, satellites: 9, fixed: true, acc: false, ...fields,
});

/** Writes `steps` on a raw connection (`gapMs` apart) and resolves with the frames that came back once the gateway closed it or `waitMs` passed. */
function rawSession(port: number, steps: readonly Buffer[], options: { gapMs?: number; waitMs?: number } = {}): Promise<{ frames: Gt06Frame[]; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const framer = new Gt06Framer();
    const frames: Gt06Frame[] = [];
    let closedByServer = true;
    const socket = connect({ host: '127.0.0.1', port }, async () => {
      for (const step of steps) {
        if (socket.destroyed) break;
        socket.write(step);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
      setTimeout(() => { closedByServer = false; socket.destroy(); }, options.waitMs ?? 400);
    });
    socket.on('data', (chunk: Buffer) => { for (const out of framer.push(chunk)) if (out.kind === 'frame') frames.push(out); });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ frames, closedByServer }));
  });
}

const hexOf = (frames: readonly Gt06Frame[]) => frames.map((f) => f.bytes.toString('hex'));

describe.each(DATABASE_KINDS)('GT06 gateway on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  let port: number;
  const clients: Gt06TrackerClient[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind, gt06Fleet(), { gateway: { loginTimeoutMs: 1000 } });
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    port = svc.gateway!.listening.gt06!.port;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await svc?.close();
  });

  const tracker = async (imei = IMEI, onCommand?: (text: string) => string) => {
    const c = new Gt06TrackerClient({ host: '127.0.0.1', port, imei, responseTimeoutMs: 5000, ...(onCommand ? { onCommand } : {}) });
    clients.push(c);
    await c.connect();
    return c;
  };
  const vehicleData = async (vin: string, start: number, end: number) => {
    const res = await svc.request('POST', '/vehicle-data', {
      json: { vins: [vin], datapoints: ['date_time', 'latitude', 'longitude', 'speed', 'heading', 'odometer', 'event'], start_date: new Date(start - 3 * 3_600_000).toISOString().slice(0, 19), end_date: new Date(end - 3 * 3_600_000).toISOString().slice(0, 19) },
      headers: auth,
    });
    if (res.status !== 200) throw new Error(`POST /vehicle-data: ${res.status} ${res.text}`);
    return res.body[vin] as Record<string, unknown>[];
  };
  /**
   * A raw connection logged in as `imei` that keeps the command frames it receives and answers
   * none (the test answers by hand), with its session in the gateway (not an earlier connection's,
   * still closing).
   */
  const handAnsweringDevice = async (imei: string) => {
    const framer = new Gt06Framer();
    const commands: Gt06Frame[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('data', (chunk: Buffer) => { for (const out of framer.push(chunk)) if (out.kind === 'frame' && out.protocol === PROTOCOL.command) commands.push(out); });
    await new Promise((resolve) => socket.once('connect', resolve));
    const earlier = svc.gateway!.sessions.get(imei);
    socket.write(encodeLogin(imei, 1));
    await expect.poll(() => svc.gateway!.sessions.get(imei) !== undefined && svc.gateway!.sessions.get(imei) !== earlier).toBe(true);
    return { socket, commands, session: svc.gateway!.sessions.get(imei)! };
  };
  const storedCount = async (vin: string) => (await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).length;
  const metric = (name: string, labels: Record<string, string>) => metricValue(svc.metrics, name, { protocol: 'gt06', ...labels });

  it('when a registered device logs in with a captured login packet, then the answer is byte-exact and echoes its serial; a heartbeat is answered too', async () => {
    const { frames } = await rawSession(port, [hex(TRACCAR.loginShort), HEARTBEAT]);
    expect(hexOf(frames)).toEqual(['78780501000955940d0a', HEARTBEAT_ACK]);
  });

  it('when the longer login (type identity and time zone) comes, then it is answered the same way', async () => {
    // Traccar's capture (GMT-3, west) is of an IMEI not registered here: nothing comes back for it.
    expect((await rawSession(port, [hex(TRACCAR.loginLongWest)])).frames).toEqual([]);
    const captured = hex(TRACCAR.loginLongWest);
    const longLogin = wrapFrame(PROTOCOL.login, Buffer.concat([Buffer.from(`0${IMEI}`, 'hex'), captured.subarray(12, 16)]), 0x0102);
    const { frames } = await rawSession(port, [longLogin, HEARTBEAT]);
    expect(frames.map((f) => [f.protocol, f.serial])).toEqual([[PROTOCOL.login, 0x0102], [PROTOCOL.heartbeat, 0x0201]]);
  });

  it('when an unknown IMEI logs in, then it gets no answer, is disconnected, counted and logged', async () => {
    const before = await metric('tracker_unknown_ids_total', { transport: 'tcp' });
    const { frames, closedByServer } = await rawSession(port, [hex(TRACCAR.loginShort2)], { waitMs: 2000 });
    expect(frames).toEqual([]);
    expect(closedByServer).toBe(true);
    expect(await metric('tracker_unknown_ids_total', { transport: 'tcp' })).toBe(before + 1);
    expect(svc.logs.some((l) => l.includes('"deviceId":"123456789012345"') && l.includes('tracker refused'))).toBe(true);
  });

  it('when frames come before the login, then they are dropped unanswered and counted, and a login after them still works', async () => {
    const before = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'before_login' });
    const location = encodeLocation(fix(T0 - 90_000), 3);
    const { frames } = await rawSession(port, [HEARTBEAT, location, encodeLogin(IMEI, 4)]);
    expect(frames.map((f) => f.protocol)).toEqual([PROTOCOL.login]);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'before_login' })).toBe(before + 2);
    const stored = await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', VIN).where('ts', '=', T0 - 90_000).execute();
    expect(stored).toEqual([]);
  });

  it('when a connection never logs in, then the login deadline closes it', async () => {
    const started = Date.now();
    const { closedByServer } = await rawSession(port, [HEARTBEAT], { waitMs: 3000 });
    expect(closedByServer).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900); // the login timeout of this service is 1 s
  });

  it('when a frame has a bad CRC, junk comes between frames, or a length is oversize, then each is dropped and counted and the connection carries on', async () => {
    const crc = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'crc' });
    const junk = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'junk' });
    const badCrc = Buffer.from(HEARTBEAT);
    badCrc[badCrc.length - 3]! ^= 0xff;
    const oversize = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'oversize' });
    const { frames, closedByServer } = await rawSession(port, [encodeLogin(IMEI, 1), badCrc, hex('00ff1234'), hex(TRACCAR.gpsLbsBadCrc), hex('7979ffff13'), HEARTBEAT]);
    expect(closedByServer).toBe(false);
    expect(hexOf(frames).slice(1)).toEqual([HEARTBEAT_ACK]);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'crc' })).toBe(crc + 2);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'junk' })).toBeGreaterThan(junk);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'oversize' })).toBe(oversize + 1);
  });

  it('when frames are split across reads, joined in one, or a zero-length frame comes, then each whole frame is answered once', async () => {
    const login = encodeLogin(IMEI, 7);
    const pieces = [login.subarray(0, 3), login.subarray(3, 11), Buffer.concat([login.subarray(11), HEARTBEAT.subarray(0, 5)]), Buffer.concat([HEARTBEAT.subarray(5), HEARTBEAT, hex('78780000'), HEARTBEAT])];
    const { frames, closedByServer } = await rawSession(port, pieces, { gapMs: 30 });
    expect(closedByServer).toBe(false);
    expect(hexOf(frames)).toEqual(['787805010007bcea0d0a', HEARTBEAT_ACK, HEARTBEAT_ACK, HEARTBEAT_ACK]);
  });

  it('when locations come, then they are stored with the D11 mapping: position with a fix only, mileage as odometer, ACC changes as events', async () => {
    const t = await tracker();
    const at = T0 - 60_000;
    expect(await t.send([
      fix(at, { speedKmh: 0, course: 45, mileage: 123_456, acc: false }),
      fix(at + 10_000, { latitude: -23.551, longitude: -46.634, speedKmh: 32, course: 180, mileage: 123_460, acc: true }),
      fix(at + 20_000, { fixed: false, latitude: -23.6, longitude: -46.7, mileage: 123_470, acc: true }),
    ])).toBe(3);
    const records = await vehicleData(VIN, at, at + 20_000);
    expect(records).toEqual([
      { date_time: '2026-11-20 08:59:00', latitude: -23.5505, longitude: -46.6333, speed: 0, heading: 45, odometer: 123.456, event: null },
      { date_time: '2026-11-20 08:59:10', latitude: -23.551, longitude: -46.634, speed: 32, heading: 180, odometer: 123.46, event: 'ignition on' },
      { date_time: '2026-11-20 08:59:20', latitude: null, longitude: null, speed: null, heading: null, odometer: 123.47, event: null },
    ]);
    expect(await metric('tracker_records_total', { transport: 'tcp' })).toBeGreaterThanOrEqual(3);
    t.close();
  });

  it('when an alarm comes, then it is answered with its own protocol and serial only after it is stored, as `alarm <kind>`', async () => {
    const at = T0 - 55_000;
    const alarm = encodeAlarm(fix(at, { speedKmh: 12 }), 0x01, { acc: true, relayCut: false, voltageLevel: 5, gsmSignal: 3 }, 0x0042);
    const { frames } = await rawSession(port, [encodeLogin(IMEI, 1), alarm]);
    expect(frames.map((f) => [f.protocol, f.serial, f.content.length])).toEqual([[PROTOCOL.login, 1, 0], [PROTOCOL.alarm, 0x42, 0]]);
    expect(await vehicleData(VIN, at, at)).toEqual([expect.objectContaining({ latitude: -23.5505, speed: 12, event: 'alarm sos' })]);
  });

  it('when the device asks for the time, then it is answered with the service clock\'s UTC time and its serial', async () => {
    const { frames } = await rawSession(port, [encodeLogin(IMEI, 1), encodeTimeRequest(0x0a0b)]);
    const answer = frames[1]!;
    expect([answer.protocol, answer.serial]).toEqual([PROTOCOL.timeRequest, 0x0a0b]);
    const now = new Date(svc.clock.now());
    expect([...answer.content]).toEqual([now.getUTCFullYear() - 2000, now.getUTCMonth() + 1, now.getUTCDate(), now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds()]);
  });

  it('when two commands are in flight and the device answers them in the other order, then each answer ends exactly its own command', async () => {
    // A device that holds its answers: the test answers by hand, second command first.
    const { socket, commands, session } = await handAnsweringDevice(OTHER.imei);
    const first = session.sendCommand('Relay,1#', 5000);
    const second = session.sendCommand('STATUS#', 5000);
    await expect.poll(() => commands.length).toBe(2);
    const flagOf = (frame: Gt06Frame) => frame.content.readUInt32BE(1);
    const textOf = (frame: Gt06Frame) => frame.content.toString('latin1', 5, 1 + frame.content[0]!);
    expect(commands.map(textOf)).toEqual(['Relay,1#', 'STATUS#']);
    expect(flagOf(commands[0]!)).not.toBe(flagOf(commands[1]!));
    const unmatched = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'unmatched' });
    socket.write(Buffer.concat([
      encodeCommandAnswer(0, 'Cut off the fuel supply: Success!', 2), // flag 0: another server's, matches nothing
      encodeCommandAnswer(flagOf(commands[1]!), 'Battery:6,GPRS:Link Up', 3),
      encodeCommandAnswer(flagOf(commands[0]!), 'Cut off the fuel supply: Success!', 4),
    ]));
    await expect(second).resolves.toBe('Battery:6,GPRS:Link Up');
    await expect(first).resolves.toBe('Cut off the fuel supply: Success!');
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'unmatched' })).toBe(unmatched + 1);
    socket.destroy();
  });

  it('when a command gets no answer by its deadline, then it is given up, the connection stays, and a late answer is counted unmatched', async () => {
    const { socket, commands, session } = await handAnsweringDevice(OTHER.imei);
    await expect(session.sendCommand('STATUS#', 200)).rejects.toThrow('no answer before the deadline');
    const unmatched = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'unmatched' });
    socket.write(encodeCommandAnswer(commands[0]!.content.readUInt32BE(1), 'Battery:6', 2));
    await expect.poll(() => metric('tracker_packets_total', { transport: 'tcp', outcome: 'unmatched' })).toBe(unmatched + 1);
    expect(svc.gateway!.sessions.get(OTHER.imei)).toBe(session);
    socket.destroy();
  });

  it('when a connected tracker is given to another vehicle in the registry, then its next location is not stored and the connection is closed', async () => {
    const t = await tracker(OTHER.imei);
    expect(await t.send([fix(T0 - 31_000)])).toBe(1);
    const before = await storedCount(OTHER.vin);
    const fleet = gt06Fleet();
    fleet.companies[0]!.vehicles.find((v) => v.vin === OTHER.vin)!.device = { protocol: 'gt06', id: '359632104567000' };
    const validation = validateFleetFile(fleet);
    if (!validation.ok) throw new Error(JSON.stringify(validation.problems));
    await applyFleet(svc.store.db, validation.fleet, svc.keyring, svc.clock.now(), { replaceSecrets: true });
    const at = T0 - 30_000;
    await expect(t.send([fix(at)])).rejects.toThrow();
    await t.closedByServer();
    expect(await storedCount(OTHER.vin)).toBe(before);
  });
});
