/** GET /vehicle-data/latest: every vehicle of the company with its newest record, in one call. */
import { Type, type Static } from 'typebox';

/**
 * What the newest record says of a vehicle. `moving`, `idle` and `parked` read the record's speed
 * and rpm (idle: standing with the engine running); `online` is a recent record whose speed the
 * company may not read; `offline` is a newest record older than the service's offline threshold
 * (the one of `vehicle.offline`); `no_data` a vehicle that never sent one.
 */
export const VEHICLE_STATES = ['moving', 'idle', 'parked', 'online', 'offline', 'no_data'] as const;
export type VehicleState = (typeof VEHICLE_STATES)[number];

export const VehicleLatest = Type.Object({
  vin: Type.String({ description: 'Vehicle Identification Number' }),
  state: Type.Unsafe<VehicleState>({ type: 'string', enum: [...VEHICLE_STATES], description: 'moving, idle, parked, online, offline or no_data (docs/vehicle-data.md)' }),
  record: Type.Union([
    Type.Object({}, {
      additionalProperties: true,
      description: 'The newest record as POST /vehicle-data writes it, holding every datapoint the company may read of this vehicle (plan ∩ its automaker\'s); a datapoint it may not read is absent, one the record lacks is null',
    }),
    Type.Null(),
  ]),
});
export type VehicleLatest = Static<typeof VehicleLatest>;

export const FleetLatest = Type.Array(VehicleLatest, { description: 'Every vehicle of the company, in any status, ordered by VIN' });
export type FleetLatest = Static<typeof FleetLatest>;
