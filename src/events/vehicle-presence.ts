/**
 * `vehicle.online` and `vehicle.offline` (D12): a vehicle is online while its newest record is
 * younger than `offlineAfterMs` (15 minutes by default). Decided by a periodic pass rather than
 * at ingest: going offline is the absence of records, which only a clock can notice, and doing
 * both transitions here keeps the ingest path free of a per-batch write. A change is written
 * with its event in one transaction, guarded by the state it was read in, so two processes
 * running the pass write it once. A vehicle never seen online has no presence row and makes no
 * event: "offline since forever" is not news.
 *
 * The pass reads what changed, not the fleet: vehicles coming online from the store's activity
 * (workers/vehicle-change-feed.ts, the same feed trip detection follows), vehicles going offline
 * from the last-seen index, those whose newest record crossed the cutoff since the pass before.
 */
import { presenceEvent } from '../domain/events.js';
import type { StoreConnection } from '../store/connection.js';
import { appendEvents } from '../store/event-appends.js';
import { changePresence, listGoneQuiet, listPresenceOf, type PresenceCandidate, type QuietCandidate } from '../store/presence-queries.js';
import { lastSeenOf } from '../store/vehicle-activity-queries.js';
import { TurnBudget } from '../workers/event-loop-turns.js';
import { keysetPages } from '../workers/keyset-pages.js';
import { LOOKBACK_MS, VehicleChangeFeed } from '../workers/vehicle-change-feed.js';
import type { VehicleShardLease } from '../workers/vehicle-shard-lease.js';

export interface PresenceSettings {
  readonly offlineAfterMs: number;
}

export interface PresencePass {
  online: number;
  offline: number;
}

/** What the presence pass remembers between passes: its feed and the cutoff it last judged. */
export class PresenceFollower {
  readonly feed: VehicleChangeFeed;
  readonly shards: VehicleShardLease | undefined;
  lastCutoff: number | undefined;

  constructor(store: StoreConnection, shards?: VehicleShardLease) {
    this.feed = new VehicleChangeFeed(store, shards);
    this.shards = shards;
  }
}

export async function runPresenceOnce(
  store: StoreConnection, now: number, settings: PresenceSettings, follower = new PresenceFollower(store),
): Promise<PresencePass> {
  const pass: PresencePass = { online: 0, offline: 0 };
  const cutoff = now - settings.offlineAfterMs;
  const budget = new TurnBudget();
  const shards = follower.shards;
  if (shards) await shards.keep(now);
  const look = follower.feed.begin(now);
  for await (const page of follower.feed.pages(look, budget)) {
    const recent = page.filter((v) => v.lastSeen >= cutoff).map((v) => v.vin);
    for (const v of await listPresenceOf(store.db, recent)) {
      if (v.online === true) continue;
      await budget.yieldIfSpent();
      if (await recordPresence(store, v, cutoff, now)) pass.online += 1;
    }
  }
  // The first look judges every vehicle recorded online; later ones, those whose newest record
  // crossed the cutoff since (a little earlier, for records committed after they were stamped).
  const from = look.full || follower.lastCutoff === undefined ? undefined : follower.lastCutoff - LOOKBACK_MS;
  for await (const page of keysetPages((after: QuietCandidate | undefined, limit) => listGoneQuiet(store.db, cutoff, from, after, limit), budget)) {
    for (const v of page) {
      if (shards && !shards.holds(v.vin)) continue;
      await budget.yieldIfSpent();
      if (await recordPresence(store, v, cutoff, now)) pass.offline += 1;
    }
  }
  follower.feed.end(look);
  follower.lastCutoff = cutoff;
  return pass;
}

/** Writes the vehicle's presence as its newest record says now, with its event; true when this call changed it. */
async function recordPresence(store: StoreConnection, v: PresenceCandidate, cutoff: number, now: number): Promise<boolean> {
  return store.db.transaction().execute(async (trx) => {
    // Read again inside the transaction: a slow pass must not record a state that has moved on.
    const lastSeen = await lastSeenOf(trx, v.vin);
    const online = lastSeen !== null && lastSeen >= cutoff;
    if (online === v.online || (v.online === undefined && !online)) return false;
    if (!(await changePresence(trx, v.vin, v.online, online, lastSeen, now))) return false;
    await appendEvents(trx, [presenceEvent(v.companyId, v.vin, online, now, lastSeen)], now);
    return true;
  });
}
