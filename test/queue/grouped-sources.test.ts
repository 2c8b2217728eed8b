/**
 * The tracker gateway hands the intake one group of many trackers' deliveries (IntakeGroups,
 * up to 5,000 records): queued, that group is one JetStream message per partition, not one per
 * tracker, and each row still travels with its own source, so the writers
 * check every row against the tracker that delivered it, not against any source of the message.
 * Real NATS server, real intake and writers, real database.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptTelemetryBatches, type IntakeBatch } from '../../src/intake/accept-telemetry.js';
import { IngestQueue } from '../../src/queue/ingest-queue.js';
import { streamName, subjectOf, WRITERS_CONSUMER } from '../../src/queue/ingest-streams.js';
import { QueueMetrics } from '../../src/queue/queue-metrics.js';
import { startTelemetryWriters, type RunningWriters } from '../../src/queue/telemetry-writers.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { metricSum } from '../support/metrics-text.js';
import { startNatsServers, testQueueSettings, type NatsServers } from '../support/nats-servers.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { trackerFleet } from '../support/tracker-fleet.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const PARTITIONS = 4;
const TRACKERS = Array.from({ length: 50 }, (_, i) => ({ vin: `9BWGRP${String(i).padStart(11, '0')}`, imei: `35630704300${String(i).padStart(4, '0')}` }));
const PER_TRACKER = 40;
const INTAKE = { retentionMs: 192 * 3_600_000, tripLatenessMs: 60_000 };

function fleet() {
  const json = trackerFleet();
  for (const [i, t] of TRACKERS.entries()) {
    json.companies[0]!.vehicles.push({ vin: t.vin, plate: `GRP${String(i).padStart(4, '0')}`, oem: 'trackers', model: 'Cargo', year: 2021, device: { protocol: 'teltonika', id: t.imei } });
  }
  return json;
}

const device = (t: (typeof TRACKERS)[number]) => ({ kind: 'device' as const, protocol: 'teltonika', deviceId: t.imei, vin: t.vin });

describe.each(DATABASE_KINDS)('a group of many trackers\' records on the ingest queue (%s)', (kind) => {
  let nats: NatsServers;
  let svc: TestService;
  let queue: IngestQueue;
  let writers: RunningWriters | undefined;
  const registry = new Registry();
  const metrics = new QueueMetrics(registry);
  const logger = pino({ level: 'silent' });
  const queuedMessages = async () => {
    let n = 0;
    for (let p = 0; p < PARTITIONS; p++) n += (await queue.jsm.streams.info(streamName(p))).state.messages;
    return n;
  };
  const storedCount = async () => Number((await svc.store.db.selectFrom('telemetry').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    nats = await startNatsServers(1);
    svc = await startTestService(kind, fleet());
    queue = await IngestQueue.open(testQueueSettings(nats.nodes[0]!.url, { partitions: PARTITIONS, maxAgeMs: INTAKE.retentionMs }), logger, metrics);
  }, scaled(60_000));
  afterAll(async () => {
    await writers?.stop();
    await queue?.close();
    await svc?.close();
    await nats?.close();
  });

  it('when 50 trackers\' records are accepted in one call, then the queue gets at most one message per partition, and the writers store every record', async () => {
    const batches: IntakeBatch[] = TRACKERS.map((t) => ({
      source: device(t),
      records: Array.from({ length: PER_TRACKER }, (_, i) => ({
        vin: t.vin, ts: T0 - 3_600_000 + i * 1000, values: { speed: 20 + (i % 5), latitude: -23.5, longitude: -46.6 }, positionAccuracyM: i % 4 === 0 ? null : 5 + (i % 4),
      })),
    }));
    const results = await acceptTelemetryBatches(svc.store, batches, svc.clock.now(), { ...INTAKE, queue });
    expect(results.every((r) => r.accepted === PER_TRACKER && r.rejected.length === 0)).toBe(true);
    const messages = await queuedMessages();
    console.log(`50 trackers × ${PER_TRACKER} records in one intake call: ${messages} queue messages over ${PARTITIONS} partitions`);
    expect(messages).toBeLessThanOrEqual(PARTITIONS);
    expect(metricSum(await registry.metrics(), 'ingest_queue_published_records_total')).toBe(TRACKERS.length * PER_TRACKER);

    writers = await startTelemetryWriters(queue, svc.store, svc.clock, INTAKE, logger, metrics);
    await until('every record stored', async () => (await storedCount()) === TRACKERS.length * PER_TRACKER);
    expect(metricSum(await registry.metrics(), 'ingest_queue_rejected_records_total')).toBe(0);
    // Each record's position accuracy travels with it through the queue.
    const accuracies = await svc.store.db.selectFrom('telemetry').select(['ts', 'position_accuracy_m']).where('vin', '=', TRACKERS[7]!.vin).orderBy('ts').execute();
    expect(accuracies.map((r) => r.position_accuracy_m)).toEqual(Array.from({ length: PER_TRACKER }, (_, i) => (i % 4 === 0 ? null : 5 + (i % 4))));
  }, scaled(60_000));

  it('when one message carries several trackers\' rows, then each row is checked against its own tracker: a row under another tracker\'s source is refused', async () => {
    const [a, b] = [TRACKERS[0]!, TRACKERS[1]!];
    const row = (vin: string, seconds: number) => ({ vin, ts: T0 - 1_800_000 + seconds * 1000, speed: 10, flag: null, received_at: T0 });
    const before = await storedCount();
    // Tracker a's batch holds a row of b's vehicle: b is in the same message, but did not send it.
    await queue.js.publish(subjectOf(0), JSON.stringify({
      at: T0, batches: [{ source: device(a), rows: [row(a.vin, 1), row(b.vin, 2)] }, { source: device(b), rows: [row(b.vin, 3)] }],
    }));
    await until('the message acknowledged', async () => {
      const info = await queue.jsm.consumers.info(streamName(0), WRITERS_CONSUMER);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
    await until('two rows stored', async () => (await storedCount()) === before + 2);
    const stored = await svc.store.db.selectFrom('telemetry').select(['vin', 'ts']).where('ts', '>=', T0 - 1_800_000).orderBy('ts').execute();
    expect(stored.map((r) => `${r.vin}@${(Number(r.ts) - T0 + 1_800_000) / 1000}`)).toEqual([`${a.vin}@1`, `${b.vin}@3`]);
    expect(await registry.getSingleMetricAsString('ingest_queue_rejected_records_total')).toContain('reason="not the source\'s vehicle"} 1');
  }, scaled(30_000));
});
