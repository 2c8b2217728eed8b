/**
 * The Teltonika tracker gateway (`telematics serve --teltonika-port 0`, its own process) against
 * floors measured in the same run on the same database. The fleet is one company whose vehicles
 * each carry a tracker (bench/lib/trackers.mjs: a `device` OEM, 15-digit IMEIs), as many as the
 * largest phase needs; the service runs with an HTTP cap of 50 connections per address.
 *
 * - Decode (first, while this process holds little and nothing runs beside it): 5,000 Codec 8E
 *   packets of 40 records of one tracker pushed one by one through a TeltonikaFramer,
 *   decodeTcpPacket and toIncomingRecords, against a bare loop summing every byte of the same
 *   buffers; median of 9 alternating rounds. No target: the bare loop costs ~70 ns a record (76
 *   bytes), while any decoder that builds a record, a Map of its 10 IO values and a datapoint
 *   object per record costs a microsecond or more, so even a good one would sit near 0.05 and a
 *   target would judge allocation, not the decoder. What matters is printed next: the gateway's
 *   ingest rate over the decode rate, the share of a record's cost in the gateway that decoding is.
 * - Ingest: 100 trackers (TeltonikaTrackerClient from this process, one TCP connection each,
 *   logged in) each send 50 packets of 40 records (one a second, as an FMB tracker takes them
 *   while driving: 200,000 records, every one new), one at a time, waiting for its ack as a
 *   device does. Packets are encoded before the clock starts, after a warm-up of 3 packets per
 *   tracker (other instants). records/s = records / time from the first write to the last ack;
 *   each ack must count its whole packet, and the rows stored must equal the records sent. Floor:
 *   the same records (decoded, mapped and checked as the gateway does; other instants; in the
 *   order they arrived) through insertTelemetry from this process with the service stopped, 500
 *   per call and 8 calls in flight, as the vehicle-data suite's floor. Target ≥ 0.5. Also
 *   printed: the same floor in packet-sized calls (40 per call), which separates the cost of one
 *   statement per packet from the gateway's own, and the ack latency. The records are buffered
 *   history (older than the 1-minute trip lateness), so every packet also marks a trip rewind and
 *   the service's trip worker re-reads them, as with late HTTP ingest.
 * - Idle connections: a freshly started service (with `--inspect=127.0.0.1:0`, through which two
 *   full GCs are run before each reading); its RSS (/proc VmRSS, median of 5 samples) and live V8
 *   heap before, and 3 s after 5,000 trackers (batches of 250) have logged in and gone quiet.
 *   KB per connection = RSS growth / connections; target ≤ 20. Kernel socket buffers are not in
 *   RSS. Its tracker_connections_open gauge must count every connection: the HTTP listener is
 *   first seen closing connections past its per-address cap, which must not apply to trackers.
 *   Both processes need a descriptor per connection: under a lower open-file limit fewer are
 *   opened, and the figure says how many.
 *
 * --quick: 500 decoded packets in 3 rounds; 20 trackers × 5 packets (4,000 records), 1 warm-up
 * packet each; 200 idle connections.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkIncomingRecord } from '../../dist/domain/telemetry-record.js';
import { decodeTcpPacket } from '../../dist/gateway/teltonika/decode.js';
import { TeltonikaFramer } from '../../dist/gateway/teltonika/framing.js';
import { toIncomingRecords } from '../../dist/gateway/teltonika/to-incoming-records.js';
import { collectGarbage, inspectorCall, inspectorUrlIn } from '../lib/inspector-gc.mjs';
import { median, percentile } from '../lib/report.mjs';
import { countTelemetry, insertRecords } from '../lib/telemetry.mjs';
import {
  createTrackerFixture, httpConnectionsClosed, imeiOf, metricsOf, openFileLimit, openTrackers, packetsOf, slotRange, startTrackerService, trackerVin,
} from '../lib/trackers.mjs';

export const name = 'trackers';

/** The service's default telemetry retention (192 h): what the intake checks records against. */
const RETENTION_MS = 192 * 3_600_000;
const HTTP_CAP = 50;
const FLOOR = { batch: 500, concurrency: 8 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const range = (n) => Array.from({ length: n }, (_, i) => i);

export async function run(ctx) {
  const plan = ctx.quick
    ? { trackers: 20, packets: 5, perPacket: 40, warmup: 1, decodePackets: 500, decodeRounds: 3, idle: 200 }
    : { trackers: 100, packets: 50, perPacket: 40, warmup: 3, decodePackets: 5_000, decodeRounds: 9, idle: 5_000 };
  // This process and the service each hold one descriptor per connection, beside their own.
  const limit = openFileLimit();
  const idle = Math.max(1, Math.min(plan.idle, limit - 256));
  if (idle < plan.idle) ctx.log(`open-file limit ${limit}: ${idle} idle connections instead of ${plan.idle} (raise it: ulimit -n ${plan.idle + 256})`);
  const fixture = await createTrackerFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: Math.max(plan.trackers, idle) });
  const serve = (what, nodeArgs) => startTrackerService({
    database: fixture.url, keys: fixture.keys, logFile: join(fixture.scratch, `service-${what}.log`),
    // Every tracker here connects from 127.0.0.1: no per-address tracker cap, and a total that holds them all.
    settings: {
      TELEMATICS_CONNECTIONS_PER_ADDRESS: String(HTTP_CAP), TELEMATICS_TRACKER_CONNECTIONS_PER_ADDRESS: '0',
      TELEMATICS_TRACKER_CONNECTIONS: String(Math.max(plan.trackers, idle) + 64),
    }, nodeArgs,
  });
  // Instants up to 5 s ago, one a second per vehicle; slots 0–3 (below) never overlap.
  const shape = { end: Math.floor(Date.now() / 1000) * 1000 - 5_000, packets: plan.packets, perPacket: plan.perPacket };
  const vehicles = range(plan.trackers);
  let service;
  let clients = [];
  try {
    const decode = decodeVsBareLoop(packetsOf(0, { end: shape.end, slot: 0, packets: plan.decodePackets, perPacket: plan.perPacket }), plan.decodeRounds);
    ctx.log(`decode: ${Math.round(decode.decodeRate)} records/s, bare loop ${Math.round(decode.bareRate)} records/s (${decode.bytesPerRecord.toFixed(1)} bytes a record)`);

    // Ingest through the gateway (slot 0 measured, slot 1 warm-up).
    service = await serve('ingest');
    clients = await openTrackers({ port: service.trackerPort, imeis: vehicles.map(imeiOf) });
    const sendAll = (lists, latencies) => Promise.all(clients.map(async (client, i) => {
      for (const packet of lists[i]) {
        const t = performance.now();
        const acked = await client.sendRaw(packet);
        latencies?.push(performance.now() - t);
        if (acked !== plan.perPacket) throw new Error(`tracker ${imeiOf(i)}: ack of ${acked} for a packet of ${plan.perPacket}`);
      }
    }));
    await sendAll(vehicles.map((n) => packetsOf(n, { ...shape, slot: 1, count: plan.warmup })));
    const measured = vehicles.map((n) => packetsOf(n, { ...shape, slot: 0 }));
    const total = plan.trackers * plan.packets * plan.perPacket;
    ctx.log(`ingest: ${plan.trackers} trackers × ${plan.packets} packets × ${plan.perPacket} records (${total.toLocaleString('en-US')}), one packet in flight each`);
    const latencies = [];
    const t0 = performance.now();
    await sendAll(measured, latencies);
    const gatewaySeconds = (performance.now() - t0) / 1000;
    for (const c of clients) c.close();
    clients = [];
    const vins = vehicles.map(trackerVin);
    const sent = slotRange({ ...shape, slot: 0 });
    const stored = await countTelemetry(fixture.store.db, vins, sent.start, sent.end);
    if (stored !== total) throw new Error(`the gateway acknowledged ${total} records and stored ${stored}`);
    const gatewayRate = total / gatewaySeconds;
    await service.stop();
    service = undefined;

    // Floors: the same records straight in, service stopped (slots 2 and 3).
    const now = Date.now();
    const floorRecords = (slot) => arrivalOrder(vehicles.map((n) => packetsOf(n, { ...shape, slot })), now);
    const batchedMs = await insertRecords(fixture.store, floorRecords(2), { ...FLOOR, receivedAt: now });
    const packetMs = await insertRecords(fixture.store, floorRecords(3), { batch: plan.perPacket, concurrency: FLOOR.concurrency, receivedAt: now });
    for (const slot of [2, 3]) {
      const r = slotRange({ ...shape, slot });
      if (await countTelemetry(fixture.store.db, vins, r.start, r.end) !== total) throw new Error(`insertTelemetry did not store every record of slot ${slot}`);
    }
    const batchedRate = total / (batchedMs / 1000);
    const packetRate = total / (packetMs / 1000);
    ctx.log(`ingest: gateway ${Math.round(gatewayRate)} records/s (${gatewaySeconds.toFixed(2)} s), insertTelemetry ${Math.round(batchedRate)} (${FLOOR.batch} per call), ${Math.round(packetRate)} (${plan.perPacket} per call)`);

    service = await serve('idle', ['--inspect=127.0.0.1:0']);
    const held = await idleConnections(ctx, service, idle);

    const fig = (figure, value, floor, target, digits) => ({ section: ctx.section, suite: name, name: figure, service: value, floor, target, digits });
    const shapeText = `${plan.trackers} trackers × ${plan.packets} packets of ${plan.perPacket}, acked`;
    return [
      fig(`Teltonika records/s, gateway into the store (${shapeText}) vs insertTelemetry (${FLOOR.batch} per call, ${FLOOR.concurrency} in flight)`, gatewayRate, batchedRate, { op: '>=', value: 0.5 }),
      fig(`  the same vs insertTelemetry in packet-sized calls (${plan.perPacket} per call, ${FLOOR.concurrency} in flight)`, gatewayRate, packetRate),
      fig(`  packet ack latency p99, ms (${plan.trackers} packets in flight; p50 ${percentile(latencies, 50).toFixed(1)} ms)`, percentile(latencies, 99), undefined, undefined, 1),
      fig(`decode (framer, decodeTcpPacket, toIncomingRecords), records/s vs a bare loop summing the bytes (${(plan.decodePackets * plan.perPacket).toLocaleString('en-US')} records)`, decode.decodeRate, decode.bareRate),
      fig('  gateway records/s vs decode alone (the share of a record\'s cost that is decoding)', gatewayRate, decode.decodeRate, undefined, 0),
      fig(`service RSS per idle tracker connection, KB (${idle.toLocaleString('en-US')} logged in; baseline ${Math.round(held.baselineMb)} MB)`, held.kbPerConnection, undefined, { on: 'service', op: '<=', value: 20 }, 1),
      fig(`  of which live V8 heap, KB per connection (logins took ${held.openSeconds.toFixed(1)} s)`, held.heapKbPerConnection, undefined, undefined, 1),
      fig(`idle tracker connections open by the service's gauge (HTTP cap: ${HTTP_CAP} per address)`, held.open, idle, { op: '==', value: 1 }, 0),
    ];
  } finally {
    for (const c of clients) c.close();
    await service?.stop();
    await fixture.drop();
  }
}

/**
 * Checked records of every vehicle's packets as the gateway stores them (decoded, mapped, checked
 * at `now`), in the order they arrive when every tracker sends its packets in turn.
 */
function arrivalOrder(packetLists, now) {
  const out = [];
  for (let p = 0; p < packetLists[0].length; p += 1) {
    packetLists.forEach((packets, n) => {
      const decoded = decodeTcpPacket(packets[p]);
      for (const input of toIncomingRecords(trackerVin(n), decoded.records, undefined).records) {
        const checked = checkIncomingRecord(input, now, now - RETENTION_MS);
        if (!checked.ok) throw new Error(`a tracker record was refused: ${checked.reason}`);
        out.push(checked.record);
      }
    });
  }
  return out;
}

/** Frame, decode and map `packets` as one connection's stream; returns the number of records. */
function decodeAll(packets) {
  const vin = trackerVin(0);
  const framer = new TeltonikaFramer();
  let ignition;
  let records = 0;
  for (const packet of packets) {
    for (const frame of framer.push(packet)) {
      const decoded = decodeTcpPacket(frame.bytes);
      if (!decoded.ok) throw new Error(`decode: ${decoded.reason} ${decoded.detail}`);
      const mapped = toIncomingRecords(vin, decoded.records, ignition);
      ignition = mapped.ignition;
      records += mapped.records.length;
    }
  }
  return records;
}

/** The floor: every byte of the same buffers read once (summed, so the loop cannot be dropped). */
function byteSum(packets) {
  let sum = 0;
  for (const packet of packets) {
    for (let i = 0; i < packet.length; i += 1) sum = (sum + packet[i]) | 0;
  }
  return sum;
}

/** Records/s of decodeAll and of byteSum over `packets`, medians of `rounds` alternating rounds. */
function decodeVsBareLoop(packets, rounds) {
  const bytes = packets.reduce((s, p) => s + p.length, 0);
  const timed = (f) => { const t = performance.now(); const value = f(packets); return { ms: performance.now() - t, value }; };
  const decodeMs = [];
  const bareMs = [];
  let records = 0;
  for (let round = 0; round < rounds; round += 1) {
    const decoded = timed(decodeAll);
    records = decoded.value;
    decodeMs.push(decoded.ms);
    bareMs.push(timed(byteSum).ms);
  }
  return { decodeRate: records / (median(decodeMs) / 1000), bareRate: records / (median(bareMs) / 1000), bytesPerRecord: bytes / records };
}

/**
 * The service's memory per connection once `count` trackers have logged in and gone quiet: its
 * RSS (median of 5 samples) and live V8 heap, each read after two full collections (through its
 * inspector), before and after.
 */
async function idleConnections(ctx, service, count) {
  const closed = await httpConnectionsClosed(service.url, HTTP_CAP + 20);
  if (closed < 20) throw new Error(`the HTTP listener closed ${closed} of ${HTTP_CAP + 20} connections from one address: its cap of ${HTTP_CAP} is not in effect`);
  const inspector = inspectorUrlIn(service.logFile);
  const settled = async () => {
    await collectGarbage(inspector);
    await sleep(1_000);
    const samples = [];
    for (let i = 0; i < 5; i += 1) { samples.push(service.rssMb()); await sleep(200); }
    const { usedSize } = await inspectorCall(inspector, 'Runtime.getHeapUsage');
    return { rss: median(samples), heap: usedSize / 2 ** 20 };
  };
  await sleep(2_000);
  const before = await settled();
  const t0 = performance.now();
  const clients = await openTrackers({ port: service.trackerPort, imeis: range(count).map(imeiOf) });
  try {
    const openSeconds = (performance.now() - t0) / 1000;
    await sleep(3_000);
    const after = await settled();
    const { tracker_connections_open: open } = await metricsOf(service.url, ['tracker_connections_open']);
    ctx.log(`idle: ${count} trackers logged in in ${openSeconds.toFixed(1)} s; ${open} open by the service's count; after GC, RSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MB, V8 heap used ${before.heap.toFixed(1)} → ${after.heap.toFixed(1)} MB; the HTTP cap closed ${closed} of ${HTTP_CAP + 20}`);
    return {
      open, openSeconds, baselineMb: before.rss, kbPerConnection: ((after.rss - before.rss) * 1024) / count, heapKbPerConnection: ((after.heap - before.heap) * 1024) / count,
    };
  } finally {
    for (const c of clients) c.close();
  }
}
