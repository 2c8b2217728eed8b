/**
 * The simulated fleet: advances every vehicle on a fixed time grid (multiples of the sampling
 * period since the epoch, so the same seed gives the same instants) and pushes their records to
 * the ingest endpoint in batches. `backfill` generates history fast; `start` keeps up with a
 * clock, one period at a time.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { startPeriodic, type StopLoop } from '../workers/periodic.js';
import { pushRecords } from './ingest-client.js';
import { SimulatedVehicle, type DriveLogEntry, type VehicleStart } from './simulated-vehicle.js';
import { sampleTelemetry, type IngestRecord } from './telemetry-sample.js';

export interface SimulatedFleetVehicle {
  readonly start: VehicleStart;
  readonly oem: string;
  readonly ingestKey: string;
  /** First instant to generate (epoch ms); earlier ones are already stored. */
  readonly from: number;
  /** False: the vehicle lives (and answers commands) but sends no telemetry (`sim.telemetry: false`). */
  readonly telemetry?: boolean;
}

export interface SimulatorOptions {
  readonly ingestUrl: string;
  /** Sampling period, seconds. */
  readonly periodSeconds: number;
  /** Share of samples with one glitched value. */
  readonly glitchRate: number;
  readonly seed: number;
  readonly logger?: Logger | undefined;
}

export interface PushReport {
  records: number;
  accepted: number;
  rejected: number;
}

/** Records per POST: the ingest batch size the benchmarks measure. */
export const BATCH_SIZE = 500;

interface Member {
  vehicle: SimulatedFleetVehicle;
  readonly model: SimulatedVehicle;
  /** Next grid instant this vehicle reports. */
  next: number;
}

export class FleetSimulator {
  #members: Member[];
  readonly #options: SimulatorOptions;
  readonly #periodMs: number;

  constructor(vehicles: readonly SimulatedFleetVehicle[], options: SimulatorOptions) {
    this.#options = options;
    this.#periodMs = options.periodSeconds * 1000;
    this.#members = vehicles.map((vehicle) => this.#member(vehicle));
  }

  #member(vehicle: SimulatedFleetVehicle): Member {
    return { vehicle, model: new SimulatedVehicle(vehicle.start, this.#options.seed), next: Math.ceil(vehicle.from / this.#periodMs) * this.#periodMs };
  }

  /** VINs simulated now. */
  get vins(): ReadonlySet<string> {
    return new Set(this.#members.map((m) => m.model.vin));
  }

  /**
   * Follows the registry while running: vehicles in `current` not simulated yet join (from their
   * own `from`), those gone leave, and a kept one takes its new profile and telemetry switch.
   * Answers the VINs that joined and left.
   */
  sync(current: readonly SimulatedFleetVehicle[]): { added: string[]; removed: string[] } {
    const byVin = new Map(current.map((v) => [v.start.vin, v]));
    const removed = this.#members.filter((m) => !byVin.has(m.model.vin)).map((m) => m.model.vin);
    this.#members = this.#members.filter((m) => byVin.has(m.model.vin));
    for (const member of this.#members) {
      const now = byVin.get(member.model.vin)!;
      member.vehicle = { ...member.vehicle, telemetry: now.telemetry, ingestKey: now.ingestKey };
      member.model.profile = now.start.profile;
      byVin.delete(member.model.vin);
    }
    const added = [...byVin.values()].map((v) => {
      this.#members.push(this.#member(v));
      return v.start.vin;
    });
    return { added, removed };
  }

  get vehicles(): readonly SimulatedVehicle[] {
    return this.#members.map((m) => m.model);
  }

  vehicle(vin: string): SimulatedVehicle | undefined {
    return this.#members.find((m) => m.model.vin === vin)?.model;
  }

  /** Every drive finished so far, in the order they ended. */
  get driveLog(): DriveLogEntry[] {
    return this.#members.flatMap((m) => m.model.driveLog).sort((a, b) => a.end - b.end);
  }

  /** How many records generating up to `until` will produce. */
  pendingRecords(until: number): number {
    return this.#members.filter((m) => m.vehicle.telemetry !== false)
      .reduce((n, m) => n + Math.max(0, Math.floor((until - m.next) / this.#periodMs) + 1), 0);
  }

  /** Generates and pushes every record up to `until`, reporting progress as batches are accepted. */
  async runUntil(until: number, onProgress?: (done: number, total: number) => void, signal?: AbortSignal): Promise<PushReport> {
    const total = this.pendingRecords(until);
    const report: PushReport = { records: 0, accepted: 0, rejected: 0 };
    const buffers = new Map<string, { key: string; records: IngestRecord[] }>();
    const flush = async (oem: string) => {
      const buffer = buffers.get(oem);
      if (!buffer || buffer.records.length === 0) return;
      const records = buffer.records;
      buffer.records = [];
      const answer = await pushRecords(this.#options.ingestUrl, oem, buffer.key, records);
      report.records += records.length;
      report.accepted += answer.accepted;
      report.rejected += answer.rejected.length;
      for (const r of answer.rejected.slice(0, 3)) this.#options.logger?.warn({ oem, reason: r.reason, record: records[r.index] }, 'simulated record rejected');
      onProgress?.(report.records, total);
    };

    const start = Math.min(...this.#members.map((m) => m.next));
    for (let t = start; t <= until && !signal?.aborted; t += this.#periodMs) {
      for (const member of this.#members) {
        if (member.next > t) continue;
        member.model.step(t, this.#options.periodSeconds);
        member.next = t + this.#periodMs;
        if (member.vehicle.telemetry === false) continue;
        let buffer = buffers.get(member.vehicle.oem);
        if (!buffer) buffers.set(member.vehicle.oem, (buffer = { key: member.vehicle.ingestKey, records: [] }));
        buffer.records.push(sampleTelemetry(member.model, t, this.#options.glitchRate));
        if (buffer.records.length >= BATCH_SIZE) await flush(member.vehicle.oem);
      }
    }
    for (const oem of buffers.keys()) await flush(oem);
    return report;
  }

  /**
   * Keeps generating as the clock moves, one period at a time, until the returned stop is called.
   * Not a service worker (it is the simulated world, started by `--sim` or `oem-sim`, never by a
   * role), but paced by the same loop. A failed push is expected while the service restarts: a
   * warning, and the next period carries on.
   */
  start(clock: Clock, beforeEachPeriod?: () => Promise<void>): StopLoop {
    return startPeriodic({
      name: 'simulated fleet',
      intervalMs: this.#periodMs,
      runOnce: async () => {
        await beforeEachPeriod?.().catch((error: unknown) => {
          this.#options.logger?.warn({ err: error }, 'simulated fleet could not read the registry; keeps its vehicles');
        });
        await this.runUntil(clock.now()).catch((error: unknown) => {
          this.#options.logger?.warn({ err: error }, 'simulated telemetry push failed; will retry next period');
        });
      },
    });
  }
}
