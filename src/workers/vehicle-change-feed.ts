/**
 * How a follower of the store (trip detection, presence, the geofence evaluator) learns which
 * vehicles changed since it last looked, instead of visiting every registered vehicle: the rows of
 * `vehicle_activity` (kept by the statement storing telemetry) changed since its last completed
 * look, of the shards its process holds (vehicle-shard-lease.ts), in pages, giving the event loop
 * back between them (event-loop-turns.ts).
 *
 * The feed only says who to look at; each follower's own per-VIN cursor (a trip cursor, a
 * presence row) decides whether there is work, and is what makes a second look harmless. So the
 * feed may look back generously, and does:
 * - `LOOKBACK_MS` behind the start of its last look, for writes committed after they were stamped
 *   and for clocks of several machines a little apart;
 * - a follower's own `lagMs` more, for one that leaves fresh records for later (trip detection
 *   waits out its lateness, and a record may be stamped up to 5 minutes ahead).
 * The first look of a process, and the first after its lease gained shards, reads every vehicle
 * that has reported: what changed before it looked is unknown to it.
 */
import type { StoreConnection } from '../store/connection.js';
import { listChangedVehicles, type ChangedVehicle } from '../store/vehicle-activity-queries.js';
import type { TurnBudget } from './event-loop-turns.js';
import { keysetPages } from './keyset-pages.js';
import type { VehicleShardLease } from './vehicle-shard-lease.js';

export type { ChangedVehicle };

/** Far longer than a storing transaction and the clock difference NTP leaves between machines. */
export const LOOKBACK_MS = 30_000;

export interface VehicleChangeFeedOptions {
  /** How much further back than LOOKBACK_MS this follower reads; 0 by default. */
  readonly lagMs?: number;
}

/** One look: begun at `startedAt`, reading changes from `since` (undefined: every vehicle). */
export interface Look {
  readonly startedAt: number;
  readonly since: number | undefined;
  /** The first look of this feed, or the first since its lease gained shards. */
  readonly full: boolean;
  readonly gains: number;
}

export class VehicleChangeFeed {
  readonly #store: StoreConnection;
  readonly #lease: VehicleShardLease | undefined;
  readonly #lagMs: number;
  #lookedAt: number | undefined;
  #gains = 0;
  #read = 0;

  constructor(store: StoreConnection, lease: VehicleShardLease | undefined, options: VehicleChangeFeedOptions = {}) {
    this.#store = store;
    this.#lease = lease;
    this.#lagMs = options.lagMs ?? 0;
  }

  /** Starts a look at `now` (after the lease was renewed for this pass). */
  begin(now: number): Look {
    const gains = this.#lease?.gains ?? 0;
    const full = this.#lookedAt === undefined || gains !== this.#gains;
    return { startedAt: now, since: full ? undefined : this.#lookedAt! - LOOKBACK_MS - this.#lagMs, full, gains };
  }

  /** The changed vehicles of the held shards, a page at a time. */
  async *pages(look: Look, budget: TurnBudget): AsyncGenerator<ChangedVehicle[]> {
    for await (const page of keysetPages((after: ChangedVehicle | undefined, limit) => listChangedVehicles(this.#store.db, look.since, after, limit), budget)) {
      this.#read += page.length;
      const mine = this.#lease ? page.filter((v) => this.#lease!.holds(v.vin)) : page;
      if (mine.length > 0) yield mine;
    }
  }

  /** The look's changes have all been followed: the next look starts from it. Not called when a pass fails. */
  end(look: Look): void {
    this.#lookedAt = look.startedAt;
    this.#gains = look.gains;
  }

  /** Activity rows read so far, the held shards' and the others' (what a pass costs, for tests). */
  get rowsRead(): number {
    return this.#read;
  }
}
