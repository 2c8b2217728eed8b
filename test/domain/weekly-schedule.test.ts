/** Weekly schedules in a time zone (domain/alerts/weekly-schedule.ts): windows, DST, the offset cache, parsing. */
import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, compileSchedule, parseWeeklySchedule, WEEKDAYS, zoneOffsets, type WeeklySchedule } from '../../src/domain/alerts/weekly-schedule.js';

const WORKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;
const office = (timeZone: string): WeeklySchedule => ({ timeZone, weekly: [{ days: WORKDAYS, from: '08:00', to: '18:00' }] });
const utc = (text: string) => Date.parse(text);

/** The reference: the wall clock Intl gives for that very instant, no cache. */
const formats = new Map<string, Intl.DateTimeFormat>();
function referenceContains(schedule: WeeklySchedule, epochMs: number): boolean {
  const format = formats.get(schedule.timeZone) ?? new Intl.DateTimeFormat('en-US', { timeZone: schedule.timeZone, weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
  formats.set(schedule.timeZone, format);
  const parts = Object.fromEntries(format.formatToParts(epochMs).map((p) => [p.type, p.value]));
  const day = WEEKDAYS[['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts['weekday']!)]!;
  const minute = Number(parts['hour']) * 60 + Number(parts['minute']);
  const minutes = (t: string) => (t === '24:00' ? 1440 : Number(t.slice(0, 2)) * 60 + Number(t.slice(3)));
  return schedule.weekly.some((w) => w.days.includes(day) && minute >= minutes(w.from) && minute < minutes(w.to));
}

describe('compileSchedule', () => {
  it('when asked for the next opening from a Friday evening, then it is Monday 08:00 local; inside a window, the instant itself', () => {
    const hours = compileSchedule(office('America/Sao_Paulo'));
    // Friday 2026-11-20 19:00 at -03:00; then Saturday noon (the same closed stretch, kept).
    expect(hours.nextOpening(utc('2026-11-20T22:00:00Z'))).toBe(utc('2026-11-23T11:00:00Z'));
    expect(hours.nextOpening(utc('2026-11-21T15:00:00Z'))).toBe(utc('2026-11-23T11:00:00Z'));
    expect(hours.nextOpening(utc('2026-11-23T11:00:00Z'))).toBe(utc('2026-11-23T11:00:00Z'));
    expect(hours.nextOpening(utc('2026-11-23T21:00:00Z'))).toBe(utc('2026-11-24T11:00:00Z'));
    expect(compileSchedule({ timeZone: 'Etc/GMT', weekly: [{ days: [], from: '08:00', to: '09:00' }] }).nextOpening(0)).toBeNull();
  });


  it('when an instant is inside working hours in São Paulo (UTC-3 all year since 2019), then it is inside; at the window end, outside', () => {
    const hours = compileSchedule(office('America/Sao_Paulo'));
    // Monday 2026-11-16.
    expect(hours.contains(utc('2026-11-16T10:59:59Z'))).toBe(false); // 07:59:59
    expect(hours.contains(utc('2026-11-16T11:00:00Z'))).toBe(true); // 08:00
    expect(hours.contains(utc('2026-11-16T20:59:59Z'))).toBe(true); // 17:59:59
    expect(hours.contains(utc('2026-11-16T21:00:00Z'))).toBe(false); // 18:00
    // Saturday 2026-11-21 at noon, and a January noon (no summer time any more).
    expect(hours.contains(utc('2026-11-21T15:00:00Z'))).toBe(false);
    expect(hours.contains(utc('2026-01-14T15:00:00Z'))).toBe(true);
    expect(hours.contains(utc('2026-01-14T10:30:00Z'))).toBe(false); // 07:30
  });

  it('when a window ends at 24:00, then the last minute of the day is inside and the next midnight is not', () => {
    const night = compileSchedule({ timeZone: 'America/Sao_Paulo', weekly: [{ days: ['fri'], from: '22:00', to: '24:00' }] });
    expect(night.contains(utc('2026-11-21T02:59:59Z'))).toBe(true); // Friday 23:59:59
    expect(night.contains(utc('2026-11-21T03:00:00Z'))).toBe(false); // Saturday 00:00
    expect(night.contains(utc('2026-11-21T00:59:59Z'))).toBe(false); // Friday 21:59:59
  });

  it('when New York springs forward, then 01:59:59 EST is inside a 01:00–03:00 window and the next second (03:00 EDT) is not', () => {
    const early = compileSchedule({ timeZone: 'America/New_York', weekly: [{ days: ['sun'], from: '01:00', to: '03:00' }] });
    expect(early.contains(utc('2026-03-08T05:59:59Z'))).toBe(false); // 00:59:59 EST
    expect(early.contains(utc('2026-03-08T06:00:00Z'))).toBe(true); // 01:00 EST
    expect(early.contains(utc('2026-03-08T06:59:59Z'))).toBe(true); // 01:59:59 EST
    expect(early.contains(utc('2026-03-08T07:00:00Z'))).toBe(false); // 03:00 EDT
  });

  it('when New York falls back, then both 01:30s are inside a 01:00–02:00 window and 02:00 EST is not', () => {
    const early = compileSchedule({ timeZone: 'America/New_York', weekly: [{ days: ['sun'], from: '01:00', to: '02:00' }] });
    expect(early.contains(utc('2026-11-01T04:59:59Z'))).toBe(false); // 00:59:59 EDT
    expect(early.contains(utc('2026-11-01T05:30:00Z'))).toBe(true); // 01:30 EDT
    expect(early.contains(utc('2026-11-01T06:30:00Z'))).toBe(true); // 01:30 EST
    expect(early.contains(utc('2026-11-01T07:00:00Z'))).toBe(false); // 02:00 EST
  });

  it('when instants all through a year are asked, in zones with DST, half-hour DST and 45-minute offsets, then every answer equals Intl asked per instant', () => {
    const start = utc('2026-01-01T00:00:00Z');
    const schedule = (timeZone: string): WeeklySchedule => ({
      timeZone,
      weekly: [{ days: WORKDAYS, from: '08:00', to: '18:00' }, { days: ['sun'], from: '01:30', to: '02:30' }, { days: ['sat'], from: '00:00', to: '24:00' }],
    });
    for (const zone of ['America/New_York', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Europe/London']) {
      const compiled = compileSchedule(schedule(zone));
      const reference = schedule(zone);
      const mismatches: string[] = [];
      // Every 7 min 13 s: every minute of the day and every transition hour gets visited at some phase.
      for (let t = start; t < start + 366 * 86_400_000; t += 433_000) {
        if (compiled.contains(t) !== referenceContains(reference, t)) mismatches.push(new Date(t).toISOString());
      }
      expect(mismatches, zone).toEqual([]);
    }
  });

  it('when the hour of a DST change is asked second by second, then the offsets change at the exact second', () => {
    const offsetAt = zoneOffsets('America/New_York');
    const change = utc('2026-03-08T07:00:00Z');
    expect(offsetAt(change - 1000)).toBe(-5 * 3_600_000);
    expect(offsetAt(change)).toBe(-4 * 3_600_000);
    expect(offsetAt(change - 1)).toBe(-5 * 3_600_000);
    expect(zoneOffsets('America/Sao_Paulo')(utc('2026-01-14T15:00:00Z'))).toBe(-3 * 3_600_000);
    // São Paulo still had summer time in 2018 (from 4 November).
    expect(zoneOffsets('America/Sao_Paulo')(utc('2018-12-01T15:00:00Z'))).toBe(-2 * 3_600_000);
  });
});

describe('parseWeeklySchedule', () => {
  it('when the zone is left out, then it is America/Sao_Paulo; days come back in week order without repeats', () => {
    const parsed = parseWeeklySchedule({ weekly: [{ days: ['fri', 'mon', 'mon'], from: '08:00', to: '24:00' }] });
    expect(parsed).toEqual({ ok: true, value: { timeZone: 'America/Sao_Paulo', weekly: [{ days: ['mon', 'fri'], from: '08:00', to: '24:00' }] } });
  });

  it('when the zone is spelled in another case, then it is kept as Intl spells it', () => {
    expect(parseWeeklySchedule({ time_zone: 'america/new_york', weekly: [{ days: ['sun'], from: '00:00', to: '01:00' }] }))
      .toMatchObject({ ok: true, value: { timeZone: 'America/New_York' } });
    expect(canonicalTimeZone('Etc/GMT+3')).toBe('Etc/GMT+3');
  });

  it.each([
    [null, 'schedule must be an object with time_zone and weekly'],
    [{ weekly: [] }, 'schedule.weekly must be a list of 1 to 50 windows'],
    [{ weekly: Array.from({ length: 51 }, () => ({ days: ['mon'], from: '08:00', to: '09:00' })) }, 'schedule.weekly must be a list of 1 to 50 windows'],
    [{ time_zone: 'Mars/Olympus', weekly: [] }, 'schedule.time_zone must be an IANA time zone name, such as America/Sao_Paulo'],
    [{ time_zone: '-03:00', weekly: [] }, 'schedule.time_zone must be an IANA time zone name, such as America/Sao_Paulo'],
    [{ weekly: [{ days: ['monday'], from: '08:00', to: '09:00' }] }, 'schedule.weekly[0].days must be a non-empty list of mon, tue, wed, thu, fri, sat, sun'],
    [{ weekly: [{ days: [], from: '08:00', to: '09:00' }] }, 'schedule.weekly[0].days must be a non-empty list of mon, tue, wed, thu, fri, sat, sun'],
    [{ weekly: [{ days: ['mon'], from: '8:00', to: '09:00' }] }, 'schedule.weekly[0].from must be a time HH:MM from 00:00 to 23:59'],
    [{ weekly: [{ days: ['mon'], from: '24:00', to: '24:00' }] }, 'schedule.weekly[0].from must be a time HH:MM from 00:00 to 23:59'],
    [{ weekly: [{ days: ['mon'], from: '08:00', to: '24:01' }] }, 'schedule.weekly[0].to must be a time HH:MM from 00:01 to 24:00'],
    [{ weekly: [{ days: ['mon'], from: '22:00', to: '06:00' }] }, 'schedule.weekly[0].from must be before to (a window past midnight is two windows)'],
    [{ weekly: [{ days: ['mon'], from: '08:00', to: '08:00' }] }, 'schedule.weekly[0].from must be before to (a window past midnight is two windows)'],
    [{ weekly: [{ days: ['mon'], from: '08:00', to: '09:00', tz: 'x' }] }, 'schedule.weekly[0] has an unknown field: tz'],
    [{ timezone: 'UTC', weekly: [] }, 'schedule has an unknown field: timezone'],
  ])('when the schedule is %j, then the problem is "%s"', (value, problem) => {
    expect(parseWeeklySchedule(value)).toEqual({ ok: false, problem });
  });
});
