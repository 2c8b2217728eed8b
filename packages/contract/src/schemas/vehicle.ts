/** GET /vehicle and GET /vehicle/{vin}. */
import { Type, type Static } from 'typebox';

/** `$id` lets the service register it once, so the OpenAPI document names it once. */
export const Vehicle = Type.Object(
  {
    company: Type.String({ description: 'Name of the company the vehicle is connected to' }),
    vin: Type.String({ description: 'Vehicle Identification Number (17 characters)' }),
    plate: Type.String({ description: 'License plate' }),
    oem: Type.String({ description: 'Automaker' }),
    model: Type.String({ description: 'Vehicle model' }),
    year: Type.Integer({ description: 'Vehicle year' }),
    status: Type.String({ description: 'Connection status: active (connected and sending data) or inactive' }),
    created: Type.String({ description: 'When the vehicle connection was created, YYYY-MM-DDTHH:MM:SS at -03:00' }),
  },
  { $id: 'Vehicle' },
);
export type Vehicle = Static<typeof Vehicle>;

export const VehicleParams = Type.Object({ vin: Type.String({ description: 'Vehicle Identification Number' }) });
export type VehicleParams = Static<typeof VehicleParams>;
