/**
 * Time rules of D1: instants are epoch milliseconds (UTC); the interface renders them at the fixed
 * offset -03:00 (no daylight saving) without an offset suffix.
 */
export const SERVICE_OFFSET_MINUTES = -180;

const MINUTE_MS = 60_000;
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function localParts(epochMs: number): Date {
  return new Date(epochMs + SERVICE_OFFSET_MINUTES * MINUTE_MS);
}

function datePart(d: Date): string {
  const year = d.getUTCFullYear();
  const yyyy = year >= 0 && year < 10000 ? String(year).padStart(4, '0') : String(year);
  return `${yyyy}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

function timePart(d: Date): string {
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** `YYYY-MM-DDTHH:MM:SS` at -03:00: vehicle `created`, trip start and end. */
export function formatIsoLocal(epochMs: number): string {
  const d = localParts(epochMs);
  return `${datePart(d)}T${timePart(d)}`;
}

const OFFSET_SUFFIX = `${SERVICE_OFFSET_MINUTES < 0 ? '-' : '+'}${pad2(Math.floor(Math.abs(SERVICE_OFFSET_MINUTES) / 60))}:${pad2(Math.abs(SERVICE_OFFSET_MINUTES) % 60)}`;

/** `YYYY-MM-DDTHH:MM:SS-03:00`: an event's `timestamp` (D12 asks for the offset, which the interface's own fields omit). */
export function formatIsoWithOffset(epochMs: number): string {
  return formatIsoLocal(epochMs) + OFFSET_SUFFIX;
}

/** `YYYY-MM-DD HH:MM:SS` at -03:00: command times, data record `date_time`. */
export function formatSpacedLocal(epochMs: number): string {
  const d = localParts(epochMs);
  return `${datePart(d)} ${timePart(d)}`;
}

/**
 * A `formatSpacedLocal` for long runs of instants (streamed records): the date part is computed
 * once per local day and the time part by arithmetic, so no Date is made per record.
 */
export function createSpacedLocalFormatter(): (epochMs: number) => string {
  let cachedDay = Number.NaN;
  let cachedDate = '';
  return (epochMs) => {
    const localSeconds = Math.floor(epochMs / 1000) + SERVICE_OFFSET_MINUTES * 60;
    const day = Math.floor(localSeconds / 86_400);
    if (day !== cachedDay) {
      cachedDay = day;
      cachedDate = datePart(new Date(day * 86_400_000));
    }
    const s = localSeconds - day * 86_400;
    return `${cachedDate} ${pad2(Math.floor(s / 3600))}:${pad2(Math.floor((s % 3600) / 60))}:${pad2(s % 60)}`;
  };
}

/** `HH:MM:SS` with hours allowed past 23 (trip duration). */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  return `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor((s % 3600) / 60))}:${pad2(s % 60)}`;
}

const INPUT_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z|[+-](\d{2}):(\d{2}))?)?$/;

export const ACCEPTED_DATE_FORMATS = 'YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM';

export interface ParsedInputDate {
  /** The instant, epoch milliseconds. */
  readonly epochMs: number;
  /** True for the `YYYY-MM-DD` form, which callers may read as start or end of day. */
  readonly dateOnly: boolean;
}

/**
 * Parses an input date of D1. Date-only and offset-less forms are read at -03:00; an explicit
 * offset (or `Z`) is honoured. Returns undefined for anything else, including impossible calendar
 * dates such as 2026-02-30 or 24:00:00.
 */
export function parseInputDate(text: string): ParsedInputDate | undefined {
  const m = INPUT_DATE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', zone, zh, zm] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utcGuess = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(utcGuess).getUTCDate() !== day) return undefined;

  let offsetMinutes = SERVICE_OFFSET_MINUTES;
  if (zone === 'Z') offsetMinutes = 0;
  else if (zone) {
    const oh = Number(zh), om = Number(zm);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  return { epochMs: utcGuess - offsetMinutes * MINUTE_MS, dateOnly: m[4] === undefined };
}

const RECORD_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The instant of a pushed record: ISO 8601 with seconds and an explicit offset (`Z` or ±HH:MM),
 * fractional seconds allowed. Returns epoch milliseconds, or undefined when malformed.
 */
export function parseRecordInstant(text: string): number | undefined {
  const m = RECORD_INSTANT.exec(text);
  if (!m) return undefined;
  const parsed = parseInputDate(`${text.slice(0, 19)}${m[8]}`);
  if (!parsed) return undefined;
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  return parsed.epochMs + fraction;
}
