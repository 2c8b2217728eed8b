/** POST /vehicle-trips (D9). */
import { Type, type Static } from 'typebox';
import { TRIP_DATAPOINT_NAMES } from '../trip-datapoints.js';
import { MAX_LISTED } from './list-bounds.js';

export const VehicleTripsRequest = Type.Object({
  // No maxItems: any count over 100 gets the same text; the body limit bounds the list.
  vins: Type.Array(Type.String(), { minItems: 1, description: 'Up to 100 VINs (duplicates count once)' }),
  datapoints: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_LISTED, description: `Any of: ${TRIP_DATAPOINT_NAMES.join(', ')}` }),
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T00:00:00) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
  end_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T23:59:59) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
});
export type VehicleTripsRequest = Static<typeof VehicleTripsRequest>;

/** The requested trip fields (trip-datapoints.ts): times as text, measures as numbers, null when unknown. */
export type TripRecord = Record<string, string | number | null>;

export const VehicleTripsResponse = Type.Unsafe<Record<string, TripRecord[]>>({
  description: 'An object keyed by VIN; each value is the array of that VIN\'s trips (empty when none)',
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: true } },
});
export type VehicleTripsResponse = Static<typeof VehicleTripsResponse>;
