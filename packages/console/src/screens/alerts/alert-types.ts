/**
 * The shapes the alert screens read and send, derived from the contract so a change there shows
 * up here at typecheck: a rule as the service answers it, the body it takes, an alert event.
 */
import type { AlertRule as AlertRuleSchema, AlertRuleRequestShape, ALERT_RULE_KINDS, EventType, SCHEDULE_DAYS, ServiceEvent } from '@telematics/contract';
import type { Static } from '@telematics/contract';

export type RuleKind = (typeof ALERT_RULE_KINDS)[number];
export type ScheduleDay = (typeof SCHEDULE_DAYS)[number];

/** The contract builds its nullable fields from a plain TSchema, which Static reads as {}: spelt out here. */
export interface RuleSchedule {
  readonly time_zone: string;
  readonly weekly: readonly { readonly days: readonly ScheduleDay[]; readonly from: string; readonly to: string }[];
}
type Nullables = { readonly vins: readonly string[] | null; readonly threshold: number | null; readonly schedule: RuleSchedule | null };

export type AlertRule = Omit<Static<typeof AlertRuleSchema>, keyof Nullables> & Nullables;
export type AlertRuleBody = Omit<Static<typeof AlertRuleRequestShape>, keyof Nullables> & Partial<Nullables>;

/** An alert.* or geofence.* event as GET /console/api/alerts answers it. */
export type AlertEvent = ServiceEvent;

export interface AlertsPage {
  readonly data: AlertEvent[];
  /** `before` for the next older page; null at the oldest. */
  readonly next_cursor: string | null;
}

/** POST /alert-rules/preview's answer (docs/alerts.md). */
export interface RulePreview {
  readonly from: string;
  readonly to: string;
  readonly rule_id: string | null;
  readonly vehicles: number;
  readonly records: number;
  readonly truncated: boolean;
  /** More events than the preview answers (the first 1,000). */
  readonly events_truncated: boolean;
  readonly events: AlertEvent[];
}

/** The kinds the Alerts screen shows and filters on, in the order of its filter. */
export const ALERT_EVENT_KINDS = [
  'alert.overspeed', 'alert.idling', 'alert.no_data', 'alert.low_fuel', 'alert.low_battery', 'alert.after_hours',
  'geofence.entered', 'geofence.exited', 'geofence.crossed',
] as const satisfies readonly EventType[];
export type AlertEventKind = (typeof ALERT_EVENT_KINDS)[number];

/**
 * Each kind's threshold unit (null: the kind has none), as docs/alerts.md gives them. A record
 * over the contract's kinds, so a new kind fails the typecheck here; the page imports no
 * contract code at run time (it would bring TypeBox into the bundle).
 */
export const THRESHOLD_UNITS: Readonly<Record<RuleKind, 'km/h' | '%' | 'V' | null>> = {
  overspeed: 'km/h', idling: null, no_data: null, low_fuel: '%', low_battery: 'V', after_hours: null,
};
export const RULE_KINDS = Object.keys(THRESHOLD_UNITS) as RuleKind[];

const DAY_ORDER: Readonly<Record<ScheduleDay, number>> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 };
export const DAYS = Object.keys(DAY_ORDER) as ScheduleDay[];
