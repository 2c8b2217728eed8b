/**
 * A simulated vehicle tracked by a phone app: each record is a location as Traccar Client 9 sends
 * it (speed in m/s), POSTed to the OsmAnd listener. A phone takes no command.
 */
import { recordBatch, type SimulatedRecordBatch, type SimulatedTracker, type SimulatedTrackerVehicle } from '../simulated-tracker.js';
import { postOsmandLocations, type OsmandLocation } from './simulated-client.js';

const GPS_NOISE_DEG = 0.00002;

/** Why `endpoint` is not the OsmAnd listener's URL; undefined when it is. */
export const osmandEndpointProblem = (endpoint: string): string | undefined =>
  /^https?:\/\/\S+$/.test(endpoint) ? undefined : '--osmand-url must be an http:// or https:// URL';

/** The listener's URL, an IPv6 host in brackets. */
export const osmandEndpoint = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;

export function osmandSample(vehicle: SimulatedTrackerVehicle, at: number): OsmandLocation {
  const r = vehicle.random();
  const moving = vehicle.speedKmh > 0;
  return {
    timestamp: new Date(at).toISOString(),
    coords: {
      latitude: round(vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
      longitude: round(vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
      speed: round(vehicle.speedKmh / 3.6, 2),
      // A phone knows no heading while standing still.
      heading: moving ? round(vehicle.heading, 1) : -1,
      accuracy: 5,
      altitude: 760,
    },
    is_moving: moving,
    battery: { level: 0.8, is_charging: true },
  };
}

export class SimulatedOsmandPhone implements SimulatedTracker {
  readonly #url: string;
  readonly #deviceId: string;

  constructor(url: string, deviceId: string) {
    this.#url = url;
    this.#deviceId = deviceId;
  }

  batch(): SimulatedRecordBatch {
    return recordBatch((vehicle, at) => osmandSample(vehicle, at), (locations) => postOsmandLocations(this.#url, this.#deviceId, locations));
  }

  /** Nothing to close: each POST is its own request. */
  close(): void {}
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
