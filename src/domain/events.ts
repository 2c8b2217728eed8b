/**
 * The events of D12 as the outbox stores them: what happened, to which vehicle, visible to which
 * company (and, for a command, which application), with the data a receiver gets. Written in the
 * transaction of the change they report (src/store/event-appends.ts); delivery comes later.
 *
 * Ids are derived from what the event reports wherever that is unique (a command's outcome, a
 * trip, a record's instant), so writing the same fact twice (a re-sent record, a trip detected
 * again after a rewind) yields one event, not two. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import type { EventType } from '@telematics/contract';
import type { AlertFiring } from './alerts/judge-alert.js';
import { formatIsoLocal, formatSpacedLocal } from './time.js';
import { tripRecord, tripStartRecord, type TripFacts, type TripStart } from './trip-record.js';

export { EVENT_TYPES, isEventType, type EventType } from '@telematics/contract';

/** An event about to be written. */
export interface EventDraft {
  readonly id: string;
  readonly type: EventType;
  readonly vin: string;
  readonly companyId: string;
  /** Only command events belong to one application. */
  readonly applicationId: string | null;
  /** When it happened (epoch ms): the outcome's write, the trip's end, the record's instant. */
  readonly occurredAt: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A UUID-shaped id (version nibble 5, RFC 4122 variant) from the fact an event reports. */
export function eventIdOf(...parts: readonly (string | number)[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A command's row as its outcome leaves it. */
export interface CommandOutcome {
  readonly id: string;
  readonly application_id: string;
  readonly company_id: string;
  readonly vin: string;
  readonly command: string;
  readonly status: string;
  /** JSON text, as stored. */
  readonly detail: string;
  readonly updated_at: number;
}

/** GET /vehicle-command/{id}'s answer for a command row: also the data of its events (D12). */
export function commandStatusBody(row: CommandOutcome) {
  return {
    id: row.id, vin: row.vin, command: row.command, status: row.status,
    detail: JSON.parse(row.detail) as unknown, updated: formatSpacedLocal(row.updated_at),
  };
}

/** `command.succeeded` or `command.failed`; one per command, whoever wrote the outcome. */
export function commandOutcomeEvent(row: CommandOutcome): EventDraft {
  const type = row.status === 'Success' ? 'command.succeeded' : 'command.failed';
  return {
    id: eventIdOf(type, row.id), type, vin: row.vin, companyId: row.company_id, applicationId: row.application_id,
    occurredAt: row.updated_at, data: commandStatusBody(row),
  };
}

/** `trip.ended` with the trip record of POST /vehicle-trips, every field. */
export function tripEndedEvent(companyId: string, trip: TripFacts): EventDraft {
  return {
    id: eventIdOf('trip.ended', trip.vin, trip.start_ts, trip.end_ts), type: 'trip.ended', vin: trip.vin, companyId,
    applicationId: null, occurredAt: trip.end_ts, data: tripRecord(trip),
  };
}

/**
 * `trip.started` when detection opens a trip: where and when it started. Its id is the VIN and
 * start instant, as a trip's, so opening the same trip again after a rewind writes nothing new.
 * A movement that ends shorter than the minimum trip (D9) has a start and no end.
 */
export function tripStartedEvent(companyId: string, start: TripStart): EventDraft {
  return {
    id: eventIdOf('trip.started', start.vin, start.start_ts), type: 'trip.started', vin: start.vin, companyId,
    applicationId: null, occurredAt: start.start_ts, data: tripStartRecord(start),
  };
}

/**
 * The `event` datapoint values that are events of their own: ignition changes (trackers report
 * them, D11) and the charging plug (the interface's one observed value).
 */
const RECORD_EVENTS: Readonly<Record<string, EventType>> = Object.freeze({
  'ignition on': 'vehicle.ignition_on',
  'ignition off': 'vehicle.ignition_off',
  'charging plug status change': 'vehicle.charging',
});

/** Whether a stored record's `event` value makes an event (to skip the work for every other record). */
export const isEventfulValue = (value: string | null | undefined): boolean => value != null && Object.hasOwn(RECORD_EVENTS, value);

/** The event a stored record's `event` value implies, if any. */
export function recordEvent(companyId: string, vin: string, ts: number, value: string | null | undefined): EventDraft | undefined {
  if (!isEventfulValue(value)) return undefined;
  const type = RECORD_EVENTS[value!]!;
  return { id: eventIdOf(type, vin, ts), type, vin, companyId, applicationId: null, occurredAt: ts, data: { vin, date_time: formatIsoLocal(ts), event: value } };
}

/** `vehicle.online` / `vehicle.offline`: `lastSeen` is the instant of the newest record. */
export function presenceEvent(companyId: string, vin: string, online: boolean, at: number, lastSeen: number | null): EventDraft {
  const type = online ? 'vehicle.online' : 'vehicle.offline';
  return {
    id: eventIdOf(type, vin, at), type, vin, companyId, applicationId: null, occurredAt: at,
    data: { vin, last_record: lastSeen === null ? null : formatIsoLocal(lastSeen) },
  };
}

/** A geofence transition's event (D13): the record that confirmed it, and whether it came late. */
export function geofenceEvent(
  companyId: string, vin: string, transition: 'entered' | 'exited' | 'crossed',
  fence: { readonly id: string; readonly name: string }, position: { readonly ts: number; readonly lat: number; readonly lon: number }, late: boolean,
): EventDraft {
  const type = `geofence.${transition}` as const;
  return {
    id: eventIdOf(type, vin, fence.id, position.ts), type, vin, companyId, applicationId: null, occurredAt: position.ts,
    data: { vin, geofence_id: fence.id, geofence_name: fence.name, date_time: formatIsoLocal(position.ts), latitude: position.lat, longitude: position.lon, late },
  };
}

/** The values an alert fired with, by kind, as its event's data. */
function alertValues(firing: AlertFiring): Record<string, unknown> {
  switch (firing.kind) {
    case 'overspeed': return { speed: firing.speed, limit: firing.limit, since: formatIsoLocal(firing.since) };
    case 'idling': return { since: formatIsoLocal(firing.since), duration_s: firing.durationS };
    case 'no_data': return { last_record: firing.lastRecord === null ? null : formatIsoLocal(firing.lastRecord), silent_s: firing.silentS };
    case 'low_fuel': return { fuel_level: firing.fuelLevel, threshold: firing.threshold };
    case 'low_battery': return { lv_battery_voltage: firing.lvBatteryVoltage, threshold: firing.threshold };
    case 'after_hours': return { speed: firing.speed, ignition: firing.ignition };
  }
}

/**
 * An alert rule's event (D13). A rule fires once per episode, so the rule and the episode's
 * start name the fact: judging the same episode again (after a crash, on another process)
 * writes the same id.
 */
export function alertEvent(companyId: string, vin: string, rule: { readonly id: string; readonly name: string }, firing: AlertFiring): EventDraft {
  const type = `alert.${firing.kind}` as const;
  const position = firing.position === null ? {} : { latitude: firing.position.latitude, longitude: firing.position.longitude };
  return {
    id: eventIdOf(type, vin, rule.id, firing.since), type, vin, companyId, applicationId: null, occurredAt: firing.at,
    data: { vin, rule_id: rule.id, rule_name: rule.name, date_time: formatIsoLocal(firing.at), ...alertValues(firing), ...position },
  };
}
