/**
 * A weekly calendar in a time zone (D13: working hours in the company's zone, default
 * America/Sao_Paulo): windows of days and wall-clock times, and whether an instant falls inside.
 *
 * The question is asked for every record a rule judges, so the zone's UTC offset is asked of Intl
 * once per hour bucket, not per record: at the bucket's start and end, and when the two agree the
 * whole hour has that offset (a zone changes its offset at most twice a year, never twice in an
 * hour). Only the hour of a change (one or two a year) asks Intl per instant, so a DST change is
 * exact to the millisecond. Pure: the cache belongs to each compiled schedule.
 */
import { SCHEDULE_DAYS } from '@telematics/contract';

/** Monday first. */
export const WEEKDAYS = SCHEDULE_DAYS;
export type Weekday = (typeof WEEKDAYS)[number];

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';
export const MAX_SCHEDULE_WINDOWS = 50;

/** One window: on these days, from `from` to `to` local time (`HH:MM`, `to` may be `24:00`; `to` excluded). */
export interface WeeklyWindow {
  readonly days: readonly Weekday[];
  readonly from: string;
  readonly to: string;
}

export interface WeeklySchedule {
  /** An IANA zone name, as Intl spells it. */
  readonly timeZone: string;
  readonly weekly: readonly WeeklyWindow[];
}

export interface CompiledSchedule {
  /** Whether the instant (epoch ms) is inside one of the windows, in the schedule's zone. */
  contains(epochMs: number): boolean;
  /**
   * The first instant at or after `epochMs` inside a window (to the minute), or null when none
   * opens within a week and a day (a schedule whose windows name no day).
   */
  nextOpening(epochMs: number): number | null;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Hour buckets kept per schedule before the cache starts again (a year of hours is 8,760). */
const MAX_CACHED_HOURS = 20_000;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes since midnight of `HH:MM` (`24:00` is 1440 when `end`), or undefined. */
export function minutesOf(text: unknown, end: boolean): number | undefined {
  if (typeof text !== 'string') return undefined;
  if (end && text === '24:00') return 1440;
  const match = TIME.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** The zone's name as Intl spells it, or undefined when it is not an IANA zone this runtime knows. */
export function canonicalTimeZone(name: unknown): string | undefined {
  // Offsets (`+03:00`) are zones to newer runtimes, but not IANA names: a fixed offset is `Etc/GMT+3`.
  if (typeof name !== 'string' || name.length === 0 || name.length > 64 || /^[+-]/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The zone's UTC offset at instants, in ms, asking Intl once per hour but around a change. */
export function zoneOffsets(timeZone: string): (epochMs: number) => number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  });
  const exact = (epochMs: number): number => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(epochMs)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    const wall = Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!, parts['second']!);
    return wall - (epochMs - (((epochMs % 1000) + 1000) % 1000));
  };
  // NaN marks an hour whose offset changes inside it.
  const hours = new Map<number, number>();
  return (epochMs) => {
    const bucket = Math.floor(epochMs / HOUR_MS);
    let offset = hours.get(bucket);
    if (offset === undefined) {
      const start = exact(bucket * HOUR_MS);
      offset = exact((bucket + 1) * HOUR_MS - 1000) === start ? start : NaN;
      if (hours.size >= MAX_CACHED_HOURS) hours.clear();
      hours.set(bucket, offset);
    }
    return Number.isNaN(offset) ? exact(epochMs) : offset;
  };
}

/** The schedule as a quick test: per weekday (Monday first), its windows as minute ranges. */
export function compileSchedule(schedule: WeeklySchedule): CompiledSchedule {
  const byDay: [number, number][][] = WEEKDAYS.map(() => []);
  for (const window of schedule.weekly) {
    const range: [number, number] = [minutesOf(window.from, false) ?? 0, minutesOf(window.to, true) ?? 0];
    for (const day of window.days) byDay[WEEKDAYS.indexOf(day)]!.push(range);
  }
  const offsetAt = zoneOffsets(schedule.timeZone);
  const contains = (epochMs: number): boolean => {
    const local = epochMs + offsetAt(epochMs);
    const day = Math.floor(local / DAY_MS);
    // 1970-01-01 was a Thursday: day 0 is index 3 counting from Monday.
    const weekday = (((day + 3) % 7) + 7) % 7;
    const minute = Math.floor((local - day * DAY_MS) / MINUTE_MS);
    return byDay[weekday]!.some(([from, to]) => minute >= from && minute < to);
  };
  // The last closed stretch found: the silences of a fleet parked for the weekend all ask about
  // the same one, so the minute walk (up to 11,520 steps) runs once for them, not once a vehicle.
  let stretch: { from: number; opening: number | null } | undefined;
  return {
    contains,
    nextOpening(epochMs) {
      if (contains(epochMs)) return epochMs;
      if (stretch !== undefined && epochMs >= stretch.from && (stretch.opening === null || epochMs < stretch.opening)) return stretch.opening;
      let opening: number | null = null;
      // Windows start on a minute of local time, and zone offsets are whole minutes.
      for (let at = Math.ceil((epochMs + 1) / MINUTE_MS) * MINUTE_MS, end = epochMs + 8 * DAY_MS; at <= end; at += MINUTE_MS) {
        if (contains(at)) {
          opening = at;
          break;
        }
      }
      stretch = { from: epochMs, opening };
      return opening;
    },
  };
}

/** A problem with a schedule as a request gives it, naming the field; or the schedule. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{"time_zone"?, "weekly": [{"days", "from", "to"}, …]}` as the API takes it; the zone defaults to America/Sao_Paulo. */
export function parseWeeklySchedule(value: unknown, field = 'schedule'): Parsed<WeeklySchedule> {
  const fail = (problem: string): Parsed<WeeklySchedule> => ({ ok: false, problem: `${field}${problem}` });
  if (!isObject(value)) return fail(' must be an object with time_zone and weekly');
  const unknown = Object.keys(value).find((key) => key !== 'time_zone' && key !== 'weekly');
  if (unknown !== undefined) return fail(` has an unknown field: ${unknown}`);
  const zoneGiven = value['time_zone'] ?? DEFAULT_TIME_ZONE;
  const timeZone = canonicalTimeZone(zoneGiven);
  if (timeZone === undefined) return fail('.time_zone must be an IANA time zone name, such as America/Sao_Paulo');
  const weekly = value['weekly'];
  if (!Array.isArray(weekly) || weekly.length === 0 || weekly.length > MAX_SCHEDULE_WINDOWS) return fail(`.weekly must be a list of 1 to ${MAX_SCHEDULE_WINDOWS} windows`);
  const windows: WeeklyWindow[] = [];
  for (const [index, window] of weekly.entries()) {
    const at = `.weekly[${index}]`;
    if (!isObject(window)) return fail(`${at} must be an object with days, from and to`);
    const extra = Object.keys(window).find((key) => key !== 'days' && key !== 'from' && key !== 'to');
    if (extra !== undefined) return fail(`${at} has an unknown field: ${extra}`);
    const days = window['days'];
    if (!Array.isArray(days) || days.length === 0 || !days.every((d) => (WEEKDAYS as readonly unknown[]).includes(d))) {
      return fail(`${at}.days must be a non-empty list of ${WEEKDAYS.join(', ')}`);
    }
    const from = minutesOf(window['from'], false);
    if (from === undefined) return fail(`${at}.from must be a time HH:MM from 00:00 to 23:59`);
    const to = minutesOf(window['to'], true);
    if (to === undefined) return fail(`${at}.to must be a time HH:MM from 00:01 to 24:00`);
    if (from >= to) return fail(`${at}.from must be before to (a window past midnight is two windows)`);
    windows.push({ days: WEEKDAYS.filter((d) => days.includes(d)), from: window['from'] as string, to: window['to'] as string });
  }
  return { ok: true, value: { timeZone, weekly: windows } };
}
