/**
 * The time window of POST /vehicle-data (interface "Window rules", D7). User-given dates are
 * validated, derived ends are clamped. Boundaries are inclusive: a span of exactly 24 h, a start
 * exactly 7 days back and an end equal to now are all accepted.
 */
import { errors, ServiceError } from './errors.js';
import { ACCEPTED_DATE_FORMATS, parseInputDate, type ParsedInputDate } from './time.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const MAX_SPAN_MS = DAY_MS;
export const AVAILABILITY_MS = 7 * DAY_MS;

export interface DataWindow {
  /** Inclusive bounds, epoch milliseconds. */
  readonly start: number;
  readonly end: number;
}

/** A `start_date` or `end_date` of a request (D1 formats); 400 naming the formats otherwise. */
export function parseDateField(name: 'start_date' | 'end_date', value: string | undefined): ParsedInputDate | undefined {
  if (value === undefined) return undefined;
  const parsed = parseInputDate(value);
  if (!parsed) throw new ServiceError(errors.invalidDate, { field: name, formats: ACCEPTED_DATE_FORMATS });
  return parsed;
}

/** Resolves the window for `now`; throws the interface's errors in D7's order. */
export function resolveDataWindow(startText: string | undefined, endText: string | undefined, now: number): DataWindow {
  const givenStart = parseDateField('start_date', startText)?.epochMs;
  const givenEnd = parseDateField('end_date', endText)?.epochMs;
  const given = [givenStart, givenEnd].filter((t): t is number => t !== undefined);
  if (given.some((t) => t > now)) throw new ServiceError(errors.dateInFuture);
  if (given.some((t) => t < now - AVAILABILITY_MS)) throw new ServiceError(errors.dateOutOfRange);

  if (givenStart !== undefined && givenEnd !== undefined) {
    if (givenStart > givenEnd) throw new ServiceError(errors.startAfterEnd);
    if (givenEnd - givenStart > MAX_SPAN_MS) throw new ServiceError(errors.spanTooLong);
    return { start: givenStart, end: givenEnd };
  }
  if (givenStart !== undefined) return { start: givenStart, end: Math.min(givenStart + MAX_SPAN_MS, now) };
  if (givenEnd !== undefined) return { start: Math.max(givenEnd - MAX_SPAN_MS, now - AVAILABILITY_MS), end: givenEnd };
  return { start: now - MAX_SPAN_MS, end: now };
}
