/**
 * Which vehicle a tracker is. A login or a datagram names a device id; only a vehicle of a
 * `device` OEM with that protocol and id answers to it. Lookups go through the registry cache,
 * unknown ids included: a refused id tried again costs no query while the registry is unchanged
 * (a new id costs one), and refused ids are kept apart from the rows found, so a flood of them
 * never pushes out the vehicles the API serves (registry-cache.ts). Refusals are logged at most
 * once a minute per id, and at most 100 ids a minute in all.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findTrackedVehicle, type TrackedVehicle } from '../store/vehicles-queries.js';
import { OncePerWindow } from './once-per-window.js';

const REFUSAL_LOG_WINDOW_MS = 60_000;
const MAX_REFUSALS_LOGGED = 100;

export class TrackerLookup {
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** With the ingest queue, the last rows read stand in while the database is away (the queue takes the records). */
  readonly #lastKnownDuringOutage: boolean;
  readonly #refusalsLogged = new OncePerWindow(REFUSAL_LOG_WINDOW_MS, MAX_REFUSALS_LOGGED);

  constructor(store: StoreConnection, clock: Clock, logger: Logger, options: { readonly lastKnownDuringOutage: boolean }) {
    this.#store = store;
    this.#clock = clock;
    this.#logger = logger;
    this.#lastKnownDuringOutage = options.lastKnownDuringOutage;
  }

  find(protocol: DeviceProtocol, deviceId: string): Promise<TrackedVehicle | undefined> {
    return cachedRegistryRead(this.#store, `tracker:${protocol}:${deviceId}`, () => findTrackedVehicle(this.#store.db, protocol, deviceId), { lastKnownDuringOutage: this.#lastKnownDuringOutage });
  }

  /** The service clock, which dates what a tracker sends on arrival. */
  now(): number {
    return this.#clock.now();
  }

  /** A warning line for a refused tracker, rate-limited (the id is not a secret: it is what the operator must register). */
  logRefusal(protocol: DeviceProtocol, deviceId: string, address: string | undefined): void {
    if (!this.#refusalsLogged.passes(`${protocol}:${deviceId}`, this.#clock.now())) return;
    this.#logger.warn({ protocol, deviceId, address }, 'tracker refused: its id is not registered to a vehicle of a device OEM');
  }
}
