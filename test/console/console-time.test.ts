/**
 * The console's display zone and its judgement of stale states, without a browser: offsets as
 * Intl gives them, a datetime-local value read back in its zone, a held answer aged past the
 * offline threshold.
 */
import { describe, expect, it } from 'vitest';
import { fromZoneLocalInput, offsetLabel, offsetMinutes, zoneLocalInput } from '../../packages/console/src/i18n/time-zone.js';
import { translator } from '../../packages/console/src/i18n/i18n.js';
import { shownState } from '../../packages/console/src/parts/vehicle-status.js';

const AT = Date.parse('2026-12-02T12:00:00Z');

describe('console display zone', () => {
  it('when a zone is named, then its offset is written with a true minus sign', () => {
    expect(offsetMinutes('America/Sao_Paulo', AT)).toBe(-180);
    expect(offsetLabel('America/Sao_Paulo', AT)).toBe('UTC\u221203:00');
    expect(offsetLabel('Asia/Kolkata', AT)).toBe('UTC+05:30');
    expect(offsetLabel('UTC', AT)).toBe('UTC+00:00');
  });

  it('when a window start is typed in a zone, then it means that wall clock there, and shows back the same', () => {
    expect(zoneLocalInput(AT, 'America/Sao_Paulo')).toBe('2026-12-02T09:00');
    expect(fromZoneLocalInput('2026-12-02T09:00', 'America/Sao_Paulo')).toBe(AT);
    expect(fromZoneLocalInput('2026-12-02T21:00', 'Asia/Tokyo')).toBe(AT);
    // Across a daylight-saving change (Berlin leaves summer time on 25 October 2026).
    const berlin = fromZoneLocalInput('2026-10-25T12:00', 'Europe/Berlin');
    expect(new Date(berlin).toISOString()).toBe('2026-10-25T11:00:00.000Z');
  });

  it('when the zone changes, then the same service time is shown moved by the offset', () => {
    const service = translator('pt-BR', 'America/Sao_Paulo').time('2026-12-02 09:00:00');
    const utc = translator('pt-BR', 'UTC').time('2026-12-02 09:00:00');
    expect(service).toContain('09:00:00');
    expect(utc).toContain('12:00:00');
    expect(translator('en', 'UTC').coordinate(-23.5)).toBe('-23.50000');
  });
});

describe('a held state past the offline threshold', () => {
  const record = { date_time: '2026-12-02 09:00:00' };
  const threshold = 15 * 60_000;
  it('when the record is younger than the threshold, then the service\'s state stands', () => {
    expect(shownState({ state: 'moving', record }, threshold, AT + 14 * 60_000)).toBe('moving');
  });
  it('when it has grown older, then the vehicle is not reporting, not moving', () => {
    expect(shownState({ state: 'moving', record }, threshold, AT + 16 * 60_000)).toBe('offline');
    expect(shownState({ state: 'no_data', record: null }, threshold, AT)).toBe('no_data');
  });
});
