/**
 * The link port (domain/oem-connector.ts) for vehicles reached through their own trackers (D11).
 * `initiate` writes the command's exchange row (its text as the tracker's protocol words it: the
 * protocol module's downlink) for whichever gateway holds the tracker's connection to send; `poll`
 * reads what came of it, and asks the same downlink whether the answer means the command ran.
 * Nothing here touches a socket, so the API, the workers and the gateway may run in different
 * processes (`serve --role`).
 *
 * Status URLs are `device:<command id>`; a repeated initiation of a command (after a crash, with
 * the same id) finds its row and is answered the same URL, and the tracker is sent it once.
 * Whether an ignition command may go (D11: not while the vehicle moves) is not judged here: the
 * stored records any source naming the vehicle may have written (a UDP datagram with its IMEI,
 * say), so a record that could block or release the relay from here could be anyone's. The
 * gateway judges it from the records of the very connection that would carry it
 * (tracker-command-dispatcher.ts), and a refusal reaches `poll` through the row. A tracker that
 * never connects leaves the command to its deadline.
 */
import type { Clock } from '../domain/clock.js';
import { OemFailure, type CommandRequest, type CommandState, type OemConnector } from '../domain/oem-connector.js';
import { formatSpacedLocal } from '../domain/time.js';
import { isDeviceProtocol, parseImmobilizer } from '../domain/trackers.js';
import type { StoreConnection } from '../store/connection.js';
import { findDeviceCommand, insertDeviceCommand, type DeviceCommandRow } from '../store/device-commands-queries.js';
import { latestValues } from '../store/telemetry/read.js';
import { findVehicleTracker } from '../store/vehicles-queries.js';
import type { TrackerDownlink } from './tracker-protocol-module.js';
import { TRACKER_PROTOCOLS, trackerProtocol } from './tracker-protocols.js';

export interface TrackerLinkSettings {
  /** How long an unsent command waits for its tracker: the command's own deadline. */
  readonly commandTimeoutMs: number;
}

const STATUS_PREFIX = 'device:';

export class TrackerCommandLink implements OemConnector {
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #settings: TrackerLinkSettings;

  constructor(store: StoreConnection, clock: Clock, settings: TrackerLinkSettings) {
    this.#store = store;
    this.#clock = clock;
    this.#settings = settings;
  }

  async initiate(request: CommandRequest): Promise<{ statusUrl: string }> {
    const tracker = await findVehicleTracker(this.#store.db, request.vin);
    const immobilizer = parseImmobilizer(tracker?.deviceSettings ?? null);
    const text = immobilizer && downlinkOf(tracker?.protocol)?.text(request.command, immobilizer);
    if (!tracker?.deviceId || !text) throw new OemFailure('initiate', `vehicle ${request.vin} has no tracker that takes ${request.command}`);
    const now = this.#clock.now();
    await insertDeviceCommand(this.#store.db, {
      command_id: request.commandId, vin: request.vin, device_id: tracker.deviceId, command: request.command, text, created_at: now,
      deadline_at: now + this.#settings.commandTimeoutMs, refusal: null,
    });
    return { statusUrl: `${STATUS_PREFIX}${request.commandId}` };
  }

  async poll(statusUrl: string): Promise<CommandState> {
    const row = statusUrl.startsWith(STATUS_PREFIX) ? await findDeviceCommand(this.#store.db, statusUrl.slice(STATUS_PREFIX.length)) : undefined;
    if (!row) return { state: 'error', reason: 'internal' };
    if (row.refusal !== null) return { state: 'error', reason: row.refusal };
    if (row.answered_at === null) return { state: 'pending' };
    const tracker = await findVehicleTracker(this.#store.db, row.vin);
    if (!answerRan(row, tracker?.deviceId === row.device_id ? tracker.protocol : null)) return { state: 'error', reason: 'unsupported' };
    return { state: 'success', result: await this.#result(row.vin, row.command, row.answered_at, tracker?.fuelCapacity ?? null) };
  }

  /**
   * What the interface's result fields can say. The tracker's own answer (`DOUT1:ON …`, getinfo's
   * runtime report) has no field there; it stays in the exchange row for the operator.
   */
  async #result(vin: string, command: string, answeredAt: number, capacity: number | null): Promise<Record<string, unknown>> {
    const date_time = formatSpacedLocal(answeredAt);
    if (command === 'disable_ignition') return { ignition: 'disabled', date_time };
    if (command === 'enable_ignition') return { ignition: 'enabled', date_time };
    const latest = await latestValues(this.#store.db, vin, ['odometer', 'fuel_level']);
    const level = typeof latest.fuel_level === 'number' ? latest.fuel_level : null;
    return {
      odometer: latest.odometer ?? undefined,
      fuel_level: level,
      fuel_capacity: capacity,
      fuel_amount: level !== null && capacity !== null ? Math.round(level * capacity) / 100 : null,
      date_time,
    };
  }
}

const downlinkOf = (protocol: string | null | undefined): TrackerDownlink | null =>
  isDeviceProtocol(protocol) ? trackerProtocol(protocol).downlink : null;

/**
 * Whether the tracker's answer says it ran the command, by the rules of the protocol that carried
 * it: the vehicle's tracker, while it is still the one the command was written for. A row whose
 * vehicle has another tracker since (or none) is judged by any protocol's rules.
 */
function answerRan(row: DeviceCommandRow, protocol: string | null): boolean {
  const carrier = downlinkOf(protocol);
  const rules = carrier ? [carrier] : TRACKER_PROTOCOLS.flatMap(({ downlink }) => (downlink ? [downlink] : []));
  return rules.some((downlink) => downlink.ran(row.command, row.answer ?? ''));
}
