/** The events of D12 as applications read them: GET /events, GET /events/stream and webhooks. */
import { Type, type Static } from 'typebox';

export const EVENT_TYPES = [
  'command.succeeded', 'command.failed', 'trip.started', 'trip.ended',
  'vehicle.ignition_on', 'vehicle.ignition_off', 'vehicle.online', 'vehicle.offline', 'vehicle.charging',
  'geofence.entered', 'geofence.exited', 'geofence.crossed',
  'alert.overspeed', 'alert.idling', 'alert.no_data', 'alert.low_fuel', 'alert.low_battery', 'alert.after_hours',
  'webhook.ping', 'webhook.verification',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (name: string): name is EventType => (EVENT_TYPES as readonly string[]).includes(name);

/** Events per page of GET /events, at most and by default. */
export const MAX_EVENTS_PAGE = 500;
export const DEFAULT_EVENTS_PAGE = 100;

/** Every event as it leaves the service (D12): at most 16 KiB. */
export interface ServiceEvent<T extends EventType = EventType, D = Record<string, unknown>> {
  readonly id: string;
  readonly type: T;
  /** When it happened: ISO 8601 at -03:00. */
  readonly timestamp: string;
  readonly data: D;
}

export const EventEnvelope = Type.Object({
  id: Type.String({ description: 'Unique per event and the same on every delivery (the webhook-id): deduplicate by it' }),
  // A string with an enum, not a union of literals: the serializer writes it as the string it is.
  type: Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES] }),
  timestamp: Type.String({ description: 'When it happened, YYYY-MM-DDTHH:MM:SS-03:00' }),
  data: Type.Object({}, { additionalProperties: true, description: 'Per type: see docs/events.md' }),
});

export const EventsQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'A next_cursor of an earlier page; without it, from the oldest event kept' })),
  types: Type.Optional(Type.String({ description: `Comma-separated event types (${EVENT_TYPES.join(', ')}); all when absent` })),
  vin: Type.Optional(Type.String({ description: 'Only the events of this VIN' })),
  limit: Type.Optional(Type.String({ description: `1 to ${MAX_EVENTS_PAGE}, default ${DEFAULT_EVENTS_PAGE}` })),
});
export type EventsQuery = Static<typeof EventsQuery>;

export const EventStreamQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'Where to resume when no Last-Event-ID header is sent; without either, from now' })),
  types: EventsQuery.properties.types,
  vin: EventsQuery.properties.vin,
});
export type EventStreamQuery = Static<typeof EventStreamQuery>;

export const EventsPage = Type.Object({
  data: Type.Array(EventEnvelope, { description: 'Oldest first' }),
  next_cursor: Type.String({ description: 'Pass as `after` to read on; also when data is empty (poll again later)' }),
  has_more: Type.Boolean({ description: 'true when more events are already waiting: ask again at once' }),
});
export type EventsPage = Static<typeof EventsPage>;
