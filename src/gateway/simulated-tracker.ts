/**
 * A vehicle's own tracker as the demo's simulated fleet and the tests drive it: each protocol's
 * `simulated-device.ts` makes one (through its module's `simulated.device`), speaking the real
 * protocol over a real socket to the gateway.
 */
import type { DeviceProtocol } from '../domain/trackers.js';

/** What a simulated vehicle shows its tracker (sim/simulated-vehicle.ts is one). */
export interface SimulatedTrackerVehicle {
  readonly position: { readonly lat: number; readonly lon: number };
  /** Degrees clockwise from north. */
  readonly heading: number;
  readonly speedKmh: number;
  readonly ignitionOn: boolean;
  readonly odometerKm: number;
  readonly lvVoltage: number;
  readonly rpm: number;
  readonly coolantC: number;
  /** Fuel level (combustion) or state of charge (electric), percent. */
  readonly energyPct: number;
  readonly powertrain: 'combustion' | 'electric';
  /** What a relay command sets: a cut relay keeps the vehicle parked. */
  immobilized: boolean;
  /** The vehicle's own seeded stream (GPS noise), so a run is reproducible. */
  random(): { between(min: number, max: number): number };
}

export interface SimulatedTracker {
  /** A new batch of this tracker's records, sent together. */
  batch(): SimulatedRecordBatch;
  /** Closes its connection, if it has one; the next batch sent opens another. */
  close(): void;
}

export interface SimulatedRecordBatch {
  /** Takes what `vehicle` shows at `at` as one record (`ignitionChanged`: since the previous one). */
  add(vehicle: SimulatedTrackerVehicle, at: number, ignitionChanged: boolean): void;
  /** Records taken and not sent yet. */
  readonly size: number;
  /** Sends the records taken (in as many packets or requests as the protocol needs); resolves with how many the gateway acknowledged. */
  send(): Promise<number>;
}

/** Where each protocol's simulated trackers connect; a protocol absent: its trackers send nothing. */
export type TrackerEndpoints = { readonly [P in DeviceProtocol]?: string | undefined };

/** A batch whose records are `sample`'s, handed to `sendAll` together. */
export function recordBatch<R>(
  sample: (vehicle: SimulatedTrackerVehicle, at: number, ignitionChanged: boolean) => R, sendAll: (records: readonly R[]) => Promise<number>,
): SimulatedRecordBatch {
  let records: R[] = [];
  return {
    add: (vehicle, at, ignitionChanged) => { records.push(sample(vehicle, at, ignitionChanged)); },
    get size() { return records.length; },
    send: async () => {
      const taken = records;
      records = [];
      return taken.length === 0 ? 0 : sendAll(taken);
    },
  };
}
