/** Alert rule bodies (domain/alerts/alert-rule.ts): each kind's defaults and limits, and every refusal's text. */
import { describe, expect, it } from 'vitest';
import { parseAlertRule } from '../../src/domain/alerts/alert-rule.js';

const VIN_A = '9BWZZZ377VT100001';
const VIN_B = '9BD17164LB5100002';
const HOURS = { weekly: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '18:00' }] };
const SAO_PAULO_HOURS = { timeZone: 'America/Sao_Paulo', weekly: HOURS.weekly };

const problem = (body: unknown, companyVins?: ReadonlySet<string>) => {
  const parsed = parseAlertRule(body, companyVins);
  return parsed.ok ? undefined : parsed.problem;
};

describe('parseAlertRule: defaults', () => {
  it.each([
    [{ name: 'Speeding', kind: 'overspeed', threshold: 90 }, { threshold: 90, durationS: 0, schedule: null }],
    [{ name: 'Idle', kind: 'idling', duration_s: 300 }, { threshold: null, durationS: 300, schedule: null }],
    [{ name: 'Silent', kind: 'no_data', duration_s: 3600 }, { threshold: null, durationS: 3600, schedule: null }],
    [{ name: 'Fuel', kind: 'low_fuel', threshold: 10 }, { threshold: 10, durationS: 0, schedule: null }],
    [{ name: 'Battery', kind: 'low_battery', threshold: 11.8 }, { threshold: 11.8, durationS: 0, schedule: null }],
    [{ name: 'Night use', kind: 'after_hours', schedule: HOURS }, { threshold: null, durationS: 0, schedule: SAO_PAULO_HOURS }],
  ])('when %j is given, then every other field takes its default', (body, expected) => {
    expect(parseAlertRule(body)).toEqual({
      ok: true, value: { name: body.name, kind: body.kind, vins: null, cooldownS: 600, enabled: true, ...expected },
    });
  });

  it('when every field is given, then each is kept; repeated VINs once, in their order', () => {
    const body = {
      name: 'Speeding on the highway', kind: 'overspeed', vins: [VIN_B, VIN_A, VIN_B], threshold: 110.5, duration_s: 30,
      schedule: { time_zone: 'America/New_York', weekly: HOURS.weekly }, cooldown_s: 0, enabled: false,
    };
    expect(parseAlertRule(body)).toEqual({
      ok: true,
      value: {
        name: 'Speeding on the highway', kind: 'overspeed', vins: [VIN_B, VIN_A], threshold: 110.5, durationS: 30,
        schedule: { timeZone: 'America/New_York', weekly: HOURS.weekly }, cooldownS: 0, enabled: false,
      },
    });
  });

  it('when a rule\'s answer is sent back (id, created, updated), then those are ignored; null fields read as left out', () => {
    const parsed = parseAlertRule({ id: 'x', created: 'y', updated: 'z', name: 'Fuel', kind: 'low_fuel', threshold: 10, vins: null, schedule: null, duration_s: null });
    expect(parsed).toMatchObject({ ok: true, value: { vins: null, schedule: null, durationS: 0 } });
  });

  it('when the company\'s VINs are given and the body names only those, then it parses', () => {
    expect(problem({ name: 'n', kind: 'overspeed', threshold: 90, vins: [VIN_A] }, new Set([VIN_A]))).toBeUndefined();
  });
});

describe('parseAlertRule: refusals', () => {
  const overspeed = (fields: Record<string, unknown>) => ({ name: 'Speeding', kind: 'overspeed', threshold: 90, ...fields });
  it.each([
    ['[]', [], 'the body must be a JSON object'],
    ['a string', 'rule', 'the body must be a JSON object'],
    ['an unknown field', overspeed({ duration: 60 }), 'unknown field: duration'],
    ['no kind', { name: 'x' }, 'kind must be one of overspeed, idling, no_data, low_fuel, low_battery, after_hours'],
    ['an unknown kind', { name: 'x', kind: 'harsh_braking' }, 'kind must be one of overspeed, idling, no_data, low_fuel, low_battery, after_hours'],
    ['no name', { kind: 'overspeed', threshold: 90 }, 'name must be a text of 1 to 100 characters'],
    ['a blank name', overspeed({ name: '   ' }), 'name must be a text of 1 to 100 characters'],
    ['a name of 101 characters', overspeed({ name: 'x'.repeat(101) }), 'name must be a text of 1 to 100 characters'],
    ['a name with an escape', overspeed({ name: 'a\u001b[31m' }), 'name must not contain control or invisible formatting characters (U+001B)'],
    ['empty vins', overspeed({ vins: [] }), 'vins must be a list of 1 to 10000 VINs, or left out for every vehicle of the company'],
    ['vins not a list', overspeed({ vins: VIN_A }), 'vins must be a list of 1 to 10000 VINs, or left out for every vehicle of the company'],
    ['10,001 vins', overspeed({ vins: Array.from({ length: 10_001 }, () => VIN_A) }), 'vins must be a list of 1 to 10000 VINs, or left out for every vehicle of the company'],
    ['a malformed VIN', overspeed({ vins: [VIN_A, 'ABC'] }), 'vins[1] must be a VIN (17 characters, digits and capital letters except I, O and Q)'],
    ['no threshold for overspeed', overspeed({ threshold: undefined }), 'threshold must be a number from 1 to 400 (km/h) for overspeed'],
    ['overspeed over 400', overspeed({ threshold: 401 }), 'threshold must be a number from 1 to 400 (km/h) for overspeed'],
    ['a threshold as text', overspeed({ threshold: '90' }), 'threshold must be a number from 1 to 400 (km/h) for overspeed'],
    ['low_fuel at 0', { name: 'f', kind: 'low_fuel', threshold: 0 }, 'threshold must be a number from 1 to 100 (%) for low_fuel'],
    ['low_battery over 60', { name: 'b', kind: 'low_battery', threshold: 61 }, 'threshold must be a number from 0.1 to 60 (V) for low_battery'],
    ['a threshold for idling', { name: 'i', kind: 'idling', duration_s: 300, threshold: 5 }, 'threshold is not used by idling: leave it out'],
    ['a threshold for after_hours', { name: 'a', kind: 'after_hours', schedule: HOURS, threshold: 5 }, 'threshold is not used by after_hours: leave it out'],
    ['no duration for idling', { name: 'i', kind: 'idling' }, 'duration_s is required for idling: an integer from 60 to 86400 (seconds)'],
    ['no duration for no_data', { name: 'n', kind: 'no_data' }, 'duration_s is required for no_data: an integer from 60 to 604800 (seconds)'],
    ['idling for 59 s', { name: 'i', kind: 'idling', duration_s: 59 }, 'duration_s must be an integer from 60 to 86400 (seconds) for idling'],
    ['no_data beyond a week', { name: 'n', kind: 'no_data', duration_s: 604_801 }, 'duration_s must be an integer from 60 to 604800 (seconds) for no_data'],
    ['overspeed for 1.5 s', overspeed({ duration_s: 1.5 }), 'duration_s must be an integer from 0 to 3600 (seconds) for overspeed'],
    ['after_hours for 3601 s', { name: 'a', kind: 'after_hours', schedule: HOURS, duration_s: 3601 }, 'duration_s must be an integer from 0 to 3600 (seconds) for after_hours'],
    ['low_fuel for -1 s', { name: 'f', kind: 'low_fuel', threshold: 10, duration_s: -1 }, 'duration_s must be an integer from 0 to 86400 (seconds) for low_fuel'],
    ['after_hours without hours', { name: 'a', kind: 'after_hours' }, 'schedule is required for after_hours: the working hours, outside which use fires the rule'],
    ['a bad window', overspeed({ schedule: { weekly: [{ days: ['mon'], from: '18:00', to: '08:00' }] } }), 'schedule.weekly[0].from must be before to (a window past midnight is two windows)'],
    ['a bad zone', overspeed({ schedule: { time_zone: 'Brasilia', weekly: HOURS.weekly } }), 'schedule.time_zone must be an IANA time zone name, such as America/Sao_Paulo'],
    ['a negative cooldown', overspeed({ cooldown_s: -1 }), 'cooldown_s must be an integer from 0 to 604800 (seconds)'],
    ['a cooldown over a week', overspeed({ cooldown_s: 604_801 }), 'cooldown_s must be an integer from 0 to 604800 (seconds)'],
    ['enabled as text', overspeed({ enabled: 'yes' }), 'enabled must be true or false'],
  ])('when the body has %s, then the problem names the field', (_case, body, expected) => {
    expect(problem(body)).toBe(expected);
  });

  it('when a VIN is not the company\'s, then the problem names the first such VIN', () => {
    expect(problem({ name: 'n', kind: 'overspeed', threshold: 90, vins: [VIN_A, VIN_B, '93HFB9640PZ100003'] }, new Set([VIN_A])))
      .toBe(`vins: ${VIN_B} is not a vehicle of the company`);
  });
});
