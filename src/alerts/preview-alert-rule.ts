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
import { listCompanyVehicles } from '../store/vehicles-queries.js';
import { watchRecordsAfter } from '../store/watch-queries.js';
import { TurnBudget } from '../workers/event-loop-turns.js';
import { checkedFields, findRule, type AlertRuleDeps } from './manage-alert-rules.js';

const FIELDS = new Set(['rule', 'rule_id', 'vins', 'days']);
const PREVIEW_DAYS = 7;
const MAX_VEHICLES = 200;
const MAX_RECORDS = 2_000_000;
const PAGE = 5000;
const invalid = (problem: string) => new ServiceError(errors.alertRuleInvalid, { problem });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
  if (!isObject(body)) throw invalid('the body must be an object with rule or rule_id');
  const unknown = Object.keys(body).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) throw invalid(`${unknown} is not a field of a preview (rule, rule_id, vins, days)`);
  if ((body['rule'] === undefined) === (body['rule_id'] === undefined)) throw invalid('give either rule (a rule to try) or rule_id (a saved one)');
  const days = body['days'] ?? PREVIEW_DAYS;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > PREVIEW_DAYS) throw invalid(`days must be a whole number from 1 to ${PREVIEW_DAYS}`);
  const asked = body['vins'];
  if (asked !== undefined && (!Array.isArray(asked) || asked.length === 0 || asked.length > 1000 || !asked.every((v) => typeof v === 'string'))) {
    throw invalid('vins must be a list of 1 to 1000 VINs of the company');
  }

  let rule;
  if (body['rule_id'] !== undefined) {
    const saved = await findRule(deps, companyId, body['rule_id']);
    if (!saved) throw new ServiceError(errors.alertRuleNotFound);
    // Tried as if switched on: a saved rule may be disabled precisely because it is being tried.
    rule = compileAlertRule({ ...saved, enabled: true });
  } else {
    rule = compileAlertRule({ ...(await checkedFields(deps, companyId, body['rule'])), id: 'preview' });
  }
  const now = deps.clock.now();
  const from = now - days * 86_400_000;
  const owned = (await listCompanyVehicles(deps.store.db, companyId)).map((v) => v.vin).sort();
  const ownedSet = new Set(owned);
  const foreign = (asked as string[] | undefined)?.find((v) => !ownedSet.has(v));
  if (foreign !== undefined) throw invalid(`vins: ${foreign.slice(0, 40)} is not a vehicle of the company`);
  const askedSet = asked === undefined ? undefined : new Set(asked as string[]);
  const wanted = owned.filter((vin) => coversVehicle(rule, vin) && (askedSet === undefined || askedSet.has(vin)));
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
