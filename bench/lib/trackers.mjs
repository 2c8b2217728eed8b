/**
 * Teltonika trackers for the trackers suite: a database whose vehicles each carry their own
 * tracker (one `device` OEM, one company), registered through the code `telematics admin apply`
 * runs; AVL records as an FMB tracker takes them, encoded as the device sends them; the service
 * started with its Teltonika listener; and many TeltonikaTrackerClient connections opened at once.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateFleetFile } from '../../dist/domain/fleet-file.js';
import { encodeTcpPacket } from '../../dist/gateway/teltonika/encode.js';
import { CODEC_8E } from '../../dist/gateway/teltonika/avl-record.js';
import { applyFleet } from '../../dist/registry/apply-fleet.js';
import { keyringFromLists } from '../../dist/security/keyring.js';
import { TeltonikaTrackerClient } from '../../dist/gateway/teltonika/simulated-client.js';
import { migrateToLatest } from '../../dist/store/migrate.js';
import { openStore } from '../../dist/store/open-store.js';
import { createBenchDatabase } from './database.mjs';
import { startService } from './processes.mjs';

export const TRACKER_OEM = 'trackers';
/** The n-th tracked vehicle's VIN (17 characters, no I, O or Q) and its tracker's 15-digit IMEI. */
export const trackerVin = (n) => `9BWTRK${String(n).padStart(11, '0')}`;
export const imeiOf = (n) => `35630704${String(n).padStart(7, '0')}`;

/** A fresh, migrated database holding `vehicles` tracked vehicles; `drop()` removes it. */
export async function createTrackerFixture({ kind, adminUrl, vehicles }) {
  const database = await createBenchDatabase(kind, adminUrl);
  const scratch = mkdtempSync(join(tmpdir(), 'telematics-bench-trackers-'));
  const keys = { jwt: randomBytes(32).toString('base64'), master: randomBytes(32).toString('base64') };
  const store = openStore(database.url, { poolSize: 10 });
  await migrateToLatest(store);
  const fleet = validateFleetFile({
    plans: [{ name: 'full', datapoints: '*', commands: '*' }],
    oems: [{ name: TRACKER_OEM, connector: 'device', datapoints: '*', commands: ['diagnostics', 'disable_ignition', 'enable_ignition'] }],
    companies: [{
      id: 'haulage', name: 'Bench Haulage', plan: 'full', applications: [],
      vehicles: Array.from({ length: vehicles }, (_, n) => ({
        vin: trackerVin(n), plate: `TRK${String(n).padStart(5, '0')}`, oem: TRACKER_OEM, model: 'Cargo', year: 2021, fuel_capacity: 60,
        device: { protocol: 'teltonika', id: imeiOf(n) },
      })),
    }],
  });
  if (!fleet.ok) throw new Error(`tracker fleet invalid: ${JSON.stringify(fleet.problems.slice(0, 3))}`);
  await applyFleet(store.db, fleet.fleet, keyringFromLists(keys.jwt, keys.master, 'bench'), Date.now());
  return {
    url: database.url, keys, store, scratch,
    async drop() {
      await store.close().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
      await database.drop();
    },
  };
}

/**
 * Record `k` of vehicle `n` at `ts`, as an FMB tracker takes one every second while driving: a
 * fix, position, heading and speed, and the IO elements it reports by default. The suite's
 * intake maps 239 (ignition, always on: no ignition event), 66 (external voltage, mV), 16 (odometer,
 * m) and 89 (fuel, %); 21 (GSM signal), 69 (GNSS status), 181/182 (PDOP/HDOP), 67 (battery mV) and
 * 241 (operator code, 4 bytes) are decoded and ignored, as they are on a real packet.
 */
export function avlRecord(n, k, ts) {
  const speed = 40 + Math.round(25 * Math.sin((n + k) / 60));
  const odometerM = 1_000_000 + n * 1_000 + k * 15;
  const io = new Map([[239, 1], [21, 4], [69, 1], [66, 13_800 + (k % 400)], [181, 9], [182, 7], [67, 4_100], [89, 80 - Math.floor((k % 36_000) / 900)], [16, odometerM], [241, 72_405]]);
  return {
    timestampMs: ts, priority: 0, latitude: -23.55 + (n % 100) * 0.001 + k * 1e-5, longitude: -46.63 - (n % 70) * 0.001 + k * 7e-6, altitude: 760,
    angle: (n * 37 + k) % 360, satellites: 9 + (k % 4), speed, eventIoId: 0, io,
  };
}

/**
 * Vehicle `n`'s packets in slot `slot`: the first `count` (default all) of `packets` Codec 8E TCP
 * packets of `perPacket` records, one record a second, oldest first; slot s ends s × packets ×
 * perPacket seconds before `end`. Slots never share an instant, so every slot's records are new.
 */
export function packetsOf(n, { end, slot, packets, perPacket, count = packets }) {
  const { start } = slotRange({ end, slot, packets, perPacket });
  return Array.from({ length: count }, (_, p) => encodeTcpPacket(CODEC_8E, Array.from({ length: perPacket }, (_, r) => {
    const k = p * perPacket + r;
    return avlRecord(n, k, start + k * 1000);
  })));
}

/** The first and last instant of slot `slot` (as packetsOf makes them). */
export function slotRange({ end, slot, packets, perPacket }) {
  const last = end - slot * packets * perPacket * 1000;
  return { start: last - (packets * perPacket - 1) * 1000, end: last };
}

/**
 * `telematics serve` with its Teltonika listener on a port it picks (`--teltonika-port 0`), read
 * from its log line; `settings` are more environment settings, `nodeArgs` Node options. Resolves
 * to the service handle with `trackerPort`.
 */
export async function startTrackerService({ database, keys, logFile, settings = {}, nodeArgs }) {
  const service = await startService({ database, keys, logFile, settings: { TELEMATICS_TELTONIKA_PORT: '0', ...settings }, nodeArgs });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const line = readFileSync(logFile, 'utf8').split('\n').find((l) => l.includes('"msg":"Teltonika trackers: TCP and UDP listening"'));
    if (line) return Object.assign(service, { trackerPort: JSON.parse(line).port });
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`the service did not report its Teltonika listener; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Logged-in trackers, one per IMEI, `batch` logging in at a time. */
export async function openTrackers({ port, imeis, batch = 250 }) {
  const clients = [];
  try {
    for (let i = 0; i < imeis.length; i += batch) {
      const group = imeis.slice(i, i + batch).map((imei) => new TeltonikaTrackerClient({ host: '127.0.0.1', port, imei, responseTimeoutMs: 30_000 }));
      clients.push(...group);
      await Promise.all(group.map((c) => c.connect()));
    }
  } catch (error) {
    for (const c of clients) c.close();
    throw error;
  }
  return clients;
}

/** Values of the service's /metrics by name (labels summed). */
export async function metricsOf(serviceUrl, names) {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const out = Object.fromEntries(names.map((n) => [n, 0]));
  for (const m of text.matchAll(/^([a-z_]+)(?:\{[^}]*\})? ([\d.e+-]+)$/gm)) if (m[1] in out) out[m[1]] += Number(m[2]);
  return out;
}

/**
 * How many of `count` plain TCP connections from this address the HTTP listener closes within
 * 500 ms: more than `cap` are over the per-address cap, so some must be (the cap is in effect).
 */
export async function httpConnectionsClosed(serviceUrl, count) {
  const { hostname, port } = new URL(serviceUrl);
  let closed = 0;
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port) }, () => resolve(s));
    s.once('error', reject);
    s.once('close', () => { closed += 1; });
  })));
  await new Promise((r) => setTimeout(r, 500));
  const seen = closed;
  for (const s of sockets) s.destroy();
  return seen;
}

/** The open-file limit this process's children get (Node raised its soft limit to the hard one). */
export function openFileLimit() {
  const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  return text === 'unlimited' ? Infinity : Number(text);
}
