/**
 * A simulated vehicle's FMB tracker: its records are AVL records with the IO ids D11 maps (239
 * ignition, 240 movement, 16 odometer m, 66 external voltage mV, 89 CAN fuel %, 85 CAN rpm, 115
 * CAN engine temperature 0.1 °C, 21 GSM signal), a record taken when the ignition changed naming
 * IO 239 as its trigger, as a tracker configured for ignition events does. It keeps one TCP
 * connection (opened when it first has records, reopened after a failure), sends its records in
 * packets as a device does, waiting for each ack, and answers Codec 12 commands as an FMB device
 * words them, applying `setdigout` to the vehicle.
 */
import { recordBatch, type SimulatedRecordBatch, type SimulatedTracker, type SimulatedTrackerVehicle } from '../simulated-tracker.js';
import { parseTcpEndpoint, tcpEndpoint, tcpEndpointProblem } from '../tcp-endpoint.js';
import type { AvlRecord } from './avl-record.js';
import { TeltonikaTrackerClient } from './simulated-client.js';

/** Records per packet: a 50-record 8E packet of these records is about 3.5 KB. */
export const RECORDS_PER_PACKET = 50;
const GPS_NOISE_DEG = 0.00002;

/** Why `endpoint` is not `host:port` (the Teltonika listener's TCP port); undefined when it is. */
export const teltonikaEndpointProblem = (endpoint: string): string | undefined => tcpEndpointProblem(endpoint, '--teltonika', '127.0.0.1:5027');

export const teltonikaEndpoint = tcpEndpoint;

export function avlSample(vehicle: SimulatedTrackerVehicle, at: number, ignitionChanged: boolean): AvlRecord {
  const r = vehicle.random();
  const io = new Map<number, number>([
    [239, vehicle.ignitionOn ? 1 : 0],
    [240, vehicle.speedKmh > 0 ? 1 : 0],
    [21, 4],
    [66, Math.round(vehicle.lvVoltage * 1000)],
    [16, Math.round(vehicle.odometerKm * 1000)],
    [85, Math.round(vehicle.rpm)],
    // Two's complement over 16 bits: the wire carries every IO value unsigned.
    [115, (Math.round(vehicle.coolantC * 10) + 0x10000) % 0x10000],
  ]);
  if (vehicle.powertrain === 'combustion') io.set(89, Math.round(vehicle.energyPct));
  return {
    timestampMs: at,
    priority: 0,
    latitude: round(vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
    longitude: round(vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
    altitude: 760,
    angle: Math.round(vehicle.heading) % 360,
    satellites: 11,
    speed: Math.round(vehicle.speedKmh),
    eventIoId: ignitionChanged ? 239 : 0,
    io,
  };
}

/**
 * A simulated tracker's answer to a Codec 12 command, as an FMB device words it. `setdigout`
 * drives the relay: the demo wires it to output 1, cut when on (the default of D11).
 */
export function fmbAnswer(vehicle: SimulatedTrackerVehicle | undefined, text: string): string {
  if (!vehicle) return `Unknown command: ${text}`;
  const digout = /^setdigout ([01?]+)/.exec(text);
  if (digout) {
    const state = digout[1]![0];
    if (state === '1' || state === '0') vehicle.immobilized = state === '1';
    return `DOUT1:${state === '1' ? 'ON' : state === '0' ? 'OFF' : 'IGNORED'} Timeout:INFINITY`;
  }
  if (text === 'getinfo') return `RTC:${new Date().toISOString().slice(0, 16).replace('T', ' ')} RST:0 ERR:0 SR:0 BR:0 CF:0 FG:0 FL:0 UT:0 SMS:0 NOGPS:0:0 GPS:1 SAT:11 RS:3 RF:0 SF:1 MD:${vehicle.speedKmh > 0 ? 1 : 0}`;
  return `Unknown command: ${text}`;
}

export class SimulatedTeltonikaTracker implements SimulatedTracker {
  readonly #host: string;
  readonly #port: number;
  readonly #imei: string;
  readonly #vehicle: () => SimulatedTrackerVehicle | undefined;
  #client: TeltonikaTrackerClient | undefined;

  /** `endpoint` is `host:port` (teltonikaEndpointProblem says when it is not). */
  constructor(endpoint: string, imei: string, vehicle: () => SimulatedTrackerVehicle | undefined) {
    const { host, port } = parseTcpEndpoint(endpoint);
    this.#host = host;
    this.#port = port;
    this.#imei = imei;
    this.#vehicle = vehicle;
  }

  batch(): SimulatedRecordBatch {
    return recordBatch(avlSample, (records) => this.#send(records));
  }

  async #send(records: readonly AvlRecord[]): Promise<number> {
    let client = this.#client;
    if (!client?.connected) {
      client?.close();
      client = new TeltonikaTrackerClient({ host: this.#host, port: this.#port, imei: this.#imei, onCommand: (text) => fmbAnswer(this.#vehicle(), text) });
      this.#client = client;
      await client.connect();
    }
    let acknowledged = 0;
    for (let i = 0; i < records.length; i += RECORDS_PER_PACKET) acknowledged += await client.send(records.slice(i, i + RECORDS_PER_PACKET));
    return acknowledged;
  }

  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
