/**
 * The one way tracker records enter the intake, committed in groups: packets that arrive while a
 * group is being stored wait and go together in the next one (one insert for many trackers, each
 * still acknowledged only after its records are stored). Under light load a group is one packet,
 * stored at once; under load the groups grow, which is where one statement per packet was the
 * limit.
 */
import type { Clock } from '../domain/clock.js';
import type { IncomingRecord } from '../domain/telemetry-record.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import { acceptTelemetryBatches, type IntakeBatch, type IntakeResult, type IntakeSettings } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';
import type { TrackedVehicle } from '../store/vehicles-queries.js';

/** Records stored in one group at most; a larger backlog goes in the next group. */
const MAX_GROUP_RECORDS = 5000;
/**
 * Groups stored at once. PostgreSQL writes from several connections, so while one group waits for
 * its round trips the next is sent (rows are inserted in key order, so two groups cannot deadlock);
 * SQLite stores synchronously on this thread, where a second group would only wait.
 */
const GROUPS_IN_FLIGHT = { concurrentWriters: 2, oneWriter: 1 } as const;

interface PendingDelivery extends IntakeBatch {
  resolve(result: IntakeResult): void;
  reject(error: unknown): void;
}

export class IntakeGroups {
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #intake: IntakeSettings;
  readonly #inFlight = new Set<Promise<unknown>>();
  #waiting: PendingDelivery[] = [];
  #groupsStoring = 0;
  readonly #maxGroups: number;

  constructor(store: StoreConnection, clock: Clock, intake: IntakeSettings) {
    this.#store = store;
    this.#clock = clock;
    this.#intake = intake;
    this.#maxGroups = store.capabilities.concurrentWriters ? GROUPS_IN_FLIGHT.concurrentWriters : GROUPS_IN_FLIGHT.oneWriter;
  }

  /** Stores what a tracker sent (D8 checks, idempotency and events are the intake's); resolves once stored. */
  deliver(protocol: DeviceProtocol, deviceId: string, vehicle: TrackedVehicle, records: readonly IncomingRecord[]): Promise<IntakeResult> {
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
}
