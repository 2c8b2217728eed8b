/**
 * Realistic telemetry for benchmarks: the simulator's own vehicles (dist/sim), sampled on a time
 * grid the way the simulated fleet pushes them, and stored through the same check and insert the
 * ingest path uses.
 */
import { performance } from 'node:perf_hooks';
import { checkTelemetryRecord } from '../../dist/domain/telemetry-record.js';
import { SimulatedVehicle } from '../../dist/sim/simulated-vehicle.js';
import { sampleTelemetry } from '../../dist/sim/telemetry-sample.js';
import { insertTelemetry, toTelemetryRow } from '../../dist/store/telemetry/insert.js';
import { ensureTelemetryPartitions } from '../../dist/store/telemetry/partitions.js';

export const STEP_MS = 10_000;
/** The service's default telemetry retention (192 h): older records are refused at ingest. */
const RETENTION_MS = 192 * 3_600_000;

/** The latest whole 10 s instant at or before `now`. */
export const gridNow = (now = Date.now()) => now - (now % STEP_MS);

/** An instant as ISO 8601 with seconds and `Z`: what ingest records and request dates take. */
export const isoSeconds = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Ingest records of simulated combustion vehicles (tank `tankLiters`, as the bench fleet
 * registers them): one per VIN at every instant from `from` to `to` inclusive, `stepMs` apart,
 * oldest first with every VIN at each instant. The same seed gives the same history.
 * `glitchRate` is the share of records with one faulty value (the service's simulator sends 0.002).
 */
export function* simulatedRecords({ vins, from, to, stepMs = STEP_MS, seed = 1, glitchRate = 0, tankLiters = 50 }) {
  const vehicles = vins.map((vin) => new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters }, seed));
  for (let t = from; t <= to; t += stepMs) {
    for (const vehicle of vehicles) {
      vehicle.step(t, stepMs / 1000);
      yield sampleTelemetry(vehicle, t, glitchRate);
    }
  }
}

/** An ingest record as the service checks it at `now` (D8); throws if the service would refuse it. */
export function checkedRecord(raw, now) {
  const result = checkTelemetryRecord(raw, now, now - RETENTION_MS);
  if (!result.ok) throw new Error(`generated record refused: ${result.reason} (${JSON.stringify(raw)})`);
  return result.record;
}

/**
 * Stores checked records through insertTelemetry, `batch` per call and `concurrency` calls in
 * flight, making their partitions first as ingest does. Resolves to the milliseconds it took.
 */
export async function insertRecords(store, records, { batch = 500, concurrency = 1, receivedAt = Date.now() } = {}) {
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const slice = records.slice(next, next + batch);
      next += batch;
      const rows = slice.map((record) => toTelemetryRow(record, receivedAt));
      await ensureTelemetryPartitions(store, rows.map((r) => r.ts));
      await insertTelemetry(store, rows);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - t0;
}

/** How many records the VINs have in [start, end]. */
export async function countTelemetry(db, vins, start, end) {
  const row = await db.selectFrom('telemetry').select((eb) => eb.fn.countAll().as('n'))
    .where('vin', 'in', vins).where('ts', '>=', start).where('ts', '<=', end).executeTakeFirstOrThrow();
  return Number(row.n);
}
