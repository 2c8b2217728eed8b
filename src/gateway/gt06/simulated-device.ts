/**
 * A simulated vehicle's GT06/Concox tracker: each record is an 0x22 location (GPS, cell, ACC,
 * mileage in metres) as a GT06N sends one. It keeps one TCP connection (opened when it first has
 * records, reopened after a failure) and answers commands as Concox firmware words them, applying
 * `Relay,1#`/`Relay,0#` to the vehicle: the demo wires the relay to cut when on (D11's default).
 */
import { recordBatch, type SimulatedRecordBatch, type SimulatedTracker, type SimulatedTrackerVehicle } from '../simulated-tracker.js';
import { parseTcpEndpoint, tcpEndpoint, tcpEndpointProblem } from '../tcp-endpoint.js';
import type { DeviceLocation } from './encode.js';
import { Gt06TrackerClient } from './simulated-client.js';

/** Locations per write: a device buffers no more than this between heartbeats here. */
export const LOCATIONS_PER_WRITE = 50;
const GPS_NOISE_DEG = 0.00002;
/** Vivo's network in São Paulo: the demo fleet drives there. */
const DEMO_CELL = { mcc: 724, mnc: 11, lac: 0x1f4a, cellId: 0x00a3c2 } as const;

/** Why `endpoint` is not `host:port` (the GT06 listener's TCP port); undefined when it is. */
export const gt06EndpointProblem = (endpoint: string): string | undefined => tcpEndpointProblem(endpoint, '--gt06', '127.0.0.1:5023');

export const gt06Endpoint = tcpEndpoint;

export function gt06Sample(vehicle: SimulatedTrackerVehicle, at: number): DeviceLocation {
  const r = vehicle.random();
  return {
    timeMs: at,
    latitude: vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG),
    longitude: vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG),
    speedKmh: Math.round(vehicle.speedKmh),
    course: Math.round(vehicle.heading) % 360,
    satellites: 9,
    fixed: true,
    acc: vehicle.ignitionOn,
    mileage: Math.round(vehicle.odometerKm * 1000),
    cell: DEMO_CELL,
  };
}

/** A Concox device's answer to a command text, as its firmware words it (research note §3). */
export function concoxAnswer(vehicle: SimulatedTrackerVehicle | undefined, text: string): string {
  if (!vehicle) return 'Command error!';
  const relay = /^relay,([01])#$/i.exec(text);
  if (relay) {
    const cut = relay[1] === '1';
    if (vehicle.immobilized === cut) return `Already in the state of fuel supply to ${cut ? 'cut off' : 'resume'},the command is not running!`;
    vehicle.immobilized = cut;
    return cut ? 'Cut off the fuel supply: Success!' : 'Restore fuel supply: Success!';
  }
  if (/^status#$/i.test(text)) {
    return `Battery:6,GPRS:Link Up,GSM Signal Level:Strong,GPS:Successful positioning,SVs in use:9,Defense:Off,ACC:${vehicle.ignitionOn ? 'On' : 'Off'},Oil:${vehicle.immobilized ? 'Cut' : 'Connected'}`;
  }
  return 'Command error!';
}

export class SimulatedGt06Tracker implements SimulatedTracker {
  readonly #host: string;
  readonly #port: number;
  readonly #imei: string;
  readonly #vehicle: () => SimulatedTrackerVehicle | undefined;
  #client: Gt06TrackerClient | undefined;

  /** `endpoint` is `host:port` (gt06EndpointProblem says when it is not). */
  constructor(endpoint: string, imei: string, vehicle: () => SimulatedTrackerVehicle | undefined) {
    const { host, port } = parseTcpEndpoint(endpoint);
    this.#host = host;
    this.#port = port;
    this.#imei = imei;
    this.#vehicle = vehicle;
  }

  batch(): SimulatedRecordBatch {
    return recordBatch((vehicle, at) => gt06Sample(vehicle, at), (locations) => this.#send(locations));
  }

  async #send(locations: readonly DeviceLocation[]): Promise<number> {
    let client = this.#client;
    if (!client?.connected) {
      client?.close();
      client = new Gt06TrackerClient({
        host: this.#host,
        port: this.#port,
        imei: this.#imei,
        onCommand: (text) => concoxAnswer(this.#vehicle(), text),
        state: () => ({ acc: this.#vehicle()?.ignitionOn ?? false, relayCut: this.#vehicle()?.immobilized ?? false }),
      });
      this.#client = client;
      await client.connect();
    }
    let sent = 0;
    for (let i = 0; i < locations.length; i += LOCATIONS_PER_WRITE) sent += await client.send(locations.slice(i, i + LOCATIONS_PER_WRITE));
    return sent;
  }

  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }
}
