/**
 * How simulated trackers reach the service: each Teltonika tracker keeps its own TCP connection
 * to the gateway (opened when it first has records, reopened after a failure) and sends its
 * records in packets as a device does, waiting for each ack; each phone POSTs its locations in
 * the JSON form of Traccar Client 9 to the OsmAnd listener. A Teltonika tracker answers Codec 12
 * commands through `onCommand` (the simulator applies `setdigout` to the vehicle).
 */
import type { AvlRecord } from '../gateway/teltonika/avl-record.js';
import { TeltonikaTrackerClient } from '../gateway/teltonika/simulated-client.js';
import type { OsmandLocation } from './tracker-samples.js';

export interface TrackerEndpoints {
  /** The gateway's Teltonika port; absent: Teltonika trackers are not simulated. */
  readonly teltonika?: { readonly host: string; readonly port: number } | undefined;
  /** The OsmAnd listener's base URL; absent: phones are not simulated. */
  readonly osmandUrl?: string | undefined;
}

/** Records per packet: a 50-record 8E packet of these records is about 3.5 KB. */
export const RECORDS_PER_PACKET = 50;
/** Locations per POST: the OsmAnd listener takes up to 500. */
export const LOCATIONS_PER_POST = 500;

export class TrackerUplinks {
  readonly #endpoints: TrackerEndpoints;
  readonly #onCommand: (imei: string, text: string) => string;
  readonly #teltonika = new Map<string, TeltonikaTrackerClient>();

  constructor(endpoints: TrackerEndpoints, onCommand: (imei: string, text: string) => string) {
    this.#endpoints = endpoints;
    this.#onCommand = onCommand;
  }

  accepts(protocol: string): boolean {
    return protocol === 'teltonika' ? this.#endpoints.teltonika !== undefined : protocol === 'osmand' && this.#endpoints.osmandUrl !== undefined;
  }

  /** Sends records in packets; resolves with how many were acknowledged. */
  async sendTeltonika(imei: string, records: readonly AvlRecord[]): Promise<number> {
    let client = this.#teltonika.get(imei);
    if (!client?.connected) {
      client?.close();
      const { host, port } = this.#endpoints.teltonika!;
      client = new TeltonikaTrackerClient({ host, port, imei, onCommand: (text) => this.#onCommand(imei, text) });
      this.#teltonika.set(imei, client);
      await client.connect();
    }
    let acknowledged = 0;
    for (let i = 0; i < records.length; i += RECORDS_PER_PACKET) acknowledged += await client.send(records.slice(i, i + RECORDS_PER_PACKET));
    return acknowledged;
  }

  async sendOsmand(deviceId: string, locations: readonly OsmandLocation[]): Promise<number> {
    let sent = 0;
    for (let i = 0; i < locations.length; i += LOCATIONS_PER_POST) {
      const batch = locations.slice(i, i + LOCATIONS_PER_POST);
      const res = await fetch(this.#endpoints.osmandUrl!, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device_id: deviceId, location: batch }), signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`OsmAnd listener answered ${res.status} for device ${deviceId}`);
      sent += batch.length;
    }
    return sent;
  }

  close(): void {
    for (const client of this.#teltonika.values()) client.close();
    this.#teltonika.clear();
  }
}
