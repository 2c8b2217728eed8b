/**
 * The writers do not trust the ingest queue: anyone who may publish to its subjects
 * could put any bytes there. Hand-made hostile messages published straight to JetStream (garbage,
 * a VIN of another automaker than the source named, a malformed flag, an out-of-range value, a
 * column that is not telemetry, a message that names no source) are refused by real writers
 * on a real database: nothing of them is stored, the counters move, the log names VIN, instant
 * and reason but never the payload, and each message is acknowledged so it is not delivered for
 * ever. A good row beside bad ones in the same message is still stored.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestQueue } from '../../src/queue/ingest-queue.js';
import { streamName, subjectOf, WRITERS_CONSUMER } from '../../src/queue/ingest-streams.js';
import { QueueMetrics } from '../../src/queue/queue-metrics.js';
import { startTelemetryWriters, type RunningWriters } from '../../src/queue/telemetry-writers.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { metricSum } from '../support/metrics-text.js';
import { startNatsServers, testQueueSettings, type NatsServers } from '../support/nats-servers.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { TRACKED, trackerFleet } from '../support/tracker-fleet.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const SECRET_LOOKING = 'payload-that-must-not-be-logged';
const row = (vin: string, seconds: number, extra: Record<string, unknown> = {}) => ({ vin, ts: T0 - 3_600_000 + seconds * 1000, speed: 20, flag: null, received_at: T0, ...extra });

describe.each(DATABASE_KINDS)('hostile messages on the ingest queue (%s)', (kind) => {
  let nats: NatsServers;
  let svc: TestService;
  let queue: IngestQueue;
  let writers: RunningWriters;
  const registry = new Registry();
  const lines: string[] = [];
  const publish = (body: string) => queue.js.publish(subjectOf(0), body);
  const storedKeys = async () => (await svc.store.db.selectFrom('telemetry').select(['vin', 'ts']).orderBy('ts').execute()).map((r) => `${r.vin}@${Number(r.ts)}`);
  const counter = async (name: string) => metricSum(await registry.metrics(), name);

  beforeAll(async () => {
    nats = await startNatsServers(1);
    svc = await startTestService(kind, trackerFleet());
    const logger = pino({ level: 'info' }, new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }));
    const metrics = new QueueMetrics(registry);
    queue = await IngestQueue.open(testQueueSettings(nats.nodes[0]!.url), logger, metrics);
    writers = await startTelemetryWriters(queue, svc.store, svc.clock, { retentionMs: 192 * 3_600_000, tripLatenessMs: 60_000 }, logger, metrics);
  }, scaled(60_000));
  afterAll(async () => {
    await writers?.stop();
    await queue?.close();
    await svc?.close();
    await nats?.close();
  });

  it('when hostile messages are published straight to the stream, then none of their rows is stored, each refusal is counted and logged without the payload, and every message is acknowledged', async () => {
    const [vin, other] = [ALPHA_VINS[0], ALPHA_VINS[2]]; // simmotors; othermotors
    await publish('{"rows":[{"vin":');
    await publish(JSON.stringify({ at: T0, batches: [{ source: { kind: 'bogus' }, rows: [row(vin, 0)] }] }));
    await publish(JSON.stringify({
      at: T0, batches: [{ source: { kind: 'oem', oem: 'simmotors' }, rows: [
        row(vin, 1, { flag: `{${SECRET_LOOKING}` }), // malformed flag
        row(vin, 2, { speed: 5000 }), // out of range: an edge would have nulled and flagged it
        row(vin, 3, { company_id: 'beta', note: SECRET_LOOKING }), // not telemetry columns
        row(vin, 4, { speed: 30, flag: '{"speed":{"value":999,"flag":"out of range"}}' }), // a flag beside a value
        row(vin, 5, { ts: T0 + 1 }), // not whole seconds
        row(other, 6), // another automaker's vehicle than the source named
        row(vin, 7, { flag: '{"fuel_level":{"value":120,"flag":"out of range"}}', fuel_level: null }), // good: stored
        row(vin, 8, { received_at: T0 + 3_600_000 }), // good, but received in the writers' future: stamped with their clock
      ] }],
    }));
    // No source (an edge older than the writers): refused whole, even a registered vehicle's row.
    await publish(JSON.stringify({ at: T0, rows: [row('9BWZZZ377VT999999', 8), row(other, 9)] }));

    const good = [`${vin}@${row(vin, 7).ts}`, `${vin}@${row(vin, 8).ts}`];
    await until('the good rows stored', async () => (await storedKeys()).length >= 2);
    await until('every message acknowledged', async () => {
      const info = await queue.jsm.consumers.info(streamName(0), WRITERS_CONSUMER);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
    expect((await storedKeys()).sort()).toEqual(good);
    expect(await counter('ingest_queue_dropped_total')).toBe(2);
    const rejected = await registry.getSingleMetricAsString('ingest_queue_rejected_records_total');
    expect(rejected).toContain('reason="malformed"} 4');
    expect(rejected).toContain('reason="invalid"} 1');
    expect(rejected).toContain('reason="not the source\'s vehicle"} 1');
    expect(rejected).toContain('reason="no source"} 2');
    const stored = await svc.store.db.selectFrom('telemetry').selectAll().where('vin', '=', vin).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ speed: 20, flag: '{"fuel_level":{"value":120,"flag":"out of range"}}' });
    const future = await svc.store.db.selectFrom('telemetry').select('received_at').where('vin', '=', vin).where('ts', '=', row(vin, 8).ts).executeTakeFirstOrThrow();
    expect(Number(future.received_at)).toBe(svc.clock.now());
    const log = lines.join('');
    expect(log).toContain('queued records refused');
    expect(log).toContain('"refused":6');
    expect(log).toContain('"reason":"flag is not a flag the intake writes"');
    expect(log).toContain('names no source');
    expect(log).not.toContain(SECRET_LOOKING);
    // Nothing waits to be delivered again: the stream is empty (work-queue retention).
    expect((await queue.jsm.streams.info(streamName(0))).state.messages).toBe(0);
  }, scaled(30_000));

  it('when a message names a tracker, then only its paired vehicle\'s rows are stored: the pairing is read from the database, not from the message', async () => {
    const before = await storedKeys();
    const rejectedBefore = await counter('ingest_queue_rejected_records_total');
    const { teltonika, silent } = TRACKED;
    const device = (vin: string) => ({ kind: 'device', protocol: 'teltonika', deviceId: teltonika.imei, vin });
    await publish(JSON.stringify({ at: T0, batches: [{ source: device(teltonika.vin), rows: [row(teltonika.vin, 100), row(silent.vin, 101)] }] }));
    // The message claims the device is paired with another vehicle: the database says otherwise.
    await publish(JSON.stringify({ at: T0, batches: [{ source: device(silent.vin), rows: [row(silent.vin, 102)] }] }));
    await until('the paired vehicle\'s row stored', async () => (await storedKeys()).length === before.length + 1);
    await until('both refusals counted', async () => (await counter('ingest_queue_rejected_records_total')) === rejectedBefore + 2);
    expect((await storedKeys()).filter((k) => !before.includes(k))).toEqual([`${teltonika.vin}@${row(teltonika.vin, 100).ts}`]);
  }, scaled(30_000));

  it('when queued rows carry a position accuracy, then a usable one beside a position is stored, a row of an edge without the column stores none, and one the intake would not keep is refused', async () => {
    const vin = ALPHA_VINS[0];
    const at = (seconds: number) => row(vin, seconds).ts;
    const mine = async () => svc.store.db.selectFrom('telemetry').select(['ts', 'position_accuracy_m']).where('vin', '=', vin).where('ts', '>=', at(200)).orderBy('ts').execute();
    const here = { latitude: -23.55, longitude: -46.63 };
    const rejectedBefore = await counter('ingest_queue_rejected_records_total');
    await publish(JSON.stringify({
      at: T0, batches: [{ source: { kind: 'oem', oem: 'simmotors' }, rows: [
        row(vin, 200, { ...here, position_accuracy_m: 7.5 }), // good: stored with it
        row(vin, 201, here), // an edge that predates the column: unknown
        row(vin, 202, { ...here, position_accuracy_m: null }),
        row(vin, 203, { ...here, position_accuracy_m: -4 }), // the intake drops it: not an edge's row
        row(vin, 204, { position_accuracy_m: 10 }), // no position, so the intake would not keep one
        row(vin, 205, { ...here, position_accuracy_m: '7.5' }), // not a number
      ] }],
    }));
    await until('the rows with an accuracy the intake keeps stored', async () => (await mine()).length >= 3);
    await until('the other three refused', async () => (await counter('ingest_queue_rejected_records_total')) === rejectedBefore + 3);
    expect(await mine()).toEqual([{ ts: at(200), position_accuracy_m: 7.5 }, { ts: at(201), position_accuracy_m: null }, { ts: at(202), position_accuracy_m: null }]);
    const log = lines.join('');
    expect(log).toContain('position_accuracy_m: out of range or without a position');
    expect(log).toContain('position_accuracy_m must be a number or null');
  }, scaled(30_000));
});
