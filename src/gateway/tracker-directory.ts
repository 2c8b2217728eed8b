/**
 * Which vehicle a tracker is, and the one way tracker records enter the intake. A login or a
 * datagram names a device id; only a vehicle of a `device` OEM with that protocol and id answers
 * to it. Lookups go through the registry cache, unknown ids included: a refused id tried again
 * costs no query while the registry is unchanged (a new id costs one). Refusals are logged at
 * most once a minute per id, and at most 100 ids a minute in all.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { IncomingRecord } from '../domain/telemetry-record.js';
import { acceptTelemetry, type IntakeResult, type IntakeSettings } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findTrackedVehicle, type TrackedVehicle } from '../store/vehicles-queries.js';
import type { TrackerProtocol } from './gateway-metrics.js';

const REFUSAL_LOG_WINDOW_MS = 60_000;
const MAX_REFUSALS_LOGGED = 100;

export class TrackerDirectory {
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #intake: IntakeSettings;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  #refusalWindowStart = 0;
  readonly #refusalsLogged = new Set<string>();

  constructor(store: StoreConnection, clock: Clock, intake: IntakeSettings, logger: Logger) {
    this.#store = store;
    this.#clock = clock;
    this.#intake = intake;
    this.#logger = logger;
  }

  find(protocol: TrackerProtocol, deviceId: string): Promise<TrackedVehicle | undefined> {
    return cachedRegistryRead(this.#store, `tracker:${protocol}:${deviceId}`, () => findTrackedVehicle(this.#store.db, protocol, deviceId));
  }

  /** Stores what a tracker sent (D8 checks, idempotency and events are the intake's). */
  deliver(protocol: TrackerProtocol, deviceId: string, vehicle: TrackedVehicle, records: readonly IncomingRecord[]): Promise<IntakeResult> {
    const work = acceptTelemetry(this.#store, { kind: 'device', protocol, deviceId, vin: vehicle.vin }, records, this.#clock.now(), this.#intake);
    this.#inFlight.add(work);
    void work.catch(() => undefined).finally(() => this.#inFlight.delete(work));
    return work;
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
    const now = this.#clock.now();
    if (now - this.#refusalWindowStart >= REFUSAL_LOG_WINDOW_MS) {
      this.#refusalWindowStart = now;
      this.#refusalsLogged.clear();
    }
    const key = `${protocol}:${deviceId}`;
    if (this.#refusalsLogged.has(key) || this.#refusalsLogged.size >= MAX_REFUSALS_LOGGED) return;
    this.#refusalsLogged.add(key);
    this.#logger.warn({ protocol, deviceId, address }, 'tracker refused: its id is not registered to a vehicle of a device OEM');
  }
}
