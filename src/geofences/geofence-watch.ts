/**
 * The evaluator of geofences and alert rules: a follower of the store
 * (workers/vehicle-change-feed.ts), like trip detection, sharded by VIN through the same lease, so
 * it runs in any `--role` layout and on several machines. Every half second it takes the vehicles
 * whose newest record is past their watch cursor, reads their records after it, judges them with
 * the pure functions the preview uses too (domain/geofences/watch-fences.ts,
 * domain/alerts/watch-alerts.ts) and writes, in one transaction, the states that changed, the
 * cursor and the events: a restart or a shard moving between processes cannot lose or repeat a
 * transition, and a second process judging the same vehicle finds the cursor moved and writes
 * nothing. Vehicles of companies without geofences or rules cost nothing past the feed. Silence
 * (no_data) is the clock's: a sweep of the vehicles gone quiet (alerts/silence-sweep.ts).
 *
 * Records stored with an instant at or before the cursor (out of order, after newer ones were
 * judged) are not judged live: the state has moved on. A vehicle never judged starts an hour back,
 * one whose cursor is older than a day a day back; records stamped ahead of now wait for it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { alertEvent, geofenceEvent } from '../domain/events.js';
import type { FenceSet } from '../domain/geofences/fence-set.js';
import type { DriftRules, FenceState } from '../domain/geofences/judge-fence.js';
import { watchFences } from '../domain/geofences/watch-fences.js';
import type { StoreConnection } from '../store/connection.js';
import { readDefinitionTotals } from '../store/definition-totals.js';
import { appendEvents } from '../store/event-appends.js';
import { listWatchCandidates, readWatchState, saveWatch, watchRecordsAfter, type StoredWatch, type WatchCandidate } from '../store/watch-queries.js';
import type { CompanyRuleSets } from '../alerts/company-rule-sets.js';
import { SilenceSweeps } from '../alerts/silence-sweep.js';
import type { AlertState, CompiledAlertRule } from '../domain/alerts/judge-alert.js';
import { coversVehicle, watchAlerts } from '../domain/alerts/watch-alerts.js';
import { indexedFenceSet } from '../domain/geofences/indexed-fence-set.js';
import { TurnBudget } from '../workers/event-loop-turns.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { VehicleChangeFeed } from '../workers/vehicle-change-feed.js';
import { FIRST_LOOK_BACK_MS, MAX_BEHIND_MS } from '../domain/watch-look-back.js';
import type { VehicleShardLease } from '../workers/vehicle-shard-lease.js';

export interface GeofenceWatchSettings {
  readonly rules: DriftRules;
  /** Faster than this is moving, for the alert rules (the trip setting). */
  readonly movingSpeedKmh: number;
  /** A record stored later than this after its instant is buffered history: its events say `late`. */
  readonly latenessMs: number;
}

export { FIRST_LOOK_BACK_MS, MAX_BEHIND_MS } from '../domain/watch-look-back.js';
/** Pages of one vehicle in one pass: a vehicle with a long backlog does not hold the others back. */
const PAGES_A_PASS = 10;
/** Records judged per transaction. */
const RECORDS_PAGE = 1000;

/** The fences of companies, kept current by revision (company-fence-sets.ts). */
export interface FenceSets {
  /**
   * Brings the kept sets up to date; false when no company has a geofence (the pass can stop
   * there). `total`: geofence_revisions' total as just read (definition-totals.ts); unmoved since
   * the last refresh, nothing else is read.
   */
  refresh(total?: string): Promise<boolean>;
  of(companyId: string): FenceSet | undefined;
}

export interface GeofenceWatchPass {
  vehicles: number;
  positions: number;
  events: number;
  /** Judgements dropped because another process had moved the cursor first. */
  lost: number;
}

/** What the evaluator keeps between passes: its feed, the companies' fences and rules, the silence sweeps. */
export class GeofenceFollower {
  readonly feed: VehicleChangeFeed;
  /** Where each no_data rule's last sweep stopped (silence-sweep.ts). */
  readonly silence = new SilenceSweeps();
  /**
   * The state each vehicle was left in by this process, by the cursor and version it was written
   * with: while the stored cursor is still at both, nobody else wrote the vehicle's state since
   * (another process's judgement, the no_data sweep, a rule's or fence's change all raise the
   * version), and the state need not be read again (two statements a vehicle a pass, under load
   * most of a pass's reads).
   */
  readonly kept = new Map<string, KeptWatch>();
  constructor(store: StoreConnection, readonly fences: FenceSets, readonly shards?: VehicleShardLease, readonly rules?: CompanyRuleSets) {
    this.feed = new VehicleChangeFeed(store, shards);
  }
}

interface KeptWatch {
  readonly judgedUntil: number;
  readonly version: number;
  readonly state: StoredWatch;
}

class CursorMoved extends Error {}

export async function runGeofenceWatchOnce(
  store: StoreConnection, clock: Clock, settings: GeofenceWatchSettings, follower: GeofenceFollower,
): Promise<GeofenceWatchPass> {
  const pass: GeofenceWatchPass = { vehicles: 0, positions: 0, events: 0, lost: 0 };
  const now = clock.now();
  // One statement of one row while no company changed its fences or rules.
  const totals = await readDefinitionTotals(store.db);
  const anyFence = await follower.fences.refresh(totals.fences);
  const anyRule = (await follower.rules?.refresh(totals.rules)) ?? false;
  if (!anyFence && !anyRule) return pass;
  const shards = follower.shards;
  if (shards) await shards.keep(now);
  const budget = new TurnBudget();
  const look = follower.feed.begin(now);
  for await (const page of follower.feed.pages(look, budget)) {
    const lastSeen = new Map(page.map((v) => [v.vin, v.lastSeen]));
    const work = (await listWatchCandidates(store.db, page.map((v) => v.vin))).flatMap((vehicle) => {
      const newest = lastSeen.get(vehicle.vin)!;
      if (vehicle.judgedUntil !== null && newest <= vehicle.judgedUntil) return [];
      const fences = follower.fences.of(vehicle.companyId);
      const rules = (follower.rules?.of(vehicle.companyId) ?? []).filter((r) => coversVehicle(r, vehicle.vin));
      if ((fences === undefined || fences.size === 0) && rules.length === 0) return [];
      return [{ vehicle, newest, watched: { fences: fences ?? EMPTY_FENCES, rules } }];
    });
    for (const { vehicle, newest, watched } of work) {
      await budget.yieldIfSpent();
      await watchVehicle(store, clock, follower, vehicle, newest, watched, settings, now, pass, budget);
    }
  }
  follower.feed.end(look);
  if (anyRule && follower.rules) pass.events += await follower.silence.sweep(store, clock, follower.rules, shards, budget);
  return pass;
}

const EMPTY_FENCES = indexedFenceSet([]);

/** Vehicles whose state a process keeps between passes, at most: beyond, the oldest are read again. */
const KEPT_VEHICLES = 20_000;

function keep(kept: Map<string, KeptWatch>, vin: string, watch: KeptWatch): void {
  kept.delete(vin);
  kept.set(vin, watch);
  if (kept.size > KEPT_VEHICLES) kept.delete(kept.keys().next().value!);
}

async function watchVehicle(
  store: StoreConnection, clock: Clock, follower: GeofenceFollower, vehicle: WatchCandidate, newest: number,
  watched: { readonly fences: FenceSet; readonly rules: readonly CompiledAlertRule[] }, settings: GeofenceWatchSettings,
  now: number, pass: GeofenceWatchPass, budget: TurnBudget,
): Promise<void> {
  let expected = vehicle.judgedUntil;
  let version = vehicle.version;
  const kept = follower.kept.get(vehicle.vin);
  let state: StoredWatch = kept !== undefined && kept.judgedUntil === expected && kept.version === version ? kept.state : await readWatchState(store.db, vehicle.vin);
  pass.vehicles += 1;
  for (let pages = 1; ; pages += 1) {
    const from = Math.max(expected ?? now - FIRST_LOOK_BACK_MS, now - MAX_BEHIND_MS);
    // Not past now: a record stamped ahead (the intake takes up to 5 minutes) waits for its time,
    // instead of moving the cursor past the live records that follow it.
    const records = await watchRecordsAfter(store.db, vehicle.vin, from, RECORDS_PAGE, now);
    const full = records.length === RECORDS_PAGE;
    const positions = records.flatMap((r) => (r.position ? [r.position] : []));
    const result = watchFences(watched.fences, state, positions, settings.rules, settings.latenessMs);
    const alerts = watchAlerts(watched.rules, state.alerts, records.map((r) => r.alert), settings.movingSpeedKmh);
    // Every record up to the newest the feed saw was committed before these were read.
    const judgedUntil = full ? records.at(-1)!.alert.ts : Math.max(from, Math.min(now, Math.max(records.at(-1)?.alert.ts ?? from, newest)));
    const states = new Map<string, FenceState | undefined>([...result.changed].map((id) => [id, result.state.fences.get(id)]));
    const alertStates = new Map<string, AlertState | undefined>([...alerts.changed].map((id) => [id, alerts.states.get(id)]));
    const drafts = [
      ...result.transitions.map((t) => geofenceEvent(vehicle.companyId, vehicle.vin, t.transition, t.fence, t.position, t.late)),
      ...alerts.fired.map((f) => alertEvent(vehicle.companyId, vehicle.vin, f.rule, f.firing)),
    ];
    try {
      // Written at the clock of the write, not of the pass: an event's created_at is when it was recorded.
      const writtenAt = clock.now();
      await store.db.transaction().execute(async (trx) => {
        const moved = await saveWatch(trx, {
          vin: vehicle.vin, expectedJudgedUntil: expected, expectedVersion: version, judgedUntil, previous: result.state.previous, states, alerts: alertStates, now: writtenAt,
        });
        if (!moved) throw new CursorMoved();
        await appendEvents(trx, drafts, writtenAt);
      });
    } catch (error) {
      follower.kept.delete(vehicle.vin);
      if (!(error instanceof CursorMoved)) throw error;
      pass.lost += 1;
      return;
    }
    pass.positions += positions.length;
    pass.events += drafts.length;
    expected = judgedUntil;
    version = version === null ? 0 : version + 1;
    state = { previous: result.state.previous, fences: new Map(result.state.fences), alerts: new Map(alerts.states) };
    keep(follower.kept, vehicle.vin, { judgedUntil, version, state });
    if (!full || pages === PAGES_A_PASS) return;
    await budget.yieldIfSpent();
  }
}

/** The evaluator in the periodic loop, every `intervalMs`, over the shards this process holds. */
export function geofenceWatchWorker(
  store: StoreConnection, clock: Clock, settings: GeofenceWatchSettings & { readonly intervalMs: number }, fences: FenceSets,
  shards: VehicleShardLease, logger: Logger, rules?: CompanyRuleSets,
): PeriodicWorker {
  const follower = new GeofenceFollower(store, fences, shards, rules);
  return {
    name: 'geofence watch',
    intervalMs: settings.intervalMs,
    // Records keep coming while a pass judges: the next pass starts at once after one that found
    // some, so a transition waits for one pass, not a pass and an interval.
    busyIntervalMs: 0,
    async runOnce() {
      const pass = await runGeofenceWatchOnce(store, clock, settings, follower);
      if (pass.events > 0) logger.info(pass, 'geofence transitions and alerts');
      return { more: pass.positions > 0 || pass.vehicles > 0 };
    },
  };
}
