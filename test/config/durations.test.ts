import { describe, expect, it } from 'vitest';
import { DAY_MS, formatDuration, HOUR_MS, MINUTE_MS, parseDuration, SECOND_MS } from '../../src/config/durations.js';

describe('durations', () => {
  it('when a duration has a unit, then it reads as milliseconds, fractions rounded to the millisecond', () => {
    expect([parseDuration('2d'), parseDuration('36h'), parseDuration('90m'), parseDuration('45s')]).toEqual([2 * DAY_MS, 36 * HOUR_MS, 90 * MINUTE_MS, 45 * SECOND_MS]);
    expect([parseDuration(' 1.5h '), parseDuration('0.0005s')]).toEqual([90 * MINUTE_MS, 1]);
  });

  it('when a duration is a bare number, then only 0 reads (as 0); anything else is undefined', () => {
    expect(parseDuration('0')).toBe(0);
    for (const text of ['5', '-1s', '1w', '1 day', '', 's', '1e3s']) expect(parseDuration(text), text).toBeUndefined();
  });

  it('when milliseconds are formatted, then the largest unit that divides them is used, as an operator would write them', () => {
    expect([formatDuration(2 * DAY_MS), formatDuration(169 * HOUR_MS), formatDuration(90 * SECOND_MS), formatDuration(1500), formatDuration(0)]).toEqual(['2d', '169h', '90s', '1500', '0']);
  });
});
