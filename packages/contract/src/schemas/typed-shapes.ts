/**
 * The typed shapes of the interface's requests and answers, as the OpenAPI document shows them
 * and as clients generate types from them. Where these are stricter than what the service
 * validates with (vehicle-command.ts, vehicle-data.ts, vehicle-trips.ts), it is on purpose: a
 * wrong VIN, command or datapoint must get the interface's exact text from the service's own
 * checks, not a schema validator's message. Each has an `$id`: its name in the document.
 */
import { Type, type TSchema } from 'typebox';
import { COMMAND_NAMES } from '../command-catalogue.js';
import { SIGNATURE_PATTERN } from '../command-signature.js';
import { DATAPOINTS } from '../datapoints.js';
import { TRIP_DATAPOINT_NAMES } from '../trip-datapoints.js';
import { GeofenceBody } from './geofences.js';
import { MAX_LISTED } from './list-bounds.js';
import { SIGNATURE_HEADER_TEXT, VehicleCommandHeaders } from './vehicle-command.js';

const nullable = (schema: TSchema, description: string) => Type.Union([schema, Type.Null()], { description });
const LOCAL_TIME = 'YYYY-MM-DD HH:MM:SS at -03:00';

export const VehicleCommandRequestShape = Type.Object({
  vin: Type.String({ description: 'The VIN (17 characters)' }),
  command: Type.Enum([...COMMAND_NAMES], { description: 'The command; which ones a vehicle takes depends on its automaker and the company\'s plan' }),
  code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits of the first step\'s answer, for the second step of enable_ignition and disable_ignition; not signed' })),
}, { $id: 'VehicleCommandRequest' });

/** The headers as the interface requires them: X-Signature too (the service answers its own texts when it is missing). */
export const VehicleCommandHeadersShape = Type.Object({
  'x-signature': Type.String({ pattern: SIGNATURE_PATTERN.source, description: SIGNATURE_HEADER_TEXT }),
  'idempotency-key': VehicleCommandHeaders.properties['idempotency-key'],
});

const commandFields = {
  id: Type.String({ format: 'uuid', description: 'Use it with GET /vehicle-command/{command_id}' }),
  vin: Type.String(),
  command: Type.String(),
};

export const CommandConfirmationShape = Type.Object({
  ...commandFields,
  status: Type.Literal('Confirmation'),
  code: Type.String({ pattern: '^[0-9]{6}$', description: 'Send it back with the same vin and command to confirm' }),
  message: Type.String({ description: 'Alert text in Portuguese, to show the user before confirming' }),
}, { $id: 'CommandConfirmation', description: 'First step of an ignition command: nothing was sent to the vehicle yet' });

export const CommandPendingShape = Type.Object({
  ...commandFields,
  status: Type.Literal('Pending'),
  created: Type.String({ description: `Registration time, ${LOCAL_TIME}` }),
}, { $id: 'CommandPending', description: 'Accepted: the automaker is running it; poll GET /vehicle-command/{command_id}' });

export const CommandStartFailedShape = Type.Object({
  ...commandFields,
  status: Type.Literal('Error'),
  detail: Type.String({ description: 'Why the automaker could not start it (docs/errors.md)' }),
}, { $id: 'CommandStartFailed', description: 'The automaker could not start the command' });

export const CommandCreatedShape = Type.Union([Type.Ref('CommandConfirmation'), Type.Ref('CommandPending')], {
  $id: 'CommandCreated', description: 'status Confirmation (with code and message) or Pending (with created)',
});

/** The interface's list of a diagnostics result's fields; the automaker may send more. */
const DIAGNOSTICS_NUMBERS = [
  'fuel_amount', 'fuel_capacity', 'fuel_level', 'fuel_range', 'ideal_front_tire_pressure', 'ideal_rear_tire_pressure',
  'left_front_tire_pressure', 'left_rear_tire_pressure', 'right_front_tire_pressure', 'right_rear_tire_pressure', 'odometer',
  'oil_remaining_life', 'total_fuel_economy', 'total_fuel_used',
] as const;
const DIAGNOSTICS_TEXTS = [
  'left_front_tire_pressure_status', 'left_rear_tire_pressure_status', 'right_front_tire_pressure_status', 'right_rear_tire_pressure_status',
  'oil_remaining_life_status', 'seat_belt_status', 'system_power_mode',
] as const;

export const CommandResultShape = Type.Object({
  // null: the vehicle does not report it (an electric car has no fuel_amount).
  ...Object.fromEntries(DIAGNOSTICS_NUMBERS.map((name) => [name, Type.Optional(Type.Union([Type.Number(), Type.Null()]))])),
  ...Object.fromEntries(DIAGNOSTICS_TEXTS.map((name) => [name, Type.Optional(Type.Union([Type.String(), Type.Null()]))])),
  date_time: Type.Optional(Type.String({ description: `When the vehicle ran it, ${LOCAL_TIME}` })),
}, { $id: 'CommandResult', additionalProperties: true, description: 'What the vehicle answered: a diagnostics result has the fields listed; other commands may answer {}' });

export const CommandStatusShape = Type.Object({
  ...commandFields,
  status: Type.Enum(['Confirmation', 'Pending', 'Success', 'Error']),
  detail: Type.Union([Type.Ref('CommandResult'), Type.String()], {
    description: 'Success: the vehicle\'s result (an object, maybe empty); Error: the error text; {} while Confirmation or Pending',
  }),
  updated: Type.String({ description: `Latest status change, ${LOCAL_TIME}` }),
}, { $id: 'CommandStatus' });

export const VehicleDataRequestShape = Type.Object({
  vins: Type.Array(Type.String(), { minItems: 1, maxItems: 20, description: 'Up to 20 VINs (duplicates count once)' }),
  datapoints: Type.Array(Type.Enum(DATAPOINTS.map((d) => d.name)), { minItems: 1, maxItems: MAX_LISTED, description: 'Each record holds exactly these, in this order' }),
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (read at -03:00), or with an explicit offset; within the last 7 days' })),
  end_date: Type.Optional(Type.String({ description: 'Same formats; at most now, at most 24 h after start_date' })),
}, { $id: 'VehicleDataRequest' });

const FLAG = Type.Object({
  value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { description: 'What the automaker sent (null for an object or a list)' }),
  flag: Type.Enum(['out of range', 'invalid type']),
}, { additionalProperties: false });

const datapointShape = (spec: (typeof DATAPOINTS)[number]): TSchema => {
  switch (spec.kind) {
    case 'identity':
    case 'time':
      return Type.String({ description: spec.description });
    case 'number':
      return nullable(Type.Number({ minimum: spec.min, maximum: spec.max }), `${spec.description}, ${spec.unit}; null when not reported or corrected (see flag)`);
    case 'category':
    case 'event':
      return nullable(Type.String(), spec.description);
    case 'flags':
      return Type.Object({}, { additionalProperties: FLAG, description: 'Requested datapoints whose value was corrected at ingest, with what was sent' });
  }
};

export const VehicleDataRecordShape = Type.Object(
  Object.fromEntries(DATAPOINTS.map((spec) => [spec.name, Type.Optional(datapointShape(spec))])),
  { $id: 'VehicleDataRecord', additionalProperties: false, description: 'Exactly the requested datapoints, in the order asked' },
);

/** Keyed by VIN: `additionalProperties`, which generators read as a map (TypeBox's Record writes patternProperties). */
const byVin = (item: TSchema, options: { $id: string; description: string }) => Type.Object({}, { ...options, additionalProperties: Type.Array(item) });

export const VehicleDataResponseShape = byVin(Type.Ref('VehicleDataRecord'), {
  $id: 'VehicleDataResponse', description: 'Keyed by VIN, every requested VIN in request order; each value the VIN\'s records (empty when none)',
});

export const VehicleTripsRequestShape = Type.Object({
  vins: Type.Array(Type.String(), { minItems: 1, maxItems: 100, description: 'Up to 100 VINs (duplicates count once)' }),
  datapoints: Type.Array(Type.Enum([...TRIP_DATAPOINT_NAMES]), { minItems: 1, maxItems: MAX_LISTED, description: 'Each trip holds exactly these' }),
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T00:00:00) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
  end_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T23:59:59) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
}, { $id: 'VehicleTripsRequest' });

const TRIP_TEXTS: Readonly<Record<string, string>> = {
  vin: 'The VIN', start_date_time: LOCAL_TIME, end_date_time: LOCAL_TIME, duration: 'HH:MM:SS (hours may pass 23)',
};

export const TripRecordShape = Type.Object(
  Object.fromEntries(TRIP_DATAPOINT_NAMES.map((name) => [name, Type.Optional(name in TRIP_TEXTS
    ? Type.String({ description: TRIP_TEXTS[name] })
    : nullable(Type.Number(), 'null when the records did not carry what it is computed from (docs/trips.md)'))])),
  { $id: 'TripRecord', additionalProperties: false, description: 'Exactly the requested fields' },
);

export const VehicleTripsResponseShape = byVin(Type.Ref('TripRecord'), {
  $id: 'VehicleTripsResponse', description: 'Keyed by VIN; each value the VIN\'s trips (empty when none)',
});

/** Every named shape, for the service to register once (the document's components). */
export const TYPED_SHAPES: readonly TSchema[] = [
  VehicleCommandRequestShape, CommandConfirmationShape, CommandPendingShape, CommandStartFailedShape, CommandCreatedShape,
  CommandResultShape, CommandStatusShape, VehicleDataRequestShape, VehicleDataRecordShape, VehicleDataResponseShape,
  VehicleTripsRequestShape, TripRecordShape, VehicleTripsResponseShape, GeofenceBody,
];
