import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, resolveDataWindow } from '../../src/domain/data-window.js';
import { ServiceError } from '../../src/domain/errors.js';

// 2026-11-20T12:00:00Z is 09:00:00 at -03:00.
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const local = (text: string) => Date.parse(`${text}-03:00`);

function detailOf(start: string | undefined, end: string | undefined): string {
  try {
    resolveDataWindow(start, end, NOW);
  } catch (e) {
    return (e as ServiceError).detail;
  }
  return 'no error';
}

describe('vehicle data window (interface rules 1-7, D7)', () => {
  it('rule 2: with neither date, the last 24 hours up to now', () => {
    expect(resolveDataWindow(undefined, undefined, NOW)).toEqual({ start: NOW - DAY_MS, end: NOW });
  });

  it('rule 1: with both dates, exactly those bounds', () => {
    expect(resolveDataWindow('2026-11-20T01:00:00', '2026-11-20T08:00:00', NOW)).toEqual({ start: local('2026-11-20T01:00:00'), end: local('2026-11-20T08:00:00') });
  });

  it('rule 3: only start_date gives start + 24 h, clamped to now', () => {
    expect(resolveDataWindow('2026-11-15T00:00:00', undefined, NOW)).toEqual({ start: local('2026-11-15T00:00:00'), end: local('2026-11-16T00:00:00') });
    expect(resolveDataWindow('2026-11-20T01:00:00', undefined, NOW)).toEqual({ start: local('2026-11-20T01:00:00'), end: NOW });
  });

  it('rule 4: only end_date gives end - 24 h, clamped to 7 days back', () => {
    expect(resolveDataWindow(undefined, '2026-11-18T12:00:00', NOW)).toEqual({ start: local('2026-11-17T12:00:00'), end: local('2026-11-18T12:00:00') });
    const nearEdge = NOW - 7 * DAY_MS + HOUR_MS;
    expect(resolveDataWindow(undefined, new Date(nearEdge).toISOString().slice(0, 19) + 'Z', NOW)).toEqual({ start: NOW - 7 * DAY_MS, end: nearEdge });
  });

  it('rule 5: start exactly 7 days back is accepted, one second more is not', () => {
    expect(resolveDataWindow('2026-11-13T09:00:00', undefined, NOW).start).toBe(NOW - 7 * DAY_MS);
    expect(detailOf('2026-11-13T08:59:59', undefined)).toBe('start_date or end_date are out of the range of 7 days.');
    expect(detailOf(undefined, '2026-11-01T00:00:00')).toBe('start_date or end_date are out of the range of 7 days.');
  });

  it('rule 6: end equal to now is accepted, one second later is in the future', () => {
    expect(resolveDataWindow(undefined, '2026-11-20T09:00:00', NOW).end).toBe(NOW);
    expect(detailOf(undefined, '2026-11-20T09:00:01')).toBe('start_date or end_date are in the future.');
    expect(detailOf('2026-11-21', undefined)).toBe('start_date or end_date are in the future.');
  });

  it('rule 7: a span of exactly 24 h is accepted, one second more is not', () => {
    expect(resolveDataWindow('2026-11-19T00:00:00', '2026-11-20T00:00:00', NOW)).toEqual({ start: local('2026-11-19T00:00:00'), end: local('2026-11-20T00:00:00') });
    expect(detailOf('2026-11-19T00:00:00', '2026-11-20T00:00:01')).toBe('Difference between start_date and end_date cannot exceed 24 hours.');
  });

  it('start after end is refused', () => {
    expect(detailOf('2026-11-20T05:00:00', '2026-11-20T04:59:59')).toBe('start_date is greater than end_date.');
  });

  it('reads the three input formats: date only and offset-less at -03:00, an explicit offset as given', () => {
    expect(resolveDataWindow('2026-11-19', '2026-11-20', NOW)).toEqual({ start: local('2026-11-19T00:00:00'), end: local('2026-11-20T00:00:00') });
    expect(resolveDataWindow('2026-11-19T22:00:00-05:00', undefined, NOW).start).toBe(Date.UTC(2026, 10, 20, 3, 0, 0));
    expect(resolveDataWindow('2026-11-20T03:00:00Z', undefined, NOW).start).toBe(Date.UTC(2026, 10, 20, 3, 0, 0));
  });

  it('checks in D7 order: future before 7 days, both before start>end and span', () => {
    expect(detailOf('2026-11-01T00:00:00', '2026-11-21T00:00:00')).toBe('start_date or end_date are in the future.');
    expect(detailOf('2026-11-20T05:00:00', '2026-11-01T00:00:00')).toBe('start_date or end_date are out of the range of 7 days.');
  });

  it.each(['20/11/2026', '2026-11-20 09:00:00', '2026-11-20T09:00', 'yesterday', ''])('refuses %j naming the formats', (text) => {
    expect(detailOf(text, undefined)).toBe('Invalid start_date: use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM.');
    expect(detailOf(undefined, text)).toMatch(/^Invalid end_date: use /);
  });
});
