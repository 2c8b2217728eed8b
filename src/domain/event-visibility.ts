/**
 * Who may see an event, and what of it (D12): an application sees the command events of its own
 * commands only and the vehicle and trip events of its company's vehicles; nothing it sees
 * carries a datapoint outside what its company may read for that vehicle (the plan ∩ the OEM's
 * datapoints, D10). The same rules serve the feed, the stream and webhooks. Pure: no I/O.
 */
import type { EventType, ServiceEvent } from '@telematics/contract';
import { alertDataSeen } from './alerts/alert-visibility.js';
import { formatIsoWithOffset } from './time.js';
import { TRIP_FIELD_SOURCES } from './trip-record.js';

export interface EventViewer {
  readonly companyId: string;
  readonly applicationId: string;
}

/** An event as the outbox holds it. */
export interface OutboxEvent {
  readonly id: string;
  readonly type: string;
  readonly vin: string;
  readonly companyId: string;
  readonly applicationId: string | null;
  readonly occurredAt: number;
  readonly data: unknown;
}

/** Whether a datapoint of the event's vehicle is readable by the viewer's company. */
export type DatapointAllowed = (datapoint: string) => boolean;

/**
 * What of an event depends on the datapoints its viewer may read:
 * - `whole`: nothing; the event is seen whole or not at all by who it concerns;
 * - `with-event-datapoint`: it repeats a record's `event` value, so it is seen only where the
 *   `event` datapoint is;
 * - `trip-fields`: it carries trip fields, each shown only where its source datapoints are;
 * - `with-position`: it tells where the vehicle is, so it is seen only where latitude and
 *   longitude are;
 * - `alert-fields`: an alert, seen only where the datapoints it was judged from are, and each of
 *   its datapoint fields only where that datapoint is (domain/alerts/alert-visibility.ts).
 */
export type EventVisibility = 'whole' | 'with-event-datapoint' | 'trip-fields' | 'with-position' | 'alert-fields';

/** One entry per event type: the compiler asks for a new type's rule where its schema is added. */
export const EVENT_VISIBILITY = {
  'command.succeeded': 'whole',
  'command.failed': 'whole',
  'trip.started': 'trip-fields',
  'trip.ended': 'trip-fields',
  'vehicle.ignition_on': 'with-event-datapoint',
  'vehicle.ignition_off': 'with-event-datapoint',
  'vehicle.online': 'whole',
  'vehicle.offline': 'whole',
  'vehicle.charging': 'with-event-datapoint',
  'geofence.entered': 'with-position',
  'geofence.exited': 'with-position',
  'geofence.crossed': 'with-position',
  'alert.overspeed': 'alert-fields',
  'alert.idling': 'alert-fields',
  'alert.no_data': 'alert-fields',
  'alert.low_fuel': 'alert-fields',
  'alert.low_battery': 'alert-fields',
  'alert.after_hours': 'alert-fields',
  'webhook.ping': 'whole',
  'webhook.verification': 'whole',
} as const satisfies Record<EventType, EventVisibility>;

/** An outbox row's type is text: one this release does not know is seen whole, as before. */
const visibilityOf = (type: string): EventVisibility =>
  Object.hasOwn(EVENT_VISIBILITY, type) ? EVENT_VISIBILITY[type as EventType] : 'whole';

/** Whether the viewer may see this event at all, before datapoints are looked at. */
export function mayConcern(event: Pick<OutboxEvent, 'companyId' | 'applicationId'>, viewer: EventViewer): boolean {
  return event.companyId === viewer.companyId && (event.applicationId === null || event.applicationId === viewer.applicationId);
}

/** Whether the event's type needs to know the vehicle's readable datapoints. */
export const dependsOnDatapoints = (type: string): boolean => visibilityOf(type) !== 'whole';

/** The event as the viewer receives it, or undefined when the viewer may not see it. */
export function eventAsSeenBy(event: OutboxEvent, viewer: EventViewer, allowed: DatapointAllowed): ServiceEvent | undefined {
  if (!mayConcern(event, viewer)) return undefined;
  const visibility = visibilityOf(event.type);
  if (visibility === 'with-event-datapoint' && !allowed('event')) return undefined;
  if (visibility === 'with-position' && !(allowed('latitude') && allowed('longitude'))) return undefined;
  const given = event.data as Record<string, unknown>;
  const data = visibility === 'trip-fields' ? tripFieldsAllowed(given, allowed) : visibility === 'alert-fields' ? alertDataSeen(event.type, given, allowed) : given;
  if (data === undefined) return undefined;
  return { id: event.id, type: event.type as EventType, timestamp: formatIsoWithOffset(event.occurredAt), data };
}

function tripFieldsAllowed(data: Record<string, unknown>, allowed: DatapointAllowed): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data)) {
    const sources = TRIP_FIELD_SOURCES[field];
    if (sources?.some((needs) => needs.every(allowed))) shown[field] = value;
  }
  return shown;
}
