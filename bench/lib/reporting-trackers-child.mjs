/**
 * Trackers that report as devices do, in a process of their own (forked by reporting-trackers.mjs)
 * so that their timers and ack latencies never share the bench's event loop. Driven by messages:
 *
 * - `open` {port, imeis}: one TeltonikaTrackerClient (one TCP connection) per IMEI, logged in,
 *   250 logging in at a time; answers `opened` {seconds}.
 * - `report` {periodMs}: each tracker sends one Codec 8 record (timestamp = now, a position near
 *   São Paulo moving at its speed, IO 239 ignition on, 240 movement, 66 external voltage, 16
 *   odometer) every periodMs at a random phase, and waits for the 4-byte ack before the next, as
 *   a device does; answers `reporting`.
 * - `drain`: no new sends; waits for every ack outstanding and answers `drained` with the records
 *   sent and acked, the acks that were not 1, the sends that came late (the previous ack took
 *   longer than the period), errors, and every latency as [sent at (epoch ms), ms].
 * - `close`: closes every connection and exits.
 */
import { performance } from 'node:perf_hooks';
import { CODEC_8 } from '../../dist/gateway/teltonika/avl-record.js';
import { encodeTcpPacket } from '../../dist/gateway/teltonika/encode.js';
import { TeltonikaTrackerClient } from '../../dist/gateway/teltonika/simulated-client.js';

let clients = [];
let loops = [];
let stopping = false;
const sleepers = new Set();
const totals = { sent: 0, acked: 0, badAcks: 0, late: 0, errors: [] };
const samples = [];

/** A wait that `drain` can cut short. */
const sleep = (ms) => new Promise((resolve) => {
  const wake = () => { clearTimeout(timer); sleepers.delete(wake); resolve(); };
  const timer = setTimeout(wake, ms);
  sleepers.add(wake);
});

/** One tracker's next record: it drives on a drifting heading at 0–80 km/h. */
function nextRecord(state, now) {
  state.speed = Math.max(0, Math.min(80, state.speed + (Math.random() - 0.5) * 10));
  state.heading = (state.heading + (Math.random() - 0.5) * 20 + 360) % 360;
  const metres = (state.speed / 3.6) * (state.periodMs / 1000);
  const rad = (state.heading * Math.PI) / 180;
  state.lat += (metres * Math.cos(rad)) / 111_320;
  state.lon += (metres * Math.sin(rad)) / (111_320 * Math.cos((state.lat * Math.PI) / 180));
  state.odometer += Math.round(metres);
  return {
    timestampMs: now, priority: 0, latitude: state.lat, longitude: state.lon, altitude: 760, angle: Math.round(state.heading) % 360,
    satellites: 8 + Math.floor(Math.random() * 5), speed: Math.round(state.speed), eventIoId: 0,
    io: new Map([[239, 1], [240, state.speed > 0 ? 1 : 0], [66, 12_400 + Math.floor(Math.random() * 1_600)], [16, state.odometer]]),
  };
}

async function reportFrom(client, periodMs, startAt) {
  const state = {
    periodMs, speed: Math.random() * 80, heading: Math.random() * 360, odometer: Math.floor(Math.random() * 1e8),
    lat: -23.55 + (Math.random() - 0.5) * 0.5, lon: -46.63 + (Math.random() - 0.5) * 0.5,
  };
  const phase = Math.random() * periodMs;
  for (let k = 0; !stopping; k += 1) {
    const wait = startAt + phase + k * periodMs - Date.now();
    if (wait > 0) await sleep(wait);
    else if (k > 0) totals.late += 1;
    if (stopping) return;
    const sentAt = Date.now();
    const packet = encodeTcpPacket(CODEC_8, [nextRecord(state, sentAt)]);
    totals.sent += 1;
    const t = performance.now();
    let acked;
    try {
      acked = await client.sendRaw(packet);
    } catch (error) {
      totals.errors.push(String(error.message ?? error));
      return;
    }
    samples.push([sentAt, performance.now() - t]);
    if (acked === 1) totals.acked += 1;
    else totals.badAcks += 1;
  }
}

const handlers = {
  async open({ port, imeis }) {
    const t0 = performance.now();
    for (let i = 0; i < imeis.length; i += 250) {
      const group = imeis.slice(i, i + 250).map((imei) => new TeltonikaTrackerClient({ host: '127.0.0.1', port, imei, responseTimeoutMs: 30_000 }));
      clients.push(...group);
      await Promise.all(group.map((c) => c.connect()));
    }
    return { type: 'opened', seconds: (performance.now() - t0) / 1000 };
  },
  async report({ periodMs }) {
    const startAt = Date.now();
    loops = clients.map((client) => reportFrom(client, periodMs, startAt));
    return { type: 'reporting' };
  },
  async drain() {
    stopping = true;
    for (const wake of [...sleepers]) wake();
    await Promise.all(loops);
    return { type: 'drained', ...totals, samples };
  },
  async close() {
    for (const c of clients) c.close();
    clients = [];
    setImmediate(() => process.exit(0));
    return { type: 'closed' };
  },
};

process.on('message', (message) => {
  handlers[message.type](message)
    .then((answer) => process.send(answer))
    .catch((error) => process.send({ type: 'error', message: String(error.stack ?? error) }));
});
