/**
 * Which vehicle a tracker is, and the one way tracker records enter the intake. A login or a
 * datagram names a device id; only a vehicle of a `device` OEM with that protocol and id answers
 * to it. Lookups go through the registry cache, unknown ids included: a refused id tried again
 * costs no query while the registry is unchanged (a new id costs one), and refused ids are kept
 * apart from the rows found, so a flood of them never pushes out the vehicles the API serves
 * (registry-cache.ts). Refusals are logged at most once a minute per id, and at most 100 ids a
 * minute in all.
 *
 * Deliveries are committed in groups: packets that arrive while a group is being stored wait and
 * go together in the next one (one insert for many trackers, each still acknowledged only after
 * its records are stored). Under light load a group is one packet, stored at once; under load
 * the groups grow, which is where one statement per packet was the limit (bench/RESULTS.md).
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { IncomingRecord } from '../domain/telemetry-record.js';
import { acceptTelemetryBatches, type IntakeBatch, type IntakeResult, type IntakeSettings } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findTrackedVehicle, type TrackedVehicle } from '../store/vehicles-queries.js';
import type { TrackerProtocol } from './gateway-metrics.js';
import { OncePerWindow } from './once-per-window.js';

const REFUSAL_LOG_WINDOW_MS = 60_000;
/** Records stored in one group at most; a larger backlog goes in the next group. */
const MAX_GROUP_RECORDS = 5000;
/**
 * Groups stored at once. PostgreSQL answers over the network, so while one group waits for its
 * round trips the next is sent (rows are inserted in key order, so two groups cannot deadlock);
 * SQLite stores synchronously on this thread, where a second group would only wait.
 */
const GROUPS_IN_FLIGHT = { networked: 2, embedded: 1 } as const;

interface PendingDelivery extends IntakeBatch {
  resolve(result: IntakeResult): void;
  reject(error: unknown): void;
}
const MAX_REFUSALS_LOGGED = 100;

export class TrackerDirectory {
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #intake: IntakeSettings;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  #waiting: PendingDelivery[] = [];
  #groupsStoring = 0;
  readonly #maxGroups: number;
  readonly #refusalsLogged = new OncePerWindow(REFUSAL_LOG_WINDOW_MS, MAX_REFUSALS_LOGGED);

  constructor(store: StoreConnection, clock: Clock, intake: IntakeSettings, logger: Logger) {
    this.#store = store;
    this.#clock = clock;
    this.#intake = intake;
    this.#logger = logger;
    this.#maxGroups = store.capabilities.arrayParameters ? GROUPS_IN_FLIGHT.networked : GROUPS_IN_FLIGHT.embedded;
  }

  find(protocol: TrackerProtocol, deviceId: string): Promise<TrackedVehicle | undefined> {
    return cachedRegistryRead(this.#store, `tracker:${protocol}:${deviceId}`, () => findTrackedVehicle(this.#store.db, protocol, deviceId), { lastKnownDuringOutage: this.#intake.queue !== undefined });
  }

  /** Stores what a tracker sent (D8 checks, idempotency and events are the intake's); resolves once stored. */
  deliver(protocol: TrackerProtocol, deviceId: string, vehicle: TrackedVehicle, records: readonly IncomingRecord[]): Promise<IntakeResult> {
    const work = new Promise<IntakeResult>((resolve, reject) => {
      this.#waiting.push({ source: { kind: 'device', protocol, deviceId, vin: vehicle.vin }, records, resolve, reject });
    });
    if (this.#groupsStoring < this.#maxGroups) this.#storeWaiting();
    this.#inFlight.add(work);
    void work.catch(() => undefined).finally(() => this.#inFlight.delete(work));
    return work;
  }

  /** Stores the deliveries waiting now as one group, then the ones that arrived meanwhile. */
  #storeWaiting(): void {
    if (this.#waiting.length === 0) return;
    this.#groupsStoring += 1;
    let records = 0;
    let take = 0;
    while (take < this.#waiting.length && (take === 0 || records + this.#waiting[take]!.records.length <= MAX_GROUP_RECORDS)) {
      records += this.#waiting[take]!.records.length;
      take += 1;
    }
    const group = this.#waiting.splice(0, take);
    acceptTelemetryBatches(this.#store, group, this.#clock.now(), this.#intake).then(
      (results) => group.forEach((d, i) => d.resolve(results[i]!)),
      (error: unknown) => group.forEach((d) => d.reject(error)),
    ).finally(() => {
      this.#groupsStoring -= 1;
      this.#storeWaiting();
    });
  }

  /** Settles once every delivery under way has (so the store is closed after them, not under them). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  now(): number {
    return this.#clock.now();
  }

  /** A warning line for a refused tracker, rate-limited (the id is not a secret: it is what the operator must register). */
  logRefusal(protocol: TrackerProtocol, deviceId: string, address: string | undefined): void {
    if (!this.#refusalsLogged.passes(`${protocol}:${deviceId}`, this.#clock.now())) return;
    this.#logger.warn({ protocol, deviceId, address }, 'tracker refused: its id is not registered to a vehicle of a device OEM');
  }
}
