/** POST /vehicle-data (interface, D7). */
import { Type, type Static } from 'typebox';
import { MAX_LISTED } from './list-bounds.js';

export const VehicleDataRequest = Type.Object({
  // No maxItems: any count over 20 must get the interface's text; the body limit bounds the list.
  vins: Type.Array(Type.String(), { minItems: 1, description: 'Up to 20 VINs (duplicates count once)' }),
  datapoints: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_LISTED, description: 'Datapoint names; see docs/vehicle-data.md' }),
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (read at -03:00), or with an explicit offset' })),
  end_date: Type.Optional(Type.String({ description: 'Same formats; at most now, at most 24 h after start_date' })),
});
export type VehicleDataRequest = Static<typeof VehicleDataRequest>;

/** One record holds the requested datapoints (datapoints.ts), `flag` when values were corrected. */
export type VehicleDataRecord = Record<string, unknown>;

export const VehicleDataResponse = Type.Unsafe<Record<string, VehicleDataRecord[]>>({
  description: 'An object keyed by VIN; each value is the array of that VIN\'s records (empty when it has none in the window)',
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: true } },
});
export type VehicleDataResponse = Static<typeof VehicleDataResponse>;
