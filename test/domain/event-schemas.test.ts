/**
 * Every event the service builds matches its type's schema in the OpenAPI `webhooks` section (the
 * SDK's types come from there), whether the application may read every datapoint or none.
 */
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventSchema, webhooksSection } from '@telematics/contract';
import { alertEvent, commandOutcomeEvent, geofenceEvent, presenceEvent, recordEvent, tripEndedEvent, tripStartedEvent, type EventDraft } from '../../src/domain/events.js';
import { eventAsSeenBy } from '../../src/domain/event-visibility.js';

const VIN = '9BWZZZ377VT100001';
const T = Date.UTC(2026, 10, 20, 12);
const trip = {
  vin: VIN, start_ts: T, end_ts: T + 600_000, duration_s: 600, distance_km: 5.5, avg_speed: 33, max_speed: 61, start_odometer: 1000,
  end_odometer: 1005.5, avg_fuel_consumption: null, start_latitude: -23.5, start_longitude: -46.6, end_latitude: null, end_longitude: null,
};
const drafts: EventDraft[] = [
  commandOutcomeEvent({ id: 'c1', application_id: 'app', company_id: 'co', vin: VIN, command: 'diagnostics', status: 'Success', detail: '{"odometer":1}', updated_at: T }),
  commandOutcomeEvent({ id: 'c2', application_id: 'app', company_id: 'co', vin: VIN, command: 'disable_ignition', status: 'Error', detail: '"Commands blocked."', updated_at: T }),
  tripStartedEvent('co', trip),
  tripEndedEvent('co', trip),
  recordEvent('co', VIN, T, 'ignition on')!,
  recordEvent('co', VIN, T, 'ignition off')!,
  recordEvent('co', VIN, T, 'charging plug status change')!,
  presenceEvent('co', VIN, true, T, T - 1000),
  presenceEvent('co', VIN, false, T, null),
  ...(['entered', 'exited', 'crossed'] as const).map((t) => geofenceEvent('co', VIN, t, { id: 'f1', name: 'Depot' }, { ts: T, lat: -23.55, lon: -46.63 }, t === 'exited')),
];
const rule = { id: 'r1', name: 'Speeding' };
const here = { latitude: -23.5, longitude: -46.6 };
drafts.push(
  alertEvent('co', VIN, rule, { kind: 'overspeed', at: T, since: T - 60_000, position: here, speed: 121.5, limit: 90 }),
  alertEvent('co', VIN, rule, { kind: 'idling', at: T, since: T - 600_000, position: null, durationS: 600 }),
  alertEvent('co', VIN, rule, { kind: 'no_data', at: T, since: T - 3_600_000, position: null, lastRecord: T - 3_600_000, silentS: 3600 }),
  alertEvent('co', VIN, rule, { kind: 'no_data', at: T, since: T - 3_600_000, position: null, lastRecord: null, silentS: 3600 }),
  alertEvent('co', VIN, rule, { kind: 'low_fuel', at: T, since: T, position: here, fuelLevel: 8, threshold: 10 }),
  alertEvent('co', VIN, rule, { kind: 'low_battery', at: T, since: T, position: null, lvBatteryVoltage: 11.2, threshold: 11.8 }),
  alertEvent('co', VIN, rule, { kind: 'after_hours', at: T, since: T, position: here, speed: null, ignition: true }),
);

describe('event schemas', () => {
  it('when the service builds any event, then it matches its type\'s schema, with every datapoint or only those without one', () => {
    expect(new Set(drafts.map((d) => d.type)).size).toBe(EVENT_TYPES.length - 2); // all but webhook.*
    for (const draft of drafts) {
      const validator = Compile(eventSchema(draft.type));
      for (const allowed of [() => true, (d: string) => d === 'speed']) {
        const event = eventAsSeenBy(draft, { companyId: 'co', applicationId: 'app' }, allowed);
        if (event === undefined) continue; // ignition, charging, positions and most alerts are not shown without their datapoints
        expect(validator.Check(event), `${draft.type}: ${JSON.stringify([...validator.Errors(event)].slice(0, 2))}`).toBe(true);
      }
    }
    expect(Compile(eventSchema('webhook.verification')).Check({ id: 'x', type: 'webhook.verification', timestamp: 't', data: { endpoint_id: 'e', challenge: 'c' } })).toBe(true);
    expect(Compile(eventSchema('trip.ended')).Check({ id: 'x', type: 'trip.started', timestamp: 't', data: {} })).toBe(false);
  });

  it('when the OpenAPI webhooks section is built, then it has one signed POST per event type', () => {
    expect(Object.keys(webhooksSection())).toEqual([...EVENT_TYPES]);
  });
});

describe('alert events', () => {
  it('when the same episode fires again, then its event has the same id; another episode or rule, another id', () => {
    const firing = { kind: 'overspeed', at: T, since: T - 60_000, position: null, speed: 100, limit: 90 } as const;
    const once = alertEvent('co', VIN, { id: 'r1', name: 'Speeding' }, firing);
    expect(alertEvent('co', VIN, { id: 'r1', name: 'Renamed' }, { ...firing, at: T + 5000, speed: 120 }).id).toBe(once.id);
    expect(alertEvent('co', VIN, { id: 'r1', name: 'Speeding' }, { ...firing, since: T }).id).not.toBe(once.id);
    expect(alertEvent('co', VIN, { id: 'r2', name: 'Speeding' }, firing).id).not.toBe(once.id);
    expect(once).toMatchObject({
      type: 'alert.overspeed', occurredAt: T, applicationId: null,
      data: { vin: VIN, rule_id: 'r1', rule_name: 'Speeding', date_time: '2026-11-20T09:00:00', speed: 100, limit: 90, since: '2026-11-20T08:59:00' },
    });
    expect(Object.keys(once.data)).not.toContain('latitude');
  });
});
