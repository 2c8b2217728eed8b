/**
 * The rule editor's state and the body it sends. Numbers are kept as typed: a field that is not
 * a number is sent as typed, so the service's own check names it (its 400 detail is what the
 * editor shows), rather than the page inventing a second set of rules.
 */
import type { AlertRule, AlertRuleBody, RuleKind, ScheduleDay } from './alert-types.js';
import { THRESHOLD_UNITS } from './alert-types.js';

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

export interface WindowForm {
  readonly days: readonly ScheduleDay[];
  readonly from: string;
  readonly to: string;
}

export interface RuleForm {
  readonly name: string;
  readonly kind: RuleKind;
  readonly threshold: string;
  readonly duration_s: string;
  readonly scope: 'all' | 'chosen';
  readonly vins: readonly string[];
  readonly useSchedule: boolean;
  readonly timeZone: string;
  readonly windows: readonly WindowForm[];
  readonly cooldown_s: string;
  readonly enabled: boolean;
}

export const WORKING_HOURS: WindowForm = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '07:00', to: '19:00' };

export const emptyForm = (): RuleForm => ({
  name: '', kind: 'overspeed', threshold: '', duration_s: '', scope: 'all', vins: [], useSchedule: false,
  timeZone: DEFAULT_TIME_ZONE, windows: [WORKING_HOURS], cooldown_s: '600', enabled: true,
});

export function formOf(rule: AlertRule): RuleForm {
  return {
    name: rule.name, kind: rule.kind, threshold: rule.threshold === null ? '' : String(rule.threshold), duration_s: String(rule.duration_s),
    scope: rule.vins === null ? 'all' : 'chosen', vins: rule.vins ?? [], useSchedule: rule.schedule !== null,
    timeZone: rule.schedule?.time_zone ?? DEFAULT_TIME_ZONE, windows: rule.schedule?.weekly.map((w) => ({ ...w })) ?? [WORKING_HOURS],
    cooldown_s: String(rule.cooldown_s), enabled: rule.enabled,
  };
}

/** after_hours is judged against its schedule: it always has one. */
export const hasSchedule = (form: RuleForm): boolean => form.kind === 'after_hours' || form.useSchedule;

/** A typed number as a number; anything else as typed, for the service to name. */
function numberOrText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed.replace(',', '.'));
  return Number.isFinite(value) ? value : trimmed;
}

/** The body of POST/PUT /alert-rules and of a preview's `rule`. */
export function bodyOf(form: RuleForm): AlertRuleBody {
  const body: Record<string, unknown> = { name: form.name, kind: form.kind, enabled: form.enabled };
  const threshold = numberOrText(form.threshold);
  if (THRESHOLD_UNITS[form.kind] !== null && threshold !== undefined) body.threshold = threshold;
  const duration = numberOrText(form.duration_s);
  if (duration !== undefined) body.duration_s = duration;
  const cooldown = numberOrText(form.cooldown_s);
  if (cooldown !== undefined) body.cooldown_s = cooldown;
  body.vins = form.scope === 'all' ? null : [...form.vins];
  body.schedule = hasSchedule(form)
    ? { time_zone: form.timeZone.trim() || DEFAULT_TIME_ZONE, weekly: form.windows.map((w) => ({ days: [...w.days], from: w.from.trim(), to: w.to.trim() })) }
    : null;
  // What the service takes is its to judge: the shape here is only what the editor assembled.
  return body as AlertRuleBody;
}
