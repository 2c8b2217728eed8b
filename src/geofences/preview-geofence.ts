/**
 * "Try before switching on": the events a geofence would have fired over the company's recorded
 * positions of the last days, judged by the same function as the live evaluator
 * (domain/geofences/watch-fences.ts), from a plain-outside state per vehicle, and shown as the
 * event feed shows them (who may see what included). Nothing is written. The work is bounded: at
 * most `MAX_PREVIEW_VEHICLES` vehicles and `MAX_PREVIEW_POSITIONS` positions, read in pages that
 * give the event loop back; past either bound the answer says `truncated`.
 */
import type { ServiceEvent } from '@telematics/contract';
import { geofenceEvent } from '../domain/events.js';
import type { FenceSet } from '../domain/geofences/fence-set.js';
import type { DriftRules } from '../domain/geofences/judge-fence.js';
import { watchFences, type FenceWatchState } from '../domain/geofences/watch-fences.js';
import { previewEvents } from '../events/preview-events.js';
import type { StoreConnection } from '../store/connection.js';
import { watchedPositionsAfter } from '../store/watch-queries.js';
import { TurnBudget } from '../workers/event-loop-turns.js';

export const MAX_PREVIEW_VEHICLES = 200;
export const MAX_PREVIEW_POSITIONS = 2_000_000;
const PAGE = 5000;

export interface PreviewRequest {
  readonly companyId: string;
  /** The company's vehicles to try it on, by VIN (events/preview-scope.ts); the first `MAX_PREVIEW_VEHICLES` are. */
  readonly vins: readonly string[];
  readonly now: number;
  readonly days: number;
}

export interface Preview {
  readonly from: number;
  readonly to: number;
  readonly vehicles: number;
  readonly positions: number;
  readonly truncated: boolean;
  readonly events: ServiceEvent[];
  /** More events than the answer holds: the oldest are shown (events/preview-events.ts). */
  readonly events_truncated: boolean;
}

export async function previewFences(
  store: StoreConnection, fences: FenceSet, request: PreviewRequest, rules: DriftRules, latenessMs: number,
): Promise<Preview> {
  const from = request.now - request.days * 86_400_000;
  const vins = request.vins.slice(0, MAX_PREVIEW_VEHICLES);
  let truncated = request.vins.length > vins.length;
  let positions = 0;
  let judged = 0;
  const drafts = [];
  const budget = new TurnBudget();
  for (const vin of vins) {
    judged += 1;
    let state: FenceWatchState = { previous: undefined, fences: new Map() };
    for (let after = from - 1; ;) {
      await budget.yieldIfSpent();
      const page = await watchedPositionsAfter(store.db, vin, after, PAGE, request.now);
      const result = watchFences(fences, state, page, rules, latenessMs);
      for (const t of result.transitions) drafts.push(geofenceEvent(request.companyId, vin, t.transition, t.fence, t.position, t.late));
      positions += page.length;
      state = result.state;
      if (page.length < PAGE) break;
      if (positions >= MAX_PREVIEW_POSITIONS) {
        truncated = true;
        break;
      }
      after = page.at(-1)!.ts;
    }
    if (positions >= MAX_PREVIEW_POSITIONS) break;
  }
  const { events, eventsTruncated } = await previewEvents(store, request.companyId, drafts);
  return { from, to: request.now, vehicles: judged, positions, truncated, events, events_truncated: eventsTruncated };
}

