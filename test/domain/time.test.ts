import { describe, expect, it } from 'vitest';
import { createSpacedLocalFormatter, formatDuration, formatIsoLocal, formatSpacedLocal, parseInputDate } from '../../src/domain/time.js';

describe('time formats (D1)', () => {
  const instant = Date.UTC(2026, 10, 20, 2, 5, 9); // 2026-11-19 23:05:09 at -03:00

  it('renders instants at -03:00 in both interface formats', () => {
    expect(formatIsoLocal(instant)).toBe('2026-11-19T23:05:09');
    expect(formatSpacedLocal(instant)).toBe('2026-11-19 23:05:09');
  });

  it('drops milliseconds rather than rounding them into the next second', () => {
    expect(formatIsoLocal(instant + 999)).toBe('2026-11-19T23:05:09');
  });

  it('formats long runs of instants exactly like formatSpacedLocal, across local midnights and before 1970', () => {
    const fast = createSpacedLocalFormatter();
    for (let t = Date.UTC(2026, 10, 19, 20, 0, 0); t < Date.UTC(2026, 10, 21, 6, 0, 0); t += 7_919) expect(fast(t)).toBe(formatSpacedLocal(t));
    for (const t of [0, -1, -86_400_001, Date.UTC(1969, 11, 31, 3, 0, 0), Date.UTC(2026, 1, 28, 2, 59, 59, 999)]) expect(fast(t)).toBe(formatSpacedLocal(t));
  });

  it('renders durations as HH:MM:SS with hours past 23', () => {
    expect(formatDuration(0)).toBe('00:00:00');
    expect(formatDuration(3661)).toBe('01:01:01');
    expect(formatDuration(100 * 3600 + 59)).toBe('100:00:59');
  });

  it.each([
    ['2026-11-19', Date.UTC(2026, 10, 19, 3, 0, 0), true],
    ['2026-11-19T23:05:09', instant, false],
    ['2026-11-19T21:05:09-05:00', instant, false],
    ['2026-11-20T02:05:09Z', instant, false],
    ['2026-11-20T05:35:09+03:30', instant, false],
  ])('reads %s', (text, epochMs, dateOnly) => {
    expect(parseInputDate(text)).toEqual({ epochMs, dateOnly });
  });

  it.each([
    '', '2026-11-19 23:05:09', '2026-02-30', '2026-13-01', '2026-11-19T24:00:00', '2026-11-19T23:60:00',
    '2026-11-19T23:05', '2026-11-19T23:05:09.123', '19/11/2026', '2026-11-19T23:05:09-5', '2026-11-19T23:05:09+24:00', ' 2026-11-19',
  ])('refuses %j', (text) => {
    expect(parseInputDate(text)).toBeUndefined();
  });
});
