/**
 * The simulated fleet: advances every vehicle on a fixed time grid (multiples of the sampling
 * period since the epoch, so the same seed gives the same instants) and pushes their records to
 * the ingest endpoint in batches. `backfill` generates history fast; `start` keeps up with a
 * clock, one period at a time.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { VehicleDevice } from '../domain/trackers.js';
import type { SimulatedRecordBatch, TrackerEndpoints } from '../gateway/simulated-tracker.js';
import { startPeriodic, type StopLoop } from '../workers/periodic.js';
import { pushRecords } from './ingest-client.js';
import { SimulatedVehicle, type DriveLogEntry, type VehicleStart } from './simulated-vehicle.js';
import { sampleTelemetry, type IngestRecord } from './telemetry-sample.js';
import { TrackerUplinks } from './tracker-uplinks.js';

export interface SimulatedFleetVehicle {
  readonly start: VehicleStart;
  readonly oem: string;
  readonly ingestKey: string;
  /** First instant to generate (epoch ms); earlier ones are already stored. */
  readonly from: number;
  /** False: the vehicle lives (and answers commands) but sends no telemetry (`sim.telemetry: false`). */
  readonly telemetry?: boolean;
  /** Its own tracker, when its OEM is a `device` OEM: records go through the gateway, not /ingest. */
  readonly tracker?: VehicleDevice | undefined;
}

export interface SimulatorOptions {
  readonly ingestUrl: string;
  /** Sampling period, seconds. */
  readonly periodSeconds: number;
  /** Share of samples with one glitched value. */
  readonly glitchRate: number;
  readonly seed: number;
  readonly logger?: Logger | undefined;
  /** Where simulated trackers connect; without it, vehicles with a tracker send nothing. */
  readonly trackers?: TrackerEndpoints | undefined;
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
  /** The ignition at its previous sample: a tracker marks the record where it changed. */
  ignition?: boolean;
}

/** Records waiting for one destination: an automaker's /ingest, or one tracker (in its protocol's shape). */
type Outbox =
  | { readonly kind: 'ingest'; readonly oem: string; key: string; records: IngestRecord[] }
  | { readonly kind: 'tracker'; readonly records: SimulatedRecordBatch };

export class FleetSimulator {
  #members: Member[];
  readonly #options: SimulatorOptions;
  readonly #periodMs: number;
  readonly #trackers: TrackerUplinks;

  constructor(vehicles: readonly SimulatedFleetVehicle[], options: SimulatorOptions) {
    this.#options = options;
    this.#periodMs = options.periodSeconds * 1000;
    this.#members = vehicles.map((vehicle) => this.#member(vehicle));
    this.#trackers = new TrackerUplinks(options.trackers ?? {}, (protocol, id) =>
      this.#members.find((m) => m.vehicle.tracker?.protocol === protocol && m.vehicle.tracker.id === id)?.model);
  }

  /**
   * Whether the vehicle sends records now: not with `sim.telemetry: false`, and a tracker only
   * when its listener is known and it is not `offline` (an offline tracker never connects, so its
   * commands time out).
   */
  #reports(member: Member): boolean {
    const { telemetry, tracker } = member.vehicle;
    if (telemetry === false) return false;
    return tracker === undefined || (this.#trackers.accepts(tracker.protocol) && member.model.profile !== 'offline');
  }

  /** Closes the simulated trackers' connections. */
  closeTrackers(): void {
    this.#trackers.close();
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
    return this.#members.filter((m) => this.#reports(m))
      .reduce((n, m) => n + Math.max(0, Math.floor((until - m.next) / this.#periodMs) + 1), 0);
  }

  /** Generates and pushes every record up to `until`, reporting progress as batches are accepted. */
  async runUntil(until: number, onProgress?: (done: number, total: number) => void, signal?: AbortSignal): Promise<PushReport> {
    const total = this.pendingRecords(until);
    const report: PushReport = { records: 0, accepted: 0, rejected: 0 };
    const outboxes = new Map<string, Outbox>();
    const flush = async (outbox: Outbox) => {
      const count = outbox.kind === 'ingest' ? outbox.records.length : outbox.records.size;
      if (count === 0) return;
      if (outbox.kind === 'ingest') {
        const records = outbox.records;
        outbox.records = [];
        const answer = await pushRecords(this.#options.ingestUrl, outbox.oem, outbox.key, records);
        report.accepted += answer.accepted;
        report.rejected += answer.rejected.length;
        for (const r of answer.rejected.slice(0, 3)) this.#options.logger?.warn({ oem: outbox.oem, reason: r.reason, record: records[r.index] }, 'simulated record rejected');
      } else {
        report.accepted += await outbox.records.send();
      }
      report.records += count;
      onProgress?.(report.records, total);
    };
    const outboxOf = (member: Member): Outbox => {
      const { tracker, oem, ingestKey } = member.vehicle;
      const key = tracker ? `${tracker.protocol}:${tracker.id}` : `ingest:${oem}`;
      const existing = outboxes.get(key);
      if (existing) return existing;
      const outbox: Outbox = tracker
        ? { kind: 'tracker', records: this.#trackers.device(tracker.protocol, tracker.id).batch() }
        : { kind: 'ingest', oem, key: ingestKey, records: [] };
      outboxes.set(key, outbox);
      return outbox;
    };

    const start = Math.min(...this.#members.map((m) => m.next));
    for (let t = start; t <= until && !signal?.aborted; t += this.#periodMs) {
      for (const member of this.#members) {
        if (member.next > t) continue;
        member.model.step(t, this.#options.periodSeconds);
        member.next = t + this.#periodMs;
        const ignitionChanged = member.ignition !== undefined && member.ignition !== member.model.ignitionOn;
        member.ignition = member.model.ignitionOn;
        if (!this.#reports(member)) continue;
        const outbox = outboxOf(member);
        if (outbox.kind === 'ingest') {
          outbox.key = member.vehicle.ingestKey;
          outbox.records.push(sampleTelemetry(member.model, t, this.#options.glitchRate));
          if (outbox.records.length >= BATCH_SIZE) await flush(outbox);
        } else {
          outbox.records.add(member.model, t, ignitionChanged);
          if (outbox.records.size >= BATCH_SIZE) await flush(outbox);
        }
      }
    }
    for (const outbox of outboxes.values()) await flush(outbox);
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
