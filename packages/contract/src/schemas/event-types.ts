/**
 * One schema per event type (D12), for the OpenAPI document's `webhooks` section and the SDK's
 * typed events. Fields a company's plan does not include are left out of `data` (docs/events.md
 * "Who sees what"), so the datapoint fields of trip events are optional.
 */
import { Type, type TSchema } from 'typebox';
import { EVENT_TYPES, type EventType } from './events.js';
import { CommandStatus } from './vehicle-command.js';

const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const maybe = (schema: TSchema, description: string) => Type.Optional(nullable({ ...schema, description }));

const TripStartData = Type.Object({
  vin: Type.String(),
  start_date_time: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS at -03:00' }),
  start_odometer: maybe(Type.Number(), 'km; only with the odometer datapoint'),
  start_latitude: maybe(Type.Number(), 'only with the latitude datapoint'),
  start_longitude: maybe(Type.Number(), 'only with the longitude datapoint'),
});

const TripEndData = Type.Object({
  ...TripStartData.properties,
  end_date_time: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS at -03:00' }),
  duration: Type.String({ description: 'HH:MM:SS' }),
  distance: maybe(Type.Number(), 'km; with the odometer, or latitude and longitude, datapoints'),
  avg_speed: maybe(Type.Number(), 'km/h; with the speed datapoint'),
  max_speed: maybe(Type.Number(), 'km/h; with the speed datapoint'),
  end_odometer: maybe(Type.Number(), 'km; with the odometer datapoint'),
  avg_fuel_consumption: maybe(Type.Number(), 'km/l; with the fuel_level datapoint'),
  end_latitude: maybe(Type.Number(), 'with the latitude datapoint'),
  end_longitude: maybe(Type.Number(), 'with the longitude datapoint'),
});

const RecordEventData = Type.Object({
  vin: Type.String(),
  date_time: Type.String({ description: "The record's instant, YYYY-MM-DDTHH:MM:SS at -03:00" }),
  event: Type.String({ description: 'The record\'s `event` value' }),
});

const PresenceData = Type.Object({
  vin: Type.String(),
  last_record: nullable(Type.String({ description: "The newest record's instant, YYYY-MM-DDTHH:MM:SS at -03:00" })),
});

const GeofenceData = Type.Object({
  vin: Type.String(),
  geofence_id: Type.String(),
  geofence_name: Type.String({ description: 'The name when the event was judged' }),
  date_time: Type.String({ description: "The confirming record's instant, YYYY-MM-DDTHH:MM:SS at -03:00" }),
  latitude: Type.Number({ description: "The confirming record's position" }),
  longitude: Type.Number(),
  late: Type.Boolean({ description: 'The record arrived after the lateness window (buffered history), not live' }),
});

const localTime = (description: string) => Type.String({ description: `${description}, YYYY-MM-DDTHH:MM:SS at -03:00` });

/** What every alert event carries; the position is the triggering record's, when it has one and it may be read. */
const alertData = (fields: Record<string, TSchema>) => Type.Object({
  vin: Type.String(),
  rule_id: Type.String(),
  rule_name: Type.String({ description: 'The name when the event was judged' }),
  date_time: localTime('The instant that fired: the triggering record\'s (no_data: the clock\'s)'),
  ...fields,
  latitude: Type.Optional(Type.Number({ description: 'The triggering record\'s position; only with the latitude datapoint' })),
  longitude: Type.Optional(Type.Number({ description: 'Only with the longitude datapoint' })),
});

export const EVENT_DATA_SCHEMAS: Readonly<Record<EventType, TSchema>> = Object.freeze({
  'command.succeeded': CommandStatus,
  'command.failed': CommandStatus,
  'trip.started': TripStartData,
  'trip.ended': TripEndData,
  'vehicle.ignition_on': RecordEventData,
  'vehicle.ignition_off': RecordEventData,
  'vehicle.charging': RecordEventData,
  'vehicle.online': PresenceData,
  'vehicle.offline': PresenceData,
  'geofence.entered': GeofenceData,
  'geofence.exited': GeofenceData,
  'geofence.crossed': GeofenceData,
  'alert.overspeed': alertData({
    speed: Type.Number({ description: 'km/h: the highest of the episode so far' }), limit: Type.Number({ description: "km/h: the rule's threshold" }),
    since: localTime('When the speeding began'),
  }),
  'alert.idling': alertData({ since: localTime('When the idling began'), duration_s: Type.Integer({ description: 'How long it had lasted, seconds' }) }),
  'alert.no_data': alertData({
    last_record: nullable(localTime("The newest record's instant (null: the vehicle never reported)")),
    silent_s: Type.Integer({ description: 'Seconds without a record (since the rule first looked, when there never was one)' }),
  }),
  'alert.low_fuel': alertData({ fuel_level: Type.Number({ description: '%' }), threshold: Type.Number({ description: "%: the rule's threshold" }) }),
  'alert.low_battery': alertData({ lv_battery_voltage: Type.Number({ description: 'V' }), threshold: Type.Number({ description: "V: the rule's threshold" }) }),
  'alert.after_hours': alertData({
    speed: maybe(Type.Number(), 'km/h; only with the speed datapoint'),
    ignition: maybe(Type.Boolean(), 'Engine on (rpm, or the last ignition event); null when unknown; only with the rpm or event datapoint'),
  }),
  'webhook.ping': Type.Object({ endpoint_id: Type.String() }),
  'webhook.verification': Type.Object({ endpoint_id: Type.String(), challenge: Type.String({ description: 'Answer 2xx with `{"challenge": "<this value>"}`' }) }),
});

const WHEN: Readonly<Record<EventType, string>> = Object.freeze({
  'command.succeeded': 'A command of the application ended Success; data is what GET /vehicle-command/{id} answers.',
  'command.failed': 'A command of the application ended Error (the automaker, the tracker, or the deadline); data is what GET /vehicle-command/{id} answers.',
  'trip.started': 'Trip detection opened a trip.',
  'trip.ended': 'Trip detection closed a trip; data is the trip record of POST /vehicle-trips.',
  'vehicle.ignition_on': 'A stored record says `ignition on`.',
  'vehicle.ignition_off': 'A stored record says `ignition off`.',
  'vehicle.charging': 'A stored record says `charging plug status change`.',
  'vehicle.online': 'The vehicle sent a record after being offline.',
  'vehicle.offline': 'No record from the vehicle for --vehicle-offline-after (15 min).',
  'geofence.entered': 'The vehicle is inside a geofence of its company: positions past the boundary by the margin for the dwell (docs/geofences.md).',
  'geofence.exited': 'The vehicle is outside a geofence it was inside, by the same rule.',
  'geofence.crossed': 'Two consecutive positions outside a geofence, the straight line between them through it (sparse reports).',
  'alert.overspeed': 'An overspeed rule fired: faster than its limit for its duration (docs/alerts.md).',
  'alert.idling': 'An idling rule fired: engine on, standing still, for its duration.',
  'alert.no_data': 'A no_data rule fired: no record from the vehicle for its duration.',
  'alert.low_fuel': 'A low_fuel rule fired: fuel_level below its threshold for its duration.',
  'alert.low_battery': 'A low_battery rule fired: lv_battery_voltage below its threshold for its duration.',
  'alert.after_hours': 'An after_hours rule fired: the vehicle in use (ignition on or moving) outside its working hours.',
  'webhook.ping': 'POST /webhook-endpoints/{id}/test.',
  'webhook.verification': 'Sent to a new endpoint (and by POST /webhook-endpoints/{id}/verify): answer 2xx with {"challenge": data.challenge}.',
});

/** The event of a type as sent: the envelope with that type's data. */
export function eventSchema(type: EventType): TSchema {
  return Type.Object({
    id: Type.String({ description: 'Also the webhook-id header: deduplicate by it' }),
    type: Type.Literal(type),
    timestamp: Type.String({ description: 'When it happened, YYYY-MM-DDTHH:MM:SS-03:00' }),
    data: EVENT_DATA_SCHEMAS[type],
  }, { description: WHEN[type] });
}

/** The OpenAPI 3.1 `webhooks` section: one signed POST per event type. */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, {
    post: {
      summary: type,
      operationId: `${type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())}Webhook`,
      security: [{ webhookSignature: [] }],
      description: `${WHEN[type]} Signed as Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature); see docs/events.md.`,
      tags: ['webhooks'],
      requestBody: { required: true, content: { 'application/json': { schema: eventSchema(type) } } },
      responses: { '2XX': { description: 'Received; anything else is retried (410 disables the endpoint)' } },
    },
  }]));
}
