/**
 * POST /alert-rules/preview, "try before switching on": the alerts a rule would have fired over
 * the company's recorded records of the last days, judged by the live evaluator's own functions
 * (domain/alerts/watch-alerts.ts, the judge's cooldown and schedule included), each vehicle from a
 * quiet state; no_data from the gaps in the records. A rule given in full (`rule`: the body of
 * POST /alert-rules; its events have `rule_id` null) or a saved one (`rule_id`: the very event
 * ids the evaluator writes). Nothing is written; bounded as the geofence preview is.
 */
import type { ServiceEvent } from '@telematics/contract';
import { compileAlertRule, QUIET_STATE, type AlertFiring, type AlertState } from '../domain/alerts/judge-alert.js';
import { coversVehicle, silencesOverHistory, watchAlerts } from '../domain/alerts/watch-alerts.js';
import { errors, ServiceError } from '../domain/errors.js';
import { alertEvent, type EventDraft } from '../domain/events.js';
import { previewEvents } from '../events/preview-events.js';
import { parsePreviewScope, previewVehicles } from '../events/preview-scope.js';
import { watchRecordsAfter } from '../store/watch-queries.js';
import { TurnBudget } from '../workers/event-loop-turns.js';
import { checkedFields, findRule, type AlertRuleDeps } from './manage-alert-rules.js';

const MAX_VEHICLES = 200;
const MAX_RECORDS = 2_000_000;
const PAGE = 5000;
const invalid = (problem: string) => new ServiceError(errors.alertRuleInvalid, { problem });
const NAMES = { object: 'rule', objectIs: 'a rule to try', id: 'rule_id' };

export interface AlertPreview {
  readonly from: number;
  readonly to: number;
  readonly rule_id: string | null;
  readonly vehicles: number;
  readonly records: number;
  readonly truncated: boolean;
  readonly events: ServiceEvent[];
  /** More events than the answer holds: the oldest are shown (events/preview-events.ts). */
  readonly events_truncated: boolean;
}

export async function previewAlertRule(deps: AlertRuleDeps, companyId: string, body: unknown): Promise<AlertPreview> {
  const scope = parsePreviewScope(body, NAMES, invalid);
  let rule;
  if (scope.id !== undefined) {
    const saved = await findRule(deps, companyId, scope.id);
    if (!saved) throw new ServiceError(errors.alertRuleNotFound);
    // Tried as if switched on: a saved rule may be disabled precisely because it is being tried.
    rule = compileAlertRule({ ...saved, enabled: true });
  } else {
    rule = compileAlertRule({ ...(await checkedFields(deps, companyId, scope.object)), id: 'preview' });
  }
  const now = deps.clock.now();
  const from = now - scope.days * 86_400_000;
  const wanted = await previewVehicles(deps.store, companyId, scope.vins, invalid, (vin) => coversVehicle(rule, vin));
  const vins = wanted.slice(0, MAX_VEHICLES);
  let truncated = wanted.length > vins.length;
  let records = 0;
  let judged = 0;
  const drafts: EventDraft[] = [];
  const budget = new TurnBudget();
  for (const vin of vins) {
    if (records >= MAX_RECORDS) {
      truncated = true;
      break;
    }
    judged += 1;
    let state: AlertState = QUIET_STATE;
    const fired: AlertFiring[] = [];
    for (let after = from - 1; ;) {
      await budget.yieldIfSpent();
      const page = (await watchRecordsAfter(deps.store.db, vin, after, PAGE)).map((r) => r.alert).filter((r) => r.ts <= now);
      records += page.length;
      if (rule.kind === 'no_data') {
        // Gaps across pages: the last record of a page is the first of the next's judgement.
        const judgedPage = silencesOverHistory(rule, state, page, page.length === PAGE ? page.at(-1)!.ts : now);
        state = judgedPage.state;
        fired.push(...judgedPage.fired);
      } else {
        const judgedPage = watchAlerts([rule], new Map([[rule.id, state]]), page, deps.alertRules.movingSpeedKmh ?? 3);
        state = judgedPage.states.get(rule.id) ?? QUIET_STATE;
        fired.push(...judgedPage.fired.map((f) => f.firing));
      }
      if (page.length < PAGE || records >= MAX_RECORDS) break;
      after = page.at(-1)!.ts;
    }
    drafts.push(...fired.map((f) => alertEvent(companyId, vin, rule, f)));
  }
  const saved = rule.id !== 'preview';
  const shown = await previewEvents(deps.store, companyId, drafts);
  const events = shown.events.map((e) => (saved ? e : { ...e, data: { ...e.data, rule_id: null } }));
  return { from, to: now, rule_id: saved ? rule.id : null, vehicles: judged, records, truncated, events, events_truncated: shown.eventsTruncated };
}
