/**
 * no_data (D13): silence is noticed by a clock, not by a record. Every `SWEEP_MS` the evaluator
 * asks, for each no_data rule, which of the company's vehicles went quiet for the rule's duration
 * since its previous sweep (the last-seen index of vehicle_activity: the vehicles whose newest
 * record crossed the cutoff in between, not every silent one again), and which silences it held
 * back before (by the cooldown or the schedule) are now due (`alert_states.due_at`, set when it
 * held them back: a silent vehicle is judged again until its event fires or it reports, each time
 * only when it may fire). It judges them (judgeSilence) and writes the rule's state, its event
 * and a raise of the vehicle's cursor version in one transaction: the version is the guard the
 * evaluator's own write uses, so a copy of the state kept elsewhere goes stale, a judgement under
 * way there is dropped, and a write by anyone since this sweep's read drops this one instead (the
 * silence is judged again at the next sweep if still due). The state keeps what fired: a vehicle
 * judged twice (the first sweep of a process, or the first after it gained shards, looks an hour
 * back) fires once per episode, and the
 * cooldown holds a vehicle flapping in and out of reporting to one event. A vehicle that never
 * reported is not watched for silence. Vehicles of the shards this process holds only.
 */
import type { Clock } from '../domain/clock.js';
import { judgeSilence, QUIET_STATE, silenceDueAt, type CompiledAlertRule } from '../domain/alerts/judge-alert.js';
import { coversVehicle } from '../domain/alerts/watch-alerts.js';
import { alertEvent } from '../domain/events.js';
import type { StoreConnection } from '../store/connection.js';
import { appendEvents } from '../store/event-appends.js';
import { listGoneSilent, listSilencesDue, readSilenceStates, saveSilence, type SilentVehicle } from '../store/silence-queries.js';
import { bumpWatchVersion, readWatchVersions } from '../store/watch-queries.js';
import { FIRST_LOOK_BACK_MS } from '../domain/watch-look-back.js';
import type { TurnBudget } from '../workers/event-loop-turns.js';
import { keysetPages } from '../workers/keyset-pages.js';
import type { VehicleShardLease } from '../workers/vehicle-shard-lease.js';
import type { CompanyRuleSets } from './company-rule-sets.js';

export const SWEEP_MS = 10_000;
/**
 * How far back the first sweep of a process, or the first after it gained shards, looks for
 * vehicles that went quiet: those another process may have been about to judge when its shards
 * moved (a lease lapses in 15 s, so an hour is ample).
 */
const LOOK_BACK_MS = 60 * 60_000;

export class SilenceSweeps {
  #sweptAt = -Infinity;
  /** The lease's count of renewals that gained shards, as of the last sweep. */
  #gains = 0;
  /** Per rule: the cutoff its last sweep reached. */
  readonly #reached = new Map<string, number>();

  /** Sweeps the no_data rules if SWEEP_MS has passed since the last sweep; answers the events written. */
  async sweep(store: StoreConnection, clock: Clock, rules: CompanyRuleSets, shards: VehicleShardLease | undefined, budget: TurnBudget): Promise<number> {
    const now = clock.now();
    if (now - this.#sweptAt < SWEEP_MS) return 0;
    this.#sweptAt = now;
    // Shards gained: their vehicles' silences were another process's to notice, so look back again.
    if (shards && shards.gains !== this.#gains) {
      this.#gains = shards.gains;
      this.#reached.clear();
    }
    const mine = (rule: CompiledAlertRule) => (v: SilentVehicle) => coversVehicle(rule, v.vin) && (shards?.holds(v.vin) ?? true);
    let events = 0;
    for (const [companyId, { rules: companyRules }] of rules.entries()) {
      for (const rule of companyRules) {
        if (rule.kind !== 'no_data') continue;
        const cutoff = now - rule.durationS * 1000;
        const from = this.#reached.get(rule.id) ?? cutoff - LOOK_BACK_MS;
        for await (const page of keysetPages((after: SilentVehicle | undefined, limit) => listGoneSilent(store.db, companyId, from, cutoff, after, limit), budget)) {
          events += await judgeSilent(store, clock, companyId, rule, page.filter(mine(rule)));
        }
        this.#reached.set(rule.id, cutoff);
        for await (const page of keysetPages((after: SilentVehicle | undefined, limit) => listSilencesDue(store.db, rule.id, now, after, limit), budget)) {
          events += await judgeSilent(store, clock, companyId, rule, page.filter(mine(rule)));
        }
      }
    }
    return events;
  }
}

async function judgeSilent(
  store: StoreConnection, clock: Clock, companyId: string, rule: CompiledAlertRule, vehicles: readonly SilentVehicle[],
): Promise<number> {
  // Versions first: a state written after them fails the guard below instead of being written over.
  const versions = await readWatchVersions(store.db, vehicles.map((v) => v.vin));
  const stored = await readSilenceStates(store.db, rule.id, vehicles.map((v) => v.vin));
  let events = 0;
  for (const vehicle of vehicles) {
    const now = clock.now();
    const before = stored.get(vehicle.vin);
    const judged = judgeSilence(rule, before?.state ?? QUIET_STATE, vehicle.lastSeen, now);
    const dueAt = silenceDueAt(rule, judged.state);
    // Judged again and still held back until the same instant: nothing to write.
    if (!judged.fired && before !== undefined && judged.state === before.state && dueAt === before.dueAt) continue;
    const drafts = judged.fired ? [alertEvent(companyId, vehicle.vin, rule, judged.fired)] : [];
    const saved = await store.db.transaction().execute(async (trx) => {
      if (!(await bumpWatchVersion(trx, vehicle.vin, versions.get(vehicle.vin) ?? null, now - FIRST_LOOK_BACK_MS, now))) return false;
      await saveSilence(trx, vehicle.vin, rule.id, { state: judged.state, dueAt }, now);
      await appendEvents(trx, drafts, now);
      return true;
    });
    if (saved) events += drafts.length;
  }
  return events;
}
