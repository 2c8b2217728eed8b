/**
 * Teltonika trackers end to end over real sockets: the real gateway listeners, the real intake
 * and database, and a tracker speaking the device side of the protocol (login, AVL packets,
 * acks, Codec 12 answers). What a tracker sends is read back through POST /vehicle-data.
 */
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLogin, encodeTcpPacket } from '../../src/gateway/teltonika/encode.js';
import { CODEC_8, CODEC_8E, CODEC_16 } from '../../src/gateway/teltonika/avl-record.js';
import { encodeUdpDatagram } from '../../src/gateway/teltonika/udp-datagram.js';
import { wrapTcpEnvelope } from '../../src/gateway/teltonika/tcp-envelope.js';
import { encodeCodec12 } from '../../src/gateway/teltonika/codec12.js';
import { TeltonikaTrackerClient } from '../../src/gateway/teltonika/simulated-client.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { metricValue } from '../support/metrics-text.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { avlRecord, TRACKED, trackerFleet } from '../support/tracker-fleet.js';

const { vin, imei } = TRACKED.teltonika;

/** Opens a raw connection, writes `bytes` (in steps, `gapMs` apart), and resolves with what came back and how long until the gateway closed it. */
function rawSession(port: number, steps: readonly Buffer[], gapMs = 0): Promise<{ received: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const received: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port }, async () => {
      for (const step of steps) {
        if (socket.destroyed) break;
        socket.write(step);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    socket.on('data', (b: Buffer) => received.push(b));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ received: Buffer.concat(received).toString('hex'), closedAfterMs: Date.now() - started }));
  });
}

describe.each(DATABASE_KINDS)('Teltonika gateway on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  const trackers: TeltonikaTrackerClient[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: { loginTimeoutMs: 300 } });
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
  });
  afterAll(async () => {
    for (const t of trackers) t.close();
    await svc?.close();
  });

  const tracker = async (id: string = imei, onCommand?: (text: string) => string) => {
    const t = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei: id, responseTimeoutMs: 5000, ...(onCommand ? { onCommand } : {}) });
    trackers.push(t);
    await t.connect();
    return t;
  };
  const vehicleData = async (v: string, start: number, end: number) => {
    const res = await svc.request('POST', '/vehicle-data', {
      json: { vins: [v], datapoints: ['date_time', 'latitude', 'longitude', 'speed', 'heading', 'odometer', 'lv_battery_voltage', 'fuel_level', 'event'], start_date: new Date(start - 3 * 3_600_000).toISOString().slice(0, 19), end_date: new Date(end - 3 * 3_600_000).toISOString().slice(0, 19) },
      headers: auth,
    });
    if (res.status !== 200) throw new Error(`POST /vehicle-data: ${res.status} ${res.text}`);
    return res.body[v] as Record<string, unknown>[];
  };
  const storedCount = async (v: string) => (await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', v).execute()).length;
  const metric = (name: string, labels: Record<string, string>) => metricValue(svc.metrics, name, labels);

  it('when a registered tracker logs in and sends a Codec 8 Extended packet, then it gets the record count back and the data reads back with the D11 mapping', async () => {
    const t = await tracker();
    const at = T0 - 60_000;
    const count = await t.send([
      avlRecord(at, { lat: -23.5505, lon: -46.6333, speed: 0, angle: 45, odometerM: 123_456, voltageMv: 12_650, fuelPct: 71, ignition: false }),
      avlRecord(at + 10_000, { lat: -23.551, lon: -46.634, speed: 2, angle: 180, odometerM: 123_460, ignition: true, eventIoId: 239 }),
    ]);
    expect(count).toBe(2);
    const records = await vehicleData(vin, at, at + 10_000);
    expect(records).toEqual([
      expect.objectContaining({ date_time: '2026-11-20 08:59:00', latitude: -23.5505, longitude: -46.6333, speed: 0, heading: 45, odometer: 123.456, lv_battery_voltage: 12.65, fuel_level: 71, event: null }),
      expect.objectContaining({ date_time: '2026-11-20 08:59:10', speed: 2, heading: 180, odometer: 123.46, event: 'ignition on' }),
    ]);
    const events = await svc.store.db.selectFrom('events').select(['type', 'vin']).where('vin', '=', vin).execute();
    expect(events).toEqual([{ type: 'vehicle.ignition_on', vin }]);
    t.close();
  });

  it('when a record has no GPS fix, then its IO values are kept and its position is null', async () => {
    const t = await tracker();
    const at = T0 - 45_000;
    expect(await t.send([avlRecord(at, { satellites: 0, lat: -23.5, lon: -46.6, speed: 0, voltageMv: 12_100 })], CODEC_8)).toBe(1);
    expect((await vehicleData(vin, at, at))[0]).toMatchObject({ latitude: null, longitude: null, speed: null, heading: null, lv_battery_voltage: 12.1 });
    t.close();
  });

  it('when records carry GNSS HDOP, only a satellite count, or no fix, then each is stored with its accuracy: HDOP × 5 m, by satellites, none', async () => {
    const t = await tracker();
    const at = T0 - 44_000;
    expect(await t.send([
      avlRecord(at, { hdopTenths: 14 }), avlRecord(at + 1000, { satellites: 5 }), avlRecord(at + 2000, { satellites: 0, hdopTenths: 14 }),
    ], CODEC_8E)).toBe(3);
    const stored = await svc.store.db.selectFrom('telemetry').select(['ts', 'position_accuracy_m']).where('vin', '=', vin)
      .where('ts', '>=', at).where('ts', '<=', at + 2000).orderBy('ts').execute();
    expect(stored).toEqual([{ ts: at, position_accuracy_m: 7 }, { ts: at + 1000, position_accuracy_m: 25 }, { ts: at + 2000, position_accuracy_m: null }]);
    t.close();
  });

  it('when a packet is resent, in any record order and codec, then it is acknowledged again and stored once', async () => {
    const t = await tracker();
    const at = T0 - 40_000;
    const records = [avlRecord(at + 2000), avlRecord(at), avlRecord(at + 1000)];
    const before = await storedCount(vin);
    expect(await t.send(records, CODEC_16)).toBe(3);
    expect(await t.send(records, CODEC_16)).toBe(3);
    expect(await t.send([...records].reverse(), CODEC_8E)).toBe(3);
    expect(await storedCount(vin)).toBe(before + 3);
    t.close();
  });

  it('when bytes arrive one at a time with keep-alive bytes between frames, then the packet is still read and acknowledged', async () => {
    const socket = connect({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port });
    const received: Buffer[] = [];
    socket.on('data', (b: Buffer) => received.push(b));
    await new Promise((resolve) => socket.once('connect', resolve));
    const stream = Buffer.concat([Buffer.from([0xff]), encodeLogin(imei), Buffer.from([0xff]), encodeTcpPacket(CODEC_8E, [avlRecord(T0 - 30_000), avlRecord(T0 - 29_000)])]);
    for (const byte of stream) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await expect.poll(() => Buffer.concat(received).toString('hex'), { timeout: 5000 }).toBe('0100000002');
    socket.destroy();
  });

  it('when a packet has a bad CRC or an unknown codec, then it gets no ack and is counted, and the connection carries on', async () => {
    const t = await tracker();
    const good = encodeTcpPacket(CODEC_8E, [avlRecord(T0 - 20_000)]);
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 1] = badCrc.at(-1)! ^ 0xff;
    const crcBefore = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'crc' });
    expect(await t.sendExpectingNoAck(badCrc, 400)).toBe(true);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'crc' })).toBe(crcBefore + 1);
    // Codec 13 (device → server serial data, here with a correct CRC) is not an AVL codec: no ack.
    const codecBefore = await metric('tracker_packets_total', { transport: 'tcp', outcome: 'codec' });
    expect(await t.sendExpectingNoAck(wrapTcpEnvelope(Buffer.from('0d01060000000968656c6c6f2077726c01', 'hex')), 400)).toBe(true);
    expect(await metric('tracker_packets_total', { transport: 'tcp', outcome: 'codec' })).toBe(codecBefore + 1);
    // A Codec 12 answer nobody asked for is not acknowledged either (Codec 12 never is).
    expect(await t.sendExpectingNoAck(encodeCodec12('DOUT1:ON', 6), 400)).toBe(true);
    expect(await t.sendRaw(good)).toBe(1);
    t.close();
  });

  it('when an unknown IMEI logs in, then it is answered 00, disconnected, counted and logged, and nothing is stored', async () => {
    const unknown = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei: '359999999999999' });
    const before = await metric('tracker_unknown_ids_total', { transport: 'tcp' });
    await expect(unknown.connect()).rejects.toThrow('refused IMEI 359999999999999');
    await unknown.closedByServer();
    expect(await metric('tracker_unknown_ids_total', { transport: 'tcp' })).toBe(before + 1);
    expect(svc.logs.some((l) => l.includes('"deviceId":"359999999999999"') && l.includes('tracker refused'))).toBe(true);
  });

  it('when a connection sends garbage, or nothing at all, then the gateway closes it', async () => {
    const closed = (payload?: Buffer) => new Promise<number>((resolve) => {
      const started = Date.now();
      const socket = connect({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port }, () => { if (payload) socket.write(payload); });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Date.now() - started));
    });
    expect(await closed(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toBeLessThan(1000);
    expect(await closed()).toBeGreaterThanOrEqual(250); // the login timeout of this service is 300 ms
  });

  it('when the stream breaks the protocol (a packet before the login, a second login, a frame over 64 KiB), then the gateway closes it without an ack', async () => {
    const port = svc.gateway!.listening.teltonika!.port;
    const packet = encodeTcpPacket(CODEC_8E, [avlRecord(T0 - 15_000)]);
    expect(await rawSession(port, [packet])).toMatchObject({ received: '' });
    expect(await rawSession(port, [encodeLogin(imei), encodeLogin(imei)])).toMatchObject({ received: '01' });
    const oversized = Buffer.alloc(8);
    oversized.writeUInt32BE(70_000, 4);
    expect(await rawSession(port, [encodeLogin(imei), oversized])).toMatchObject({ received: '01' });
  });

  it('when keep-alive bytes keep coming but no login, then the login deadline still closes the connection', async () => {
    const pings = Array.from({ length: 12 }, () => Buffer.from([0xff]));
    const { received, closedAfterMs } = await rawSession(svc.gateway!.listening.teltonika!.port, pings, 50);
    expect(received).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(250);
    expect(closedAfterMs).toBeLessThan(550); // the login timeout of this service is 300 ms; the pings ran 600 ms
  });

  it('when a datagram is malformed or names an unknown IMEI, then it gets no answer and is counted', async () => {
    const udp = createSocket('udp4');
    const answers: Buffer[] = [];
    udp.on('message', (m) => answers.push(m));
    const unknownBefore = await metric('tracker_unknown_ids_total', { transport: 'udp' });
    const malformedBefore = await metric('tracker_packets_total', { transport: 'udp', outcome: 'malformed' });
    const port = svc.gateway!.listening.teltonika!.port;
    udp.send(encodeUdpDatagram({ packetId: 1, avlPacketId: 1, imei: '359999999999999' }, CODEC_8E, [avlRecord(T0 - 5000)]), port, '127.0.0.1');
    udp.send(Buffer.from('not a teltonika datagram'), port, '127.0.0.1');
    await expect.poll(() => metric('tracker_unknown_ids_total', { transport: 'udp' })).toBe(unknownBefore + 1);
    await expect.poll(() => metric('tracker_packets_total', { transport: 'udp', outcome: 'malformed' })).toBe(malformedBefore + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answers).toEqual([]);
    udp.close();
  });

  it('when a datagram arrives over UDP, then the answer echoes the packet id and AVL packet id with the count, and the data is stored', async () => {
    const udp = createSocket('udp4');
    const answer = new Promise<Buffer>((resolve) => udp.once('message', resolve));
    const at = T0 - 10_000;
    udp.send(encodeUdpDatagram({ packetId: 0xcafe, avlPacketId: 0x07, imei }, CODEC_8E, [avlRecord(at, { speed: 1 }), avlRecord(at + 1000, { speed: 1 })]), svc.gateway!.listening.teltonika!.port, '127.0.0.1');
    expect((await answer).toString('hex')).toBe('0005cafe010702');
    udp.close();
    expect((await vehicleData(vin, at, at + 1000)).map((r) => r.speed)).toEqual([1, 1]);
  });

  it('when a tracker reports a drive, then it becomes a trip of POST /vehicle-trips', async () => {
    const t = await tracker(TRACKED.silent.imei);
    const start = T0 - 3 * 3_600_000;
    const drive = syntheticDrive(start, [stand(120), move(60, 8 * 60), stand(12 * 60)]);
    const records = drive.map((r) => avlRecord(r.ts, { lat: r.latitude!, lon: r.longitude!, speed: r.speed!, odometerM: Math.round(r.odometer! * 1000), fuelPct: Math.round(r.fuelLevel!) }));
    for (let i = 0; i < records.length; i += 40) expect(await t.send(records.slice(i, i + 40))).toBe(Math.min(40, records.length - i));
    await runTripDetectionOnce(svc.store, svc.clock, { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 }, { expire: false });
    const res = await svc.request('POST', '/vehicle-trips', { json: { vins: [TRACKED.silent.vin], datapoints: ['start_date_time', 'end_date_time', 'distance', 'max_speed'] }, headers: auth });
    expect(res.body[TRACKED.silent.vin]).toEqual([{ start_date_time: '2026-11-20T06:02:10', end_date_time: '2026-11-20T06:10:00', distance: 7.833, max_speed: 60 }]);
    t.close();
  });

  it('when a connected tracker is given to another vehicle in the registry, then its next packet is not stored and the connection is closed', async () => {
    const t = await tracker(TRACKED.silent.imei);
    expect(await t.send([avlRecord(T0 - 2000)])).toBe(1);
    const fleet = trackerFleet();
    const silent = fleet.companies[0]!.vehicles.find((v) => v.vin === TRACKED.silent.vin)!;
    silent.device = { protocol: 'teltonika', id: '356307042440000' };
    const validation = validateFleetFile(fleet);
    if (!validation.ok) throw new Error(JSON.stringify(validation.problems));
    await applyFleet(svc.store.db, validation.fleet, svc.keyring, svc.clock.now(), { replaceSecrets: true });
    const before = await storedCount(TRACKED.silent.vin);
    await expect(t.send([avlRecord(T0 - 1000)])).rejects.toThrow();
    expect(await storedCount(TRACKED.silent.vin)).toBe(before);
  });
});
