/**
 * Commands to trackers (D11) over real sockets: the API writes the command, the gateway sends it
 * as Codec 12 on the tracker's open connection, the tracker answers, and the command worker ends
 * it, exactly as it ends a command to an automaker cloud.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSocket } from 'node:dgram';
import { CODEC_8E, type AvlRecord } from '../../src/gateway/teltonika/avl-record.js';
import { encodeUdpDatagram } from '../../src/gateway/teltonika/udp-datagram.js';
import { CommandWithheld } from '../../src/gateway/tracker-sessions.js';
import { TeltonikaTrackerClient } from '../../src/gateway/teltonika/simulated-client.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { avlRecord, TRACKED, trackerFleet } from '../support/tracker-fleet.js';

const { vin, imei } = TRACKED.teltonika;

describe.each(DATABASE_KINDS)('commands to trackers on %s', (kind) => {
  let svc: TestService;
  let alpha: CommandClient;
  let tracker: TeltonikaTrackerClient;
  let answers: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: true });
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    answers = { 'setdigout 1': 'DOUT1:1 Timeout:INFINITY', 'setdigout 0': 'DOUT1:0 Timeout:INFINITY', getinfo: 'INI:2026/11/20 8:00 RTC:2026/11/20 8:59 RST:2 ERR:1 SR:0 BR:0 CF:0 FG:0 FL:0 UT:0 SMS:0 NOGPS:0:0 GPS:3 SAT:9 RS:7 RF:0 SF:1 MD:0' };
    tracker = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei, onCommand: (text) => answers[text] ?? '' });
    await tracker.connect();
    expect(await tracker.send([avlRecord(T0 - 5000, { speed: 0, odometerM: 250_000, fuelPct: 40 })])).toBe(1);
  });
  afterAll(async () => {
    tracker?.close();
    await svc?.close();
  });

  /**
   * One datagram for `id` from another loopback address, as a stranger who knows the IMEI sends
   * it; resolves once the gateway acknowledged it (the records are stored).
   */
  async function spoofDatagram(id: string, ...records: AvlRecord[]): Promise<void> {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.2', resolve));
    const acked = new Promise((resolve) => udp.once('message', resolve));
    udp.send(encodeUdpDatagram({ packetId: 7, avlPacketId: 7, imei: id }, CODEC_8E, records), svc.gateway!.listening.teltonika!.port, '127.0.0.1');
    await acked;
    udp.close();
  }

  /**
   * Lets the last moving record leave the interlock's 2-minute window, and the clock pass any
   * record dated 4 min ahead, then reports standing still.
   */
  async function standStill(): Promise<void> {
    svc.clock.advance(5 * 60_000);
    expect(await tracker.send([avlRecord(svc.clock.now() - 3000, { speed: 0 })])).toBe(1);
  }

  const udpBesideSession = async () =>
    (await svc.metrics.getSingleMetric('tracker_udp_records_beside_session_total')?.get())?.values.find((m) => m.labels.protocol === 'teltonika')?.value ?? 0;

  /** Creates (and confirms) a command, then runs the worker with the clock until it ends. */
  async function run(v: string, command: string, maxSeconds = 20) {
    let created = await alpha.send({ vin: v, command });
    if (created.body.status === 'Confirmation') created = await alpha.send({ vin: v, command, code: created.body.code });
    expect(created.body.status).toBe('Pending');
    for (let s = 0; s < maxSeconds; s += 1) {
      if (s < 10) await new Promise((resolve) => setTimeout(resolve, 60)); // the gateway's dispatcher runs every 50 ms of real time
      svc.clock.advance(1000);
      await svc.worker.runOnce();
      const res = await alpha.status(created.body.id);
      if (res.body.status !== 'Pending') return res.body;
    }
    return (await alpha.status(created.body.id)).body;
  }

  it('when disable_ignition is confirmed for a parked vehicle, then the tracker receives setdigout 1, answers, and the command ends Success', async () => {
    const sent = tracker.commands.length;
    expect(await run(vin, 'disable_ignition')).toMatchObject({ status: 'Success', detail: { ignition: 'disabled', date_time: expect.any(String) } });
    expect(tracker.commands.slice(sent)).toEqual(['setdigout 1']);
    const exchange = await svc.store.db.selectFrom('device_commands').select(['text', 'answer', 'sent_by']).where('vin', '=', vin).where('command', '=', 'disable_ignition').executeTakeFirst();
    expect(exchange).toMatchObject({ text: 'setdigout 1', answer: 'DOUT1:1 Timeout:INFINITY', sent_by: expect.stringMatching(/^gateway-/) });
    expect(await run(vin, 'enable_ignition')).toMatchObject({ status: 'Success', detail: { ignition: 'enabled' } });
    expect(tracker.commands.at(-1)).toBe('setdigout 0');
  });

  it('when diagnostics is asked, then the tracker gets getinfo and the answer carries the latest stored odometer and fuel', async () => {
    expect(await run(vin, 'diagnostics')).toMatchObject({
      status: 'Success', detail: { odometer: 250, fuel_level: 40, fuel_capacity: 60, fuel_amount: 24, date_time: expect.any(String) },
    });
    expect(tracker.commands.at(-1)).toBe('getinfo');
  });

  it('when the vehicle\'s latest record is moving, then an ignition command ends Commands blocked. and nothing reaches the tracker', async () => {
    expect(await tracker.send([avlRecord(svc.clock.now() - 1000, { speed: 42 })])).toBe(1);
    const sent = tracker.commands.length;
    expect(await run(vin, 'disable_ignition')).toMatchObject({ status: 'Error', detail: 'Commands blocked.' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tracker.commands.length).toBe(sent);
    await standStill();
  });

  it('when a datagram from another address says the moving tracker stands still, dated 4 min ahead, then disable_ignition still ends Commands blocked. and no setdigout reaches the tracker', async () => {
    expect(await tracker.send([avlRecord(svc.clock.now() - 1000, { speed: 90 })])).toBe(1);
    await spoofDatagram(imei, avlRecord(svc.clock.now() + 4 * 60_000, { speed: 0 }));
    const sent = tracker.commands.length;
    expect(await run(vin, 'disable_ignition')).toMatchObject({ status: 'Error', detail: 'Commands blocked.' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tracker.commands.slice(sent)).toEqual([]);
    await standStill();
  });

  it('when a datagram from another address says the standing tracker drives at 150 km/h, then disable_ignition is sent on the connection and ends Success', async () => {
    await standStill();
    await spoofDatagram(imei, avlRecord(svc.clock.now() - 1000, { speed: 150 })); // the newest record stored
    const sent = tracker.commands.length;
    expect(await run(vin, 'disable_ignition')).toMatchObject({ status: 'Success', detail: { ignition: 'disabled' } });
    expect(tracker.commands.slice(sent)).toEqual(['setdigout 1']);
  });

  it('when the interlock says no right before a frame is written, then nothing reaches the tracker and the connection takes the next command', async () => {
    const session = svc.gateway!.sessions.get(imei)!;
    const sent = tracker.commands.length;
    await expect(session.sendCommand('setdigout 1', 5000, () => false)).rejects.toBeInstanceOf(CommandWithheld);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tracker.commands.length).toBe(sent);
    expect(session.ready).toBe(true);
  });

  it('when records come by UDP for a tracker connected over TCP, then they are counted and logged', async () => {
    const before = await udpBesideSession();
    await spoofDatagram(imei, avlRecord(svc.clock.now() - 400, { speed: 0 }), avlRecord(svc.clock.now() - 300, { speed: 0 }));
    expect(await udpBesideSession()).toBe(before + 2);
    expect(svc.logs.some((l) => l.includes(`"deviceId":"${imei}"`) && l.includes('"address":"127.0.0.2"') && l.includes('UDP records for a tracker connected over TCP'))).toBe(true);
  });

  it('when the tracker answers an ignition command with anything but output states, then it ends Unsupported commands.', async () => {
    answers['setdigout 1'] = 'Unknown command';
    try {
      expect(await run(vin, 'disable_ignition')).toMatchObject({ status: 'Error', detail: 'Unsupported commands.' });
    } finally {
      answers['setdigout 1'] = 'DOUT1:1 Timeout:INFINITY';
    }
  });

  it('when the vehicle starts moving while its ignition command waits for the tracker, then it waits for the connection\'s first records, is refused on them, and nothing is sent', async () => {
    const silent = TRACKED.silent;
    let created = await alpha.send({ vin: silent.vin, command: 'disable_ignition' });
    created = await alpha.send({ vin: silent.vin, command: 'disable_ignition', code: created.body.code });
    expect(created.body.status).toBe('Pending');
    const late = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei: silent.imei, onCommand: () => 'DOUT1:ON' });
    onTestFinished(() => late.close());
    await late.connect();
    await new Promise((resolve) => setTimeout(resolve, 300)); // six dispatcher passes: nothing to judge movement by yet
    expect(late.commands).toEqual([]);
    expect((await alpha.status(created.body.id)).body.status).toBe('Pending');
    expect(await late.send([avlRecord(svc.clock.now() - 1000, { speed: 60 })])).toBe(1);
    let status = (await alpha.status(created.body.id)).body;
    for (let s = 0; s < 40 && status.status === 'Pending'; s += 1) {
      await new Promise((resolve) => setTimeout(resolve, 60));
      svc.clock.advance(500);
      await svc.worker.runOnce();
      status = (await alpha.status(created.body.id)).body;
    }
    expect(status).toMatchObject({ status: 'Error', detail: 'Commands blocked.' });
    expect(late.commands).toEqual([]);
  });

  it('when the tracker is not connected, then the command waits and ends Command timeout. at its deadline', async () => {
    expect(await run(TRACKED.silent.vin, 'diagnostics', 130)).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    const exchange = await svc.store.db.selectFrom('device_commands').select(['sent_at']).where('vin', '=', TRACKED.silent.vin).where('command', '=', 'diagnostics').executeTakeFirst();
    expect(exchange).toEqual({ sent_at: null });
  });

  it('when the connection drops after a command was sent and before its answer, then it is not sent again on the next connection and ends at its deadline', async () => {
    const mute = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei, onCommand: () => { mute.close(); return ''; } });
    await mute.connect(); // replaces the tracker's older connection
    const created = await alpha.send({ vin, command: 'diagnostics' });
    await expect.poll(() => mute.commands.length, { timeout: 5000 }).toBe(1);
    const again = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei, onCommand: () => 'late' });
    await again.connect();
    for (let s = 0; s < 130; s += 1) {
      svc.clock.advance(1000);
      await svc.worker.runOnce();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.commands).toEqual([]);
    expect((await alpha.status(created.body.id)).body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    again.close();
  });

  it('when the vehicle is tracked by a phone (OsmAnd), then no command is available for it', async () => {
    const res = await alpha.send({ vin: TRACKED.phone.vin, command: 'diagnostics' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Command not found or unauthorized access.' });
  });
});
