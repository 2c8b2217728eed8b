/**
 * An alert rule (D13): a condition a company sets over its vehicles' records, its limits per
 * kind, and the request body it is read from. Pure: whether the VINs are the company's is for the
 * caller to know (it passes them), so one parser serves the API and any import.
 */
import { ALERT_RULE_KINDS } from '@telematics/contract';
import { isValidVin, VIN_RULE } from '../vin.js';
import { unsafeTextProblem } from '../safe-text.js';
import { parseWeeklySchedule, type Parsed, type WeeklySchedule } from './weekly-schedule.js';

export const ALERT_KINDS = ALERT_RULE_KINDS;
export type AlertKind = (typeof ALERT_KINDS)[number];

interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** What each kind takes: its threshold (none when absent), duration (required when no default), whether a schedule is. */
export interface KindRules {
  readonly threshold?: Bounds & { readonly unit: string };
  readonly duration: Bounds & { readonly default?: number };
  readonly scheduleRequired: boolean;
}

export const KIND_RULES: Readonly<Record<AlertKind, KindRules>> = Object.freeze({
  overspeed: { threshold: { min: 1, max: 400, unit: 'km/h' }, duration: { min: 0, max: 3600, default: 0 }, scheduleRequired: false },
  idling: { duration: { min: 60, max: 86_400 }, scheduleRequired: false },
  no_data: { duration: { min: 60, max: 604_800 }, scheduleRequired: false },
  low_fuel: { threshold: { min: 1, max: 100, unit: '%' }, duration: { min: 0, max: 86_400, default: 0 }, scheduleRequired: false },
  low_battery: { threshold: { min: 0.1, max: 60, unit: 'V' }, duration: { min: 0, max: 86_400, default: 0 }, scheduleRequired: false },
  after_hours: { duration: { min: 0, max: 3600, default: 0 }, scheduleRequired: true },
});

export const MAX_RULE_VINS = 10_000;
export const MAX_RULE_NAME = 100;
export const DEFAULT_COOLDOWN_S = 600;
const COOLDOWN: Bounds = { min: 0, max: 604_800 };

/** A rule as the company wrote it, every default filled in. */
export interface AlertRuleFields {
  readonly name: string;
  readonly kind: AlertKind;
  /** The vehicles it watches; null: every vehicle of the company, present and future. */
  readonly vins: readonly string[] | null;
  /** km/h (overspeed), % (low_fuel), V (low_battery); null for the other kinds. */
  readonly threshold: number | null;
  /** How long the condition must hold before the rule fires (no_data: the silence). */
  readonly durationS: number;
  /** after_hours: the working hours. Other kinds: the only windows the rule fires in; null: always. */
  readonly schedule: WeeklySchedule | null;
  /** After an event, none for the same vehicle and rule until this has passed. */
  readonly cooldownS: number;
  readonly enabled: boolean;
}

export interface AlertRule extends AlertRuleFields {
  readonly id: string;
}

const FIELDS = new Set(['name', 'kind', 'vins', 'threshold', 'duration_s', 'schedule', 'cooldown_s', 'enabled']);
/** What a rule's answer adds: sent back in a PUT (the answer, edited), they are not the body's to set. */
const ANSWER_FIELDS = new Set(['id', 'created', 'updated']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const inBounds = (value: unknown, b: Bounds, integer: boolean): value is number =>
  typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= b.min && value <= b.max;

/** The first VIN of the list that is not among the company's, as a problem text. */
export function foreignVinProblem(vins: readonly string[] | null, companyVins: ReadonlySet<string>): string | undefined {
  const foreign = vins?.find((vin) => !companyVins.has(vin));
  return foreign === undefined ? undefined : `vins: ${foreign} is not a vehicle of the company`;
}

/**
 * The rule a POST or PUT body describes, or the first problem with it, naming the field.
 * `companyVins`, when given, are the company's vehicles (at least those the body names).
 */
export function parseAlertRule(body: unknown, companyVins?: ReadonlySet<string>): Parsed<AlertRuleFields> {
  const fail = (problem: string): Parsed<AlertRuleFields> => ({ ok: false, problem });
  if (!isObject(body)) return fail('the body must be a JSON object');
  const unknown = Object.keys(body).find((key) => !FIELDS.has(key) && !ANSWER_FIELDS.has(key));
  if (unknown !== undefined) return fail(`unknown field: ${unknown}`);

  const kind = body['kind'];
  if (typeof kind !== 'string' || !(ALERT_KINDS as readonly string[]).includes(kind)) return fail(`kind must be one of ${ALERT_KINDS.join(', ')}`);
  const rules = KIND_RULES[kind as AlertKind];

  const name = body['name'];
  if (typeof name !== 'string' || name.trim().length === 0 || [...name].length > MAX_RULE_NAME) return fail(`name must be a text of 1 to ${MAX_RULE_NAME} characters`);
  const unsafe = unsafeTextProblem(name);
  if (unsafe !== undefined) return fail(`name ${unsafe}`);

  const vins = parseVins(body['vins']);
  if (!vins.ok) return vins;
  const foreign = companyVins && foreignVinProblem(vins.value, companyVins);
  if (foreign) return fail(foreign);

  const threshold = body['threshold'] ?? null;
  if (rules.threshold === undefined) {
    if (threshold !== null) return fail(`threshold is not used by ${kind}: leave it out`);
  } else if (!inBounds(threshold, rules.threshold, false)) {
    const { min, max, unit } = rules.threshold;
    return fail(`threshold must be a number from ${min} to ${max} (${unit}) for ${kind}`);
  }

  const duration = body['duration_s'] ?? rules.duration.default ?? null;
  if (!inBounds(duration, rules.duration, true)) {
    const bounds = `an integer from ${rules.duration.min} to ${rules.duration.max} (seconds)`;
    return fail(duration === null ? `duration_s is required for ${kind}: ${bounds}` : `duration_s must be ${bounds} for ${kind}`);
  }

  let schedule: WeeklySchedule | null = null;
  if (body['schedule'] != null) {
    const parsed = parseWeeklySchedule(body['schedule']);
    if (!parsed.ok) return parsed;
    schedule = parsed.value;
  } else if (rules.scheduleRequired) {
    return fail(`schedule is required for ${kind}: the working hours, outside which use fires the rule`);
  }

  const cooldown = body['cooldown_s'] ?? DEFAULT_COOLDOWN_S;
  if (!inBounds(cooldown, COOLDOWN, true)) return fail(`cooldown_s must be an integer from ${COOLDOWN.min} to ${COOLDOWN.max} (seconds)`);
  const enabled = body['enabled'] ?? true;
  if (typeof enabled !== 'boolean') return fail('enabled must be true or false');

  return {
    ok: true,
    value: { name, kind: kind as AlertKind, vins: vins.value, threshold: threshold as number | null, durationS: duration, schedule, cooldownS: cooldown, enabled },
  };
}

function parseVins(value: unknown): Parsed<readonly string[] | null> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_RULE_VINS) {
    return { ok: false, problem: `vins must be a list of 1 to ${MAX_RULE_VINS} VINs, or left out for every vehicle of the company` };
  }
  const bad = value.findIndex((vin) => !isValidVin(vin));
  if (bad >= 0) return { ok: false, problem: `vins[${bad}] must be a VIN (${VIN_RULE})` };
  return { ok: true, value: [...new Set(value as string[])] };
}
