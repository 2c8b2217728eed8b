/**
 * Which vehicles this process's followers of the store (trip detection, presence) look after: the
 * VINs of the shards it holds a lease on (`vinPartition(vin, TRIP_SHARD_COUNT)`), so `workers`
 * processes on several machines split the fleet instead of each walking all of it. One lease per
 * process serves every follower; its tables keep the name of the first (`trip_shards`,
 * `trip_workers`, migration 0018). Each follower's per-VIN cursor, changed under a guard (the trip
 * cursor claimed with locked rows skipped, the presence row updated from the state it was read
 * in), stays what keeps two processes from doing one vehicle's work twice: a lease only decides
 * who looks, so a lease that lapses mid-pass costs repeated looking, never a trip or an event twice.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { vinPartition } from '../domain/vin-partition.js';
import type { StoreConnection } from '../store/connection.js';
import { TRIP_SHARD_COUNT } from '../store/migrations/0018-trip-shards.js';
import { leaseTripShards, releaseTripShards } from '../store/trip-shards-queries.js';

/** Three passes of the trip worker: a dead worker's shards move within about this long. */
export const VEHICLE_SHARD_LEASE_MS = 15_000;

export class VehicleShardLease {
  readonly owner = `followers-${randomUUID()}`;
  readonly #store: StoreConnection;
  readonly #logger: Logger;
  readonly #leaseMs: number;
  #held = new Set<number>();
  #renewedAt = -Infinity;
  #gains = 0;

  constructor(store: StoreConnection, logger: Logger, leaseMs = VEHICLE_SHARD_LEASE_MS) {
    this.#store = store;
    this.#logger = logger;
    this.#leaseMs = leaseMs;
  }

  /** Renews the lease and takes or gives back shards toward a fair share; logs when the set changes. */
  async renew(now: number): Promise<ReadonlySet<number>> {
    const held = new Set(await leaseTripShards(this.#store.db, this.#store.capabilities, { owner: this.owner, now, leaseMs: this.#leaseMs }));
    this.#renewedAt = now;
    const gained = [...held].filter((s) => !this.#held.has(s));
    const lost = [...this.#held].filter((s) => !held.has(s));
    if (gained.length > 0 || lost.length > 0) {
      // A lone instance taking every shard at start is the usual single-machine case: not news.
      const level = this.#held.size === 0 && held.size === TRIP_SHARD_COUNT ? 'debug' : 'info';
      this.#logger[level]({ held: held.size, of: TRIP_SHARD_COUNT, gained: gained.length, lost: lost.length }, 'vehicle shards moved');
    }
    if (gained.length > 0) this.#gains += 1;
    this.#held = held;
    return held;
  }

  /** Renews when a third of the lease has gone by (a long pass keeps its shards). */
  async keep(now: number): Promise<void> {
    if (now - this.#renewedAt >= this.#leaseMs / 3) await this.renew(now);
  }

  holds(vin: string): boolean {
    return this.#held.has(vinPartition(vin, TRIP_SHARD_COUNT));
  }

  /**
   * How many renewals gained shards: a follower that saw another count last time has vehicles
   * whose changes it never read (another process's, before) and looks at all of them once.
   */
  get gains(): number {
    return this.#gains;
  }

  get held(): ReadonlySet<number> {
    return this.#held;
  }

  async release(): Promise<void> {
    this.#held = new Set();
    await releaseTripShards(this.#store.db, this.owner);
  }
}
