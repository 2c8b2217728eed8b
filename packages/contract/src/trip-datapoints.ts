/**
 * The fields of a trip record (POST /vehicle-trips, D9), in the order the service documents them.
 * A request names the ones it wants in `datapoints`.
 */
export const TRIP_DATAPOINT_NAMES = Object.freeze([
  'vin',
  'start_date_time',
  'end_date_time',
  'duration',
  'avg_speed',
  'max_speed',
  'start_odometer',
  'end_odometer',
  'distance',
  'avg_fuel_consumption',
  'start_latitude',
  'start_longitude',
  'end_latitude',
  'end_longitude',
] as const);

export type TripDatapointName = (typeof TRIP_DATAPOINT_NAMES)[number];
