/**
 * The ingest queue's messages: rows split by VIN partition and by size, the same rows always
 * giving the same messages and ids (what makes a resent batch a duplicate to the stream), and
 * what a writer reads back; the VIN partition function, which must never change; and when a
 * stream counts as able to acknowledge.
 */
import { describe, expect, it } from 'vitest';
import { vinPartition } from '../../src/domain/vin-partition.js';
import type { StreamInfo } from '@nats-io/jetstream';
import { withoutCredentials } from '../../src/queue/ingest-queue.js';
import { hasQuorum } from '../../src/queue/ingest-streams.js';
import { MAX_MESSAGE_BYTES } from '../../src/queue/ingest-streams.js';
import { decodeQueueMessage, queueMessages } from '../../src/queue/queue-message.js';
import type { TelemetryRow } from '../../src/store/telemetry/insert.js';

const vins = Array.from({ length: 40 }, (_, i) => `9BWPART${String(i).padStart(10, '0')}`);
const row = (vin: string, ts: number): TelemetryRow => ({ vin, ts, speed: 12.5, latitude: -23.5, longitude: -46.6, flag: null, received_at: 1_700_000_000_000 });
const OEM = { kind: 'oem', oem: 'cloudmotors' } as const;
const tracker = (i: number, vin: string) => ({ kind: 'device', protocol: 'teltonika', deviceId: `35630704244${String(i).padStart(4, '0')}`, vin }) as const;
const ofOem = (rows: TelemetryRow[]) => [{ source: OEM, rows }];
const rowsOf = (body: Uint8Array) => {
  const decoded = decodeQueueMessage(body);
  if (decoded.kind !== 'batches') throw new Error(decoded.kind);
  return decoded.batches.flatMap((b) => b.rows) as TelemetryRow[];
};

describe('ingest queue messages', () => {
  it('when a VIN is partitioned, then the answer is fixed for ever (FNV-1a), spread over the partitions, and within range', () => {
    expect([vinPartition('9BWZZZ377VT004251', 4), vinPartition('9BWZZZ377VT004251', 64), vinPartition('1HGCM82633A004352', 4)]).toEqual([0, 20, 2]); // 0xb05a2a94, 0x848a2802 by a reference FNV-1a
    const counts = [0, 0, 0, 0];
    for (const vin of vins) counts[vinPartition(vin, 4)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(4);
    for (const vin of vins) expect(vinPartition(vin, 7)).toBeLessThan(7);
  });

  it('when rows are queued, then each message holds one partition\'s rows, under the size limit, and the rows come back whole', () => {
    const rows = vins.flatMap((vin) => Array.from({ length: 200 }, (_, i) => row(vin, 1_700_000_000_000 + i * 1000)));
    const messages = queueMessages(ofOem(rows), 5, 4);
    expect(messages.length).toBeGreaterThan(4);
    const back: TelemetryRow[] = [];
    for (const m of messages) {
      expect(m.body.byteLength).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      const decoded = rowsOf(m.body);
      expect(decoded).toHaveLength(m.records);
      for (const r of decoded) expect(m.subject).toBe(`telematics.ingest.${vinPartition(r.vin, 4)}`);
      back.push(...decoded);
    }
    const key = (r: TelemetryRow) => `${r.vin}@${r.ts}`;
    expect(back.map(key).sort()).toEqual(rows.map(key).sort());
    expect(back.find((r) => r.vin === vins[3] && r.ts === 1_700_000_005_000)).toEqual(row(vins[3]!, 1_700_000_005_000));
  });

  it('when a row carries a position accuracy, then it comes back with it; a row without one comes back without the column', () => {
    const rows = [{ ...row(vins[0]!, 1000), position_accuracy_m: 7.5 }, row(vins[0]!, 2000)];
    const [message] = queueMessages(ofOem(rows), 0, 4);
    expect(rowsOf(message!.body)).toEqual(rows);
    expect(rowsOf(message!.body)[1]).not.toHaveProperty('position_accuracy_m');
  });

  it('when the same rows are queued again, in another order and received later, then the messages have the same ids; other rows, other ids', () => {
    const rows = vins.slice(0, 8).flatMap((vin) => [row(vin, 1000), row(vin, 2000)]);
    const again = [...rows].reverse().map((r) => ({ ...r, received_at: r.received_at + 60_000 }));
    const ids = (list: TelemetryRow[]) => queueMessages(ofOem(list), 0, 4).map((m) => m.id).sort();
    expect(ids(again)).toEqual(ids(rows));
    expect(ids([...rows.slice(1), row(vins[0]!, 3000)])).not.toEqual(ids(rows));
  });

  it('when a message is not this service\'s, then a writer reads it as nothing to store; one of an edge that names no source is told apart; its rows are left to the writers\' checks', () => {
    for (const text of ['', 'not json', 'null', '{}', '{"batches":{}}', '{"batches":[{"rows":[]}]}', '{"batches":[{"source":{"kind":"oem"},"rows":[]}]}',
      '{"batches":[{"source":{"kind":"device","protocol":"teltonika","deviceId":"1","vin":"X"},"rows":[]}]}', '{"source":{"kind":"oem","oem":"a"},"rows":[]}']) {
      expect(decodeQueueMessage(Buffer.from(text)), text).toEqual({ kind: 'foreign' });
    }
    expect(decodeQueueMessage(Buffer.from('{"at":1,"rows":[1,2]}'))).toEqual({ kind: 'unsourced', rows: 2 });
    expect(decodeQueueMessage(Buffer.from('{"at":1,"batches":[{"source":{"kind":"oem","oem":"a"},"rows":[1]}]}'))).toEqual({ kind: 'batches', batches: [{ source: { kind: 'oem', oem: 'a' }, rows: [1] }] });
  });

  it('when rows of a source are queued, then the source travels with them and is part of the message id', () => {
    const rows = vins.slice(0, 4).map((vin) => row(vin, 1000));
    const [message] = queueMessages(ofOem(rows), 0, 1);
    expect(decodeQueueMessage(message!.body)).toEqual({ kind: 'batches', batches: [{ source: OEM, rows }] });
    expect(queueMessages([{ source: { kind: 'oem', oem: 'other' }, rows }], 0, 1)[0]!.id).not.toBe(message!.id);
  });

  it('when many trackers\' rows are queued together, then there is one message per partition, each row under its own tracker, with the same ids whatever order the trackers came in', () => {
    const batches = vins.map((vin, i) => ({ source: tracker(i, vin), rows: [row(vin, 1000), row(vin, 2000)] }));
    const messages = queueMessages(batches, 0, 4);
    expect(messages).toHaveLength(4);
    for (const m of messages) {
      const decoded = decodeQueueMessage(m.body);
      if (decoded.kind !== 'batches') throw new Error(decoded.kind);
      for (const b of decoded.batches) for (const r of b.rows as TelemetryRow[]) expect(b.source).toEqual(batches.find((x) => x.source.vin === r.vin)!.source);
    }
    const ids = (list: typeof batches) => queueMessages(list, 0, 4).map((m) => m.id).sort();
    expect(ids([...batches].reverse())).toEqual(ids(batches));
    // The same rows under another source: another id.
    const moved = batches.map((b, i) => (i === 0 ? { ...b, source: tracker(99, b.source.vin) } : b));
    expect(ids(moved)).not.toEqual(ids(batches));
  });
});

describe('a stream\'s quorum, as readiness and the metrics read it', () => {
  const info = (replicas: number, cluster: unknown) => ({ config: { num_replicas: replicas }, cluster }) as unknown as StreamInfo;
  const peer = (current: boolean, activeS = 0.2, offline = false) => ({ name: 'p', current, offline, active: activeS * 1e9, lag: 0 });

  it('when the stream has a leader and a majority of its replicas current, then it can acknowledge; otherwise not', () => {
    expect(hasQuorum(info(1, undefined))).toBe(true); // a single server
    expect(hasQuorum(info(1, { name: 'c', leader: 'n1' }))).toBe(true);
    expect(hasQuorum(info(3, { leader: 'n1', replicas: [peer(true), peer(true)] }))).toBe(true);
    expect(hasQuorum(info(3, { leader: 'n1', replicas: [peer(true), peer(false)] }))).toBe(true);
    expect(hasQuorum(info(3, { leader: 'n1', replicas: [peer(false), peer(false)] }))).toBe(false);
    expect(hasQuorum(info(3, { leader: 'n1', replicas: [peer(true, 0.1, true), peer(false)] }))).toBe(false);
    // A leader not yet aware its followers are gone: silent for longer than 5 s, they do not count.
    expect(hasQuorum(info(3, { leader: 'n1', replicas: [peer(true, 9), peer(true, 12)] }))).toBe(false);
    expect(hasQuorum(info(3, { name: 'c', leader: '', replicas: [peer(true), peer(true)] }))).toBe(false);
    expect(hasQuorum(info(5, { leader: 'n1', replicas: [peer(true), peer(true), peer(false), peer(false)] }))).toBe(true);
  });
});

describe('ingest queue servers as logged', () => {
  it('when a server carries credentials, with a scheme or as host:port, then they are masked and the rest is kept', () => {
    expect(withoutCredentials('nats://writer:s3cret@nats-1:4222')).toBe('nats://***@nats-1:4222');
    expect(withoutCredentials('tls://TOKEN123@nats-2')).toBe('tls://***@nats-2');
    expect(withoutCredentials('writer:s3cret@nats-3:4222')).toBe('***@nats-3:4222');
    expect(withoutCredentials('nats://nats-1:4222')).toBe('nats://nats-1:4222');
    expect(withoutCredentials('nats-1:4222')).toBe('nats-1:4222');
  });
});
