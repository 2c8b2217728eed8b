/**
 * `vehicle.online` and `vehicle.offline` (D12): a vehicle is online while its newest record is
 * younger than `offlineAfterMs` (15 minutes by default). Decided by a periodic pass rather than
 * at ingest: going offline is the absence of records, which only a clock can notice, and doing
 * both transitions here keeps the ingest path free of a per-batch write. A change is written
 * with its event in one transaction, guarded by the state it was read in, so two processes
 * running the pass write it once. A vehicle never seen online has no presence row and makes no
 * event: "offline since forever" is not news.
 */
import { presenceEvent } from '../domain/events.js';
import type { StoreConnection } from '../store/connection.js';
import { appendEvents } from '../store/event-appends.js';
import { changePresence, listPresence, newestRecordTs } from '../store/presence-queries.js';

export interface PresenceSettings {
  readonly offlineAfterMs: number;
}

export interface PresencePass {
  online: number;
  offline: number;
}

export async function runPresenceOnce(store: StoreConnection, now: number, settings: PresenceSettings): Promise<PresencePass> {
  const pass: PresencePass = { online: 0, offline: 0 };
  const cutoff = now - settings.offlineAfterMs;
  for (const v of await listPresence(store.db, cutoff)) {
    // Never looked at and silent: nothing to record, and no event.
    if (v.online === v.recent || (v.online === undefined && !v.recent)) continue;
    await store.db.transaction().execute(async (trx) => {
      // Read again inside the transaction: a slow pass must not record a state that has moved on.
      const lastSeen = await newestRecordTs(trx, v.vin);
      const online = lastSeen !== null && lastSeen >= cutoff;
      if (online !== v.recent || !(await changePresence(trx, v.vin, v.online, online, lastSeen, now))) return;
      await appendEvents(trx, [presenceEvent(v.companyId, v.vin, online, now, lastSeen)], now);
      if (online) pass.online += 1;
      else pass.offline += 1;
    });
  }
  return pass;
}
