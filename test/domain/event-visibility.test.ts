/** Who sees what of an event (D12): the per-type rule decides, and an unknown type is seen whole. */
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '@telematics/contract';
import { dependsOnDatapoints, EVENT_VISIBILITY, eventAsSeenBy, type OutboxEvent } from '../../src/domain/event-visibility.js';

const viewer = { companyId: 'co', applicationId: 'app' };
const event = (type: string, data: unknown = {}): OutboxEvent => ({ id: 'e1', type, vin: '9BWZZZ377VT100001', companyId: 'co', applicationId: null, occurredAt: Date.UTC(2026, 11, 1, 15), data });
const none = () => false;

describe('event visibility', () => {
  it('when the contract lists an event type, then it has exactly one visibility rule', () => {
    expect(Object.keys(EVENT_VISIBILITY).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('when an event repeats a record\'s event value, then it is hidden from a viewer without the event datapoint and whole with it', () => {
    const ignition = event('vehicle.ignition_on', { vin: 'v' });
    expect(eventAsSeenBy(ignition, viewer, none)).toBeUndefined();
    expect(eventAsSeenBy(ignition, viewer, (d) => d === 'event')?.data).toEqual({ vin: 'v' });
    expect(dependsOnDatapoints('vehicle.charging')).toBe(true);
  });

  it('when a trip event is seen, then only the fields whose sources the viewer may read are shown', () => {
    const seen = eventAsSeenBy(event('trip.ended', { vin: 'v', distance: 5, max_speed: 60, start_odometer: 10 }), viewer, (d) => d === 'odometer');
    expect(seen!.data).toEqual({ vin: 'v', distance: 5, start_odometer: 10 });
    expect(dependsOnDatapoints('trip.started')).toBe(true);
  });

  it('when an event does not depend on datapoints or its type is unknown (even a prototype name), then it is seen whole', () => {
    for (const type of ['vehicle.online', 'command.failed', 'fleet.renamed', 'constructor', '__proto__']) {
      expect(dependsOnDatapoints(type)).toBe(false);
      expect(eventAsSeenBy(event(type, { a: 1 }), viewer, none)?.data).toEqual({ a: 1 });
    }
  });

  it('when the event belongs to another company or another application, then it is not seen at all', () => {
    expect(eventAsSeenBy({ ...event('vehicle.online'), companyId: 'other' }, viewer, () => true)).toBeUndefined();
    expect(eventAsSeenBy({ ...event('vehicle.online'), applicationId: 'other-app' }, viewer, () => true)).toBeUndefined();
  });

  it('when an alert was judged from a datapoint the viewer may not read, then it is not seen at all; a no_data alert needs none', () => {
    const data = { vin: 'v', rule_id: 'r', rule_name: 'n', date_time: 't', fuel_level: 8, threshold: 10 };
    expect(eventAsSeenBy(event('alert.low_fuel', data), viewer, (d) => d === 'speed')).toBeUndefined();
    expect(eventAsSeenBy(event('alert.low_fuel', data), viewer, (d) => d === 'fuel_level')?.data).toEqual(data);
    expect(eventAsSeenBy(event('alert.low_battery', { vin: 'v' }), viewer, (d) => d === 'fuel_level')).toBeUndefined();
    expect(eventAsSeenBy(event('alert.overspeed', { vin: 'v' }), viewer, (d) => d === 'rpm')).toBeUndefined();
    expect(eventAsSeenBy(event('alert.idling', { vin: 'v' }), viewer, (d) => d === 'speed')).toBeUndefined();
    expect(eventAsSeenBy(event('alert.idling', { vin: 'v' }), viewer, (d) => d === 'speed' || d === 'event')?.data).toEqual({ vin: 'v' });
    expect(eventAsSeenBy(event('alert.no_data', { vin: 'v', silent_s: 600 }), viewer, none)?.data).toEqual({ vin: 'v', silent_s: 600 });
    expect(dependsOnDatapoints('alert.no_data')).toBe(true);
  });

  it('when an alert is seen, then its position is shown only with both latitude and longitude, and each value field only with its datapoint', () => {
    const data = { vin: 'v', rule_id: 'r', speed: 40, ignition: true, latitude: -23.5, longitude: -46.6 };
    expect(eventAsSeenBy(event('alert.after_hours', data), viewer, (d) => d === 'event' || d === 'latitude')?.data).toEqual({ vin: 'v', rule_id: 'r', ignition: true });
    expect(eventAsSeenBy(event('alert.after_hours', data), viewer, (d) => d === 'speed')?.data).toEqual({ vin: 'v', rule_id: 'r', speed: 40 });
    expect(eventAsSeenBy(event('alert.after_hours', data), viewer, () => true)?.data).toEqual(data);
  });
});
