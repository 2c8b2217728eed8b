/**
 * How simulated trackers reach the service: one simulated device per tracker, of its protocol's
 * module (gateway/tracker-protocols.ts), sending to that protocol's listener. A device keeps its
 * own connection where its protocol has one, and answers commands for its vehicle as found when
 * the command comes.
 */
import type { DeviceProtocol } from '../domain/trackers.js';
import type { SimulatedTracker, SimulatedTrackerVehicle, TrackerEndpoints } from '../gateway/simulated-tracker.js';
import { trackerProtocol } from '../gateway/tracker-protocols.js';

export class TrackerUplinks {
  readonly #endpoints: TrackerEndpoints;
  readonly #vehicleOf: (protocol: DeviceProtocol, deviceId: string) => SimulatedTrackerVehicle | undefined;
  readonly #devices = new Map<string, SimulatedTracker>();

  constructor(endpoints: TrackerEndpoints, vehicleOf: (protocol: DeviceProtocol, deviceId: string) => SimulatedTrackerVehicle | undefined) {
    this.#endpoints = endpoints;
    this.#vehicleOf = vehicleOf;
  }

  /** Whether trackers of `protocol` have somewhere to send: its listener is known. */
  accepts(protocol: DeviceProtocol): boolean {
    return this.#endpoints[protocol] !== undefined;
  }

  /** The simulated device of one tracker (made when first asked for); its protocol must be accepted. */
  device(protocol: DeviceProtocol, deviceId: string): SimulatedTracker {
    const key = `${protocol}:${deviceId}`;
    let device = this.#devices.get(key);
    if (!device) {
      device = trackerProtocol(protocol).simulated.device(this.#endpoints[protocol]!, deviceId, () => this.#vehicleOf(protocol, deviceId));
      this.#devices.set(key, device);
    }
    return device;
  }

  close(): void {
    for (const device of this.#devices.values()) device.close();
    this.#devices.clear();
  }
}
